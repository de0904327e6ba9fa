// TheRock: target families, _dist_info.py without Python, the rocm sdist reader. The sdist tests
// run tests/tools/make_therock_index.py, so the generator and the reader stay faithful to each other.
#include <archive.h>
#include <archive_entry.h>
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "test_helpers.hpp"
#include "therock/dist_info.hpp"
#include "therock/families.hpp"
#include "therock/rocm_sdist.hpp"
#include "util/error.hpp"

using rp::therock::DistInfo;
using rp::therock::IndexLayout;

namespace {

std::vector<std::string> names_of(const std::vector<rp::python::Requirement>& requirements) {
  std::vector<std::string> out;
  for (const auto& r : requirements) out.push_back(r.to_string());
  return out;
}

std::string error_text(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const rp::InputError& e) {
    return std::string(e.what()) + " | " + e.hint();
  }
  return "no InputError";
}

const char* kPerFamilyDistInfo = R"PY(
"""Docstring that mentions __version__ = "0.0" and PackageEntry("fake", "x") - not code."""
ALL_PACKAGES = {}

class PackageEntry:
    def __init__(self, logical_name, dist_package_template, *, py_package_template, required=False):
        self.dist_package_template = "inside the class"  # indented: ignored
        ALL_PACKAGES[logical_name] = self

PackageEntry("core", "rocm-sdk-core", py_package_template="_rocm_sdk_core", required=True)
PackageEntry(
    "libraries",
    'rocm-sdk-libraries-{target_family}',  # a comment ( with a bracket
    py_package_template="_rocm_sdk_libraries_{target_family}",
    is_target_specific=True,
)
PackageEntry("devel", "rocm-sdk-devel", py_package_template="rocm_sdk_devel")
PackageEntry("profiler", "rocm-profiler", py_package_template="_rocm_profiler")
AVAILABLE_TARGET_FAMILIES = []
DEFAULT_TARGET_FAMILY = None
__version__ = None
__version__ = "7.10.0a20251120"
DEFAULT_TARGET_FAMILY = "gfx94X-dcgpu"
AVAILABLE_TARGET_FAMILIES.append("gfx94X-dcgpu")
AVAILABLE_TARGET_FAMILIES.append("gfx90a"); AVAILABLE_TARGET_FAMILIES.append("gfx110X-dgpu")
AVAILABLE_TARGET_FAMILIES.append("gfx94X-dcgpu")
)PY";

// Writes a gzip'd pax tar with the given (path, content) regular files and (path, target) symlinks.
void write_tar_gz(const std::filesystem::path& file, const std::vector<std::pair<std::string, std::string>>& files,
                  const std::vector<std::pair<std::string, std::string>>& symlinks = {}) {
  archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  archive_write_add_filter_gzip(a);
  REQUIRE(archive_write_open_filename(a, file.c_str()) == ARCHIVE_OK);
  for (const auto& [path, content] : files) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, path.c_str());
    archive_entry_set_filetype(e, AE_IFREG);
    archive_entry_set_perm(e, 0644);
    archive_entry_set_size(e, static_cast<la_int64_t>(content.size()));
    archive_write_header(a, e);
    archive_write_data(a, content.data(), content.size());
    archive_entry_free(e);
  }
  for (const auto& [path, target] : symlinks) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, path.c_str());
    archive_entry_set_filetype(e, AE_IFLNK);
    archive_entry_set_perm(e, 0777);
    archive_entry_set_symlink(e, target.c_str());
    archive_write_header(a, e);
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
}

bool have_python3() { return std::system("python3 -c 'import sys' >/dev/null 2>&1") == 0; }

// Runs the mock index generator; returns false (and says why) when it cannot run here.
bool generate_index(const std::filesystem::path& out, const std::string& args) {
  if (!have_python3()) {
    MESSAGE("python3 not found: skipping the generator cross-check");
    return false;
  }
  std::string command = "python3 '" ROCKPACK_SOURCE_DIR "/tests/tools/make_therock_index.py' '" + out.string() +
                        "' " + args + " >/dev/null";
  REQUIRE(std::system(command.c_str()) == 0);
  return true;
}

}  // namespace

TEST_CASE("therock/families: target to family") {
  using rp::therock::family_for;
  CHECK(family_for("gfx942") == "gfx94X-dcgpu");
  CHECK(family_for("gfx950") == "gfx950-dcgpu");
  CHECK(family_for("gfx1101") == "gfx110X-all");
  CHECK(family_for("gfx1151") == "gfx1151");
  CHECK(family_for("gfx1201") == "gfx120X-all");
  CHECK(family_for("gfx1033") == "gfx103X-all");
  CHECK(family_for("gfx90a") == "gfx90a");
  CHECK(family_for("gfx900") == "gfx900");
  CHECK(rp::therock::family_candidates("gfx1100") == std::vector<std::string>{"gfx110X-all", "gfx110X-dgpu"});
  CHECK(rp::therock::family_candidates("gfx942") == std::vector<std::string>{"gfx94X-dcgpu"});
  auto message = error_text([] { family_for("gfx1010"); });
  CHECK(message.find("gfx1010") != std::string::npos);
  CHECK(message.find("gfx942, gfx950") != std::string::npos);
}

TEST_CASE("therock/families: parse_targets") {
  using rp::therock::parse_targets;
  CHECK(parse_targets("gfx942") == std::vector<std::string>{"gfx942"});
  CHECK(parse_targets("gfx90a;gfx942") == std::vector<std::string>{"gfx90a", "gfx942"});
  CHECK(parse_targets(" gfx942 , GFX90A;gfx942;; gfx90a:xnack+ ") == std::vector<std::string>{"gfx942", "gfx90a"});
  CHECK(rp::therock::families_for(parse_targets("gfx1100;gfx1101,gfx942")) ==
        std::vector<std::string>{"gfx110X-all", "gfx94X-dcgpu"});
  CHECK_THROWS_AS(parse_targets(""), rp::InputError);
  CHECK_THROWS_AS(parse_targets(" ; , "), rp::InputError);
  auto message = error_text([] { parse_targets("gfx942;sm_90"); });
  CHECK(message.find("'sm_90' is not a GPU target") != std::string::npos);
  CHECK(message.find("gfx942") != std::string::npos);
  // Which gfx targets exist is the release's business (check_targets); `all` means all of them.
  CHECK(parse_targets("gfx1152;all") == std::vector<std::string>{"gfx1152", "all"});
}

TEST_CASE("therock/dist_info: the appended lines and the package templates") {
  DistInfo info = rp::therock::parse_dist_info(kPerFamilyDistInfo);
  CHECK(info.version == "7.10.0a20251120");
  CHECK(info.default_family == "gfx94X-dcgpu");
  CHECK(info.available_families == std::vector<std::string>{"gfx94X-dcgpu", "gfx90a", "gfx110X-dgpu"});
  REQUIRE(info.packages.size() == 4);
  CHECK(info.packages.count("fake") == 0);
  CHECK(info.packages.at("core").required);
  CHECK(info.packages.at("core").dist_template == "rocm-sdk-core");
  CHECK(info.packages.at("libraries").dist_template == "rocm-sdk-libraries-{target_family}");
  CHECK(info.packages.at("libraries").py_package_template == "_rocm_sdk_libraries_{target_family}");
  CHECK(info.packages.at("libraries").target_specific);
  CHECK_FALSE(info.packages.at("devel").required);
  CHECK(rp::therock::layout_of(info) == IndexLayout::kPerFamily);
}

TEST_CASE("therock/dist_info: requirements on a per-family index") {
  DistInfo info = rp::therock::parse_dist_info(kPerFamilyDistInfo);
  using rp::therock::requirements_for;
  CHECK(names_of(requirements_for(info, {"gfx942"}, {"libraries", "devel"}, IndexLayout::kPerFamily)) ==
        std::vector<std::string>{"rocm-sdk-core==7.10.0a20251120", "rocm-sdk-libraries-gfx94X-dcgpu==7.10.0a20251120",
                                 "rocm-sdk-devel==7.10.0a20251120"});
  // Several targets: each family's libraries; the older gfx110X-dgpu name when that is what the index has.
  CHECK(names_of(requirements_for(info, {"gfx90a", "gfx942", "gfx1100", "gfx1101"}, {"libraries", "profiler"},
                                  IndexLayout::kPerFamily)) ==
        std::vector<std::string>{"rocm-sdk-core==7.10.0a20251120", "rocm-sdk-libraries-gfx90a==7.10.0a20251120",
                                 "rocm-sdk-libraries-gfx94X-dcgpu==7.10.0a20251120",
                                 "rocm-sdk-libraries-gfx110X-dgpu==7.10.0a20251120", "rocm-profiler==7.10.0a20251120"});
  // No extras: core only; no targets: the default family.
  CHECK(names_of(requirements_for(info, {"gfx942"}, {}, IndexLayout::kPerFamily)) ==
        std::vector<std::string>{"rocm-sdk-core==7.10.0a20251120"});
  CHECK(names_of(requirements_for(info, {}, {"libraries"}, IndexLayout::kPerFamily)).back() ==
        "rocm-sdk-libraries-gfx94X-dcgpu==7.10.0a20251120");
  auto missing = error_text([&] { requirements_for(info, {"gfx1151"}, {"libraries"}, IndexLayout::kPerFamily); });
  CHECK(missing.find("gfx1151") != std::string::npos);
  CHECK(missing.find("gfx94X-dcgpu, gfx90a, gfx110X-dgpu") != std::string::npos);
  auto unknown = error_text([&] { requirements_for(info, {"gfx942"}, {"libs"}, IndexLayout::kPerFamily); });
  CHECK(unknown.find("'libs'") != std::string::npos);
  CHECK(unknown.find("libraries, devel, profiler") != std::string::npos);
}

TEST_CASE("therock/dist_info: multi-arch") {
  std::string text = std::string(kPerFamilyDistInfo) + R"PY(
PackageEntry("device", "rocm-sdk-device-{target}", py_package_template="_rocm_sdk_libraries", is_target_specific=True)
ALL_PACKAGES["libraries"].dist_package_template = "rocm-sdk-libraries"
)PY";
  DistInfo info = rp::therock::parse_dist_info(text);
  CHECK(rp::therock::layout_of(info) == IndexLayout::kMultiArch);
  // libraries is arch neutral: device code comes only with device extras.
  CHECK(names_of(rp::therock::requirements_for(info, {"gfx942", "gfx90a"}, {"libraries", "devel", "device-gfx942"},
                                               IndexLayout::kMultiArch)) ==
        std::vector<std::string>{"rocm-sdk-core==7.10.0a20251120", "rocm-sdk-libraries==7.10.0a20251120",
                                 "rocm-sdk-devel==7.10.0a20251120", "rocm-sdk-device-gfx942==7.10.0a20251120"});
  auto extras = rp::therock::known_extras(info, IndexLayout::kMultiArch);
  CHECK(std::find(extras.begin(), extras.end(), "device-gfx1101") != extras.end());
  CHECK(std::find(extras.begin(), extras.end(), "device-gfx1151") == extras.end());
  CHECK(names_of(rp::therock::requirements_for(info, {}, {"device-gfx90a"}, IndexLayout::kMultiArch)).back() ==
        "rocm-sdk-device-gfx90a==7.10.0a20251120");
}

TEST_CASE("therock/dist_info: a multi-arch release lists GPU targets") {
  DistInfo info = rp::therock::parse_dist_info(std::string(kPerFamilyDistInfo) + R"PY(
PackageEntry("device", "rocm-sdk-device-{target}", py_package_template="_rocm_sdk_libraries", is_target_specific=True)
ALL_PACKAGES["libraries"].dist_package_template = "rocm-sdk-libraries"
DEFAULT_TARGET_FAMILY = 'gfx1100'
AVAILABLE_TARGET_FAMILIES = []
AVAILABLE_TARGET_FAMILIES.append('gfx1100')
AVAILABLE_TARGET_FAMILIES.append('gfx90a:xnack-')
AVAILABLE_TARGET_FAMILIES.append('gfx942')
AVAILABLE_TARGET_FAMILIES.append('gfx1152')
LINUX_TARGET_FAMILIES.append('gfx1100')
LINUX_TARGET_FAMILIES.append('gfx90a:xnack-')
LINUX_TARGET_FAMILIES.append('gfx942')
WINDOWS_TARGET_FAMILIES.append('gfx1100')
WINDOWS_TARGET_FAMILIES.append('gfx1152')
)PY");
  using rp::therock::release_targets;
  // Feature suffixes stripped, the Windows-only target left out.
  CHECK(release_targets(info, IndexLayout::kMultiArch) == std::vector<std::string>{"gfx1100", "gfx90a", "gfx942"});
  CHECK_NOTHROW(rp::therock::check_targets(info, {"gfx942", "gfx90a", "all"}, IndexLayout::kMultiArch));
  auto unknown = error_text([&] { rp::therock::check_targets(info, {"gfx942", "gfx950"}, IndexLayout::kMultiArch); });
  CHECK(unknown.find("no device package for GPU target 'gfx950'") != std::string::npos);
  CHECK(unknown.find("gfx1100, gfx90a, gfx942") != std::string::npos);
  // device = what setup.py picks without a GPU: the default; device-all = every Linux target.
  CHECK(names_of(rp::therock::requirements_for(info, {"gfx942"}, {"device"}, IndexLayout::kMultiArch)).back() ==
        "rocm-sdk-device-gfx1100==7.10.0a20251120");
  CHECK(names_of(rp::therock::requirements_for(info, {}, {"device-all"}, IndexLayout::kMultiArch)) ==
        std::vector<std::string>{"rocm-sdk-core==7.10.0a20251120", "rocm-sdk-device-gfx1100==7.10.0a20251120",
                                 "rocm-sdk-device-gfx90a==7.10.0a20251120", "rocm-sdk-device-gfx942==7.10.0a20251120"});
}

TEST_CASE("therock/dist_info: damaged modules") {
  using rp::therock::parse_dist_info;
  CHECK_THROWS_AS(parse_dist_info("DEFAULT_TARGET_FAMILY = \"gfx942\"\n"), rp::InputError);  // no version
  CHECK_THROWS_AS(parse_dist_info("__version__ = \"not a version\"\n"), rp::InputError);
  CHECK_THROWS_AS(parse_dist_info("__version__ = \"1.0\"\nx = \"\"\"unterminated\n"), rp::InputError);
  CHECK_THROWS_AS(parse_dist_info("__version__ = \"1.0\nx = 1\n"), rp::InputError);
  CHECK_THROWS_AS(parse_dist_info("__version__ = \"1.0\"\nALL_PACKAGES[\"nope\"].dist_package_template = \"x\"\n"),
                  rp::InputError);
  CHECK_THROWS_AS(parse_dist_info(std::string(2 << 20, '#')), rp::InputError);
  auto line = error_text([] { parse_dist_info("__version__ = \"1.0\"\n\n\ny = 'open\n", "x/_dist_info.py"); });
  CHECK(line.find("x/_dist_info.py:4:") != std::string::npos);
  // Odd but valid Python: prefixes, escapes, raw strings, semicolons, line joins.
  DistInfo info = parse_dist_info("__version__ = u'7.1'; DEFAULT_TARGET_FAMILY = r\"gfx\\d\"\n"
                                  "AVAILABLE_TARGET_FAMILIES = [\"a\", 'b',\n  \"a\"]\n"
                                  "AVAILABLE_TARGET_FAMILIES \\\n  .append(\"c\")\n");
  CHECK(info.version == "7.1");
  CHECK(info.default_family == "gfx\\d");
  CHECK(info.available_families == std::vector<std::string>{"a", "b", "c"});
  // Without declared packages the templates are TheRock's.
  CHECK(names_of(rp::therock::requirements_for(parse_dist_info("__version__ = '7.1'\n"), {"gfx942"},
                                               {"libraries", "devel"}, IndexLayout::kPerFamily)) ==
        std::vector<std::string>{"rocm-sdk-core==7.1", "rocm-sdk-libraries-gfx94X-dcgpu==7.1", "rocm-sdk-devel==7.1"});
}

TEST_CASE("therock/rocm_sdist: the generator's per-family sdist") {
  rp::test::TempDir dir;
  if (!generate_index(dir.path / "index", "--family gfx94X-dcgpu --family gfx1151 --versions 7.10.0a20251121"))
    return;
  auto sdist = rp::therock::read_rocm_sdist(dir.path / "index/gfx1151/rocm-7.10.0a20251121.tar.gz");
  CHECK(sdist.root == "rocm-7.10.0a20251121");
  CHECK(sdist.dist_info.version == "7.10.0a20251121");
  CHECK(sdist.dist_info.default_family == "gfx1151");
  CHECK(sdist.dist_info.available_families == std::vector<std::string>{"gfx1151"});
  CHECK(sdist.dist_info.packages.size() == 4);
  CHECK(rp::therock::layout_of(sdist.dist_info) == IndexLayout::kPerFamily);
  std::vector<std::string> paths;
  for (const auto& f : sdist.package_files) paths.push_back(f.path);
  CHECK(paths == std::vector<std::string>{"rocm_sdk/__init__.py", "rocm_sdk/__main__.py", "rocm_sdk/_dist_info.py"});
  CHECK(sdist.package_files[1].content.find("def main(") != std::string::npos);
  CHECK(sdist.pkg_info.find("Name: rocm") != std::string::npos);
  CHECK(names_of(rp::therock::requirements_for(sdist.dist_info, {"gfx1151"}, {"libraries", "devel"},
                                               IndexLayout::kPerFamily)) ==
        std::vector<std::string>{"rocm-sdk-core==7.10.0a20251121", "rocm-sdk-libraries-gfx1151==7.10.0a20251121",
                                 "rocm-sdk-devel==7.10.0a20251121"});
  // Every requirement names a distribution the generated index publishes.
  for (const auto& r : rp::therock::requirements_for(sdist.dist_info, {"gfx1151"}, {"libraries", "devel", "profiler"},
                                                     IndexLayout::kPerFamily)) {
    CHECK_MESSAGE(std::filesystem::exists(dir.path / "index/gfx1151" / r.normalized_name() / "index.html"),
                  r.normalized_name());
  }
}

TEST_CASE("therock/rocm_sdist: the generator's multi-arch sdist") {
  rp::test::TempDir dir;
  if (!generate_index(dir.path / "index", "--layout multi-arch --target gfx942 --target gfx950 --target gfx1100 "
                                          "--versions 7.10.0a20251120"))
    return;
  auto sdist = rp::therock::read_rocm_sdist(dir.path / "index/rocm-7.10.0a20251120.tar.gz", "rocm-7.10.0a20251120.tar.gz");
  const auto& info = sdist.dist_info;
  CHECK(info.available_families == std::vector<std::string>{"gfx1100", "gfx942", "gfx950"});
  CHECK(rp::therock::layout_of(info) == IndexLayout::kMultiArch);
  CHECK(info.packages.at("device").dist_template == "rocm-sdk-device-{target}");
  auto requirements = rp::therock::requirements_for(info, {"gfx942", "gfx1100"},
                                                    {"libraries", "devel", "device-gfx942", "device-gfx1100"},
                                                    IndexLayout::kMultiArch);
  CHECK(names_of(requirements) ==
        std::vector<std::string>{"rocm-sdk-core==7.10.0a20251120", "rocm-sdk-libraries==7.10.0a20251120",
                                 "rocm-sdk-devel==7.10.0a20251120", "rocm-sdk-device-gfx942==7.10.0a20251120",
                                 "rocm-sdk-device-gfx1100==7.10.0a20251120"});
  for (const auto& r : requirements) {
    CHECK_MESSAGE(std::filesystem::exists(dir.path / "index" / r.normalized_name() / "index.html"), r.normalized_name());
  }
}

TEST_CASE("therock/rocm_sdist: hostile or wrong archives") {
  rp::test::TempDir dir;
  const std::string dist_info = "__version__ = \"7.1\"\n";
  const std::string pkg_info = "Metadata-Version: 2.1\nName: rocm\nVersion: 7.1\n\n";
  auto sdist = [&](const std::string& name, std::vector<std::pair<std::string, std::string>> files,
                   std::vector<std::pair<std::string, std::string>> links = {}) {
    auto path = dir.path / name;
    write_tar_gz(path, files, links);
    return error_text([&] { rp::therock::read_rocm_sdist(path, name); });
  };
  // A minimal good one.
  auto good = dir.path / "good.tar.gz";
  write_tar_gz(good, {{"rocm-7.1/PKG-INFO", pkg_info}, {"rocm-7.1/src/rocm_sdk/_dist_info.py", dist_info}});
  CHECK(rp::therock::read_rocm_sdist(good).dist_info.version == "7.1");

  CHECK(sdist("a.tar.gz", {{"rocm-7.1/PKG-INFO", pkg_info}}).find("_dist_info.py") != std::string::npos);
  CHECK(sdist("b.tar.gz", {{"rocm-7.1/PKG-INFO", pkg_info}, {"rocm-7.1/src/rocm_sdk/_dist_info.py", dist_info},
                           {"other/x", "x"}})
            .find("more than one top-level") != std::string::npos);
  CHECK(sdist("c.tar.gz", {{"rocm-7.1/../../etc/passwd", "x"}}).find("unsafe path") != std::string::npos);
  CHECK(sdist("d.tar.gz", {{"/abs/PKG-INFO", "x"}}).find("unsafe path") != std::string::npos);
  CHECK(sdist("e.tar.gz", {{"rocm-7.1/PKG-INFO", pkg_info}, {"rocm-7.1/src/rocm_sdk/_dist_info.py", dist_info}},
              {{"rocm-7.1/src/rocm_sdk/evil.py", "/etc/passwd"}})
            .find("link or special file") != std::string::npos);
  CHECK(sdist("f.tar.gz", {{"rocm-7.1/PKG-INFO", "Metadata-Version: 2.1\nName: rocm\nVersion: 7.2\n\n"},
                           {"rocm-7.1/src/rocm_sdk/_dist_info.py", dist_info}})
            .find("7.2") != std::string::npos);
  CHECK(sdist("g.tar.gz", {{"rocm-7.1/PKG-INFO", "Metadata-Version: 2.1\nName: rocm-sdk\nVersion: 7.1\n\n"},
                           {"rocm-7.1/src/rocm_sdk/_dist_info.py", dist_info}})
            .find("not rocm") != std::string::npos);
  CHECK(sdist("h.tar.gz", {{"rocm-7.1/PKG-INFO", pkg_info},
                           {"rocm-7.1/src/rocm_sdk/_dist_info.py", std::string(5 << 20, '#')}})
            .find("oversized") != std::string::npos);
  auto junk = dir.write("junk.tar.gz", "this is not an archive at all, not even close........................");
  CHECK_THROWS_AS(rp::therock::read_rocm_sdist(junk), rp::InputError);
  CHECK_THROWS_AS(rp::therock::read_rocm_sdist(dir.path / "missing.tar.gz"), rp::InputError);
}
