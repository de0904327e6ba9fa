"""Which distribution packages make up the ROCm SDK on this index, and how they are named.

setup.py reads this module to compute the requirements of each extra; the rocm_sdk package reads
it at run time to find the installed pieces. The index build appends its version and target
families at the end of this file.
"""

ALL_PACKAGES = {}


class PackageEntry:
    """One distribution package of the SDK.

    dist_package_template names the distribution, py_package_template the top-level directory it
    installs into site-packages; both may contain {target_family} or {target}.
    """

    def __init__(self, logical_name, dist_package_template, *, py_package_template,
                 required=False, is_target_specific=False):
        self.logical_name = logical_name
        self.dist_package_template = dist_package_template
        self.py_package_template = py_package_template
        self.required = required
        self.is_target_specific = is_target_specific
        ALL_PACKAGES[logical_name] = self

    def dist_package_name(self, target_family=None, target=None):
        return self.dist_package_template.format(target_family=target_family, target=target)

    def py_package_name(self, target_family=None, target=None):
        return self.py_package_template.format(target_family=target_family, target=target)


PackageEntry("core", "rocm-sdk-core", py_package_template="_rocm_sdk_core", required=True)
PackageEntry(
    "libraries",
    "rocm-sdk-libraries-{target_family}",
    py_package_template="_rocm_sdk_libraries_{target_family}",
    is_target_specific=True,
)
PackageEntry("devel", "rocm-sdk-devel", py_package_template="rocm_sdk_devel")
PackageEntry("profiler", "rocm-profiler", py_package_template="_rocm_profiler")

# The targets each family is built for (device extras on multi-arch indexes).
FAMILY_TARGETS = {
    'gfx94X-dcgpu': ['gfx942'],
}

AVAILABLE_TARGET_FAMILIES = []
DEFAULT_TARGET_FAMILY = None
__version__ = None


def targets_of(family):
    return FAMILY_TARGETS.get(family, [family])

# --- appended by the index build ---
__version__ = "7.10.0a20251121"
DEFAULT_TARGET_FAMILY = "gfx94X-dcgpu"
AVAILABLE_TARGET_FAMILIES.append("gfx94X-dcgpu")
