// The installer on real wheels nobody here wrote: Debian's python3-pip-whl, python3-setuptools-whl
// and python3-wheel-whl put pip, setuptools and wheel under /usr/share/python-wheels/.
// Also an end-to-end check: the layer extracted over a venv made by the host's python3 must run.
#include <doctest/doctest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <optional>
#include <set>

#include "python/install_plan.hpp"
#include "python/wheel_archive.hpp"
#include "python/wheel_installer.hpp"
#include "python/wheel_record.hpp"
#include "util/error.hpp"
#include "wheel_test_support.hpp"

namespace fs = std::filesystem;
using rp::python::install_wheel;
using rp::python::InstallOptions;
using rp::python::InstallScheme;

namespace {

std::optional<fs::path> system_wheel(const std::string& project) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/usr/share/python-wheels", ec)) {
    std::string name = e.path().filename().string();
    if (name.starts_with(project + "-") && name.ends_with(".whl")) return e.path();
  }
  return std::nullopt;
}

// "pip-23.0.1-py3-none-any.whl" -> "23.0.1"
std::string version_of(const fs::path& wheel) {
  std::string name = wheel.filename().string();
  size_t start = name.find('-') + 1;
  return name.substr(start, name.find('-', start) - start);
}

// Every file under the site-packages or bin of the layer is in RECORD exactly once with the right
// hash and size, and every RECORD row is a file of the layer.
void check_record_consistency(const std::map<std::string, rp::test::TarMember>& tar,
                              const rp::python::InstalledWheel& installed, const std::string& site) {
  auto rows = rp::python::parse_record(tar.at(installed.dist_info + "/RECORD").data);
  std::set<std::string> seen;
  for (const auto& row : rows) {
    INFO(row.path);
    CHECK(seen.insert(row.path).second);
    std::string image_path = fs::path("/" + site + "/" + row.path).lexically_normal().string().substr(1);
    REQUIRE(tar.count(image_path) == 1);
    if (row.path == installed.dist_info.substr(site.size() + 1) + "/RECORD") {
      CHECK(row.hash.empty());
      continue;
    }
    CHECK(row.hash == rp::python::record_hash(tar.at(image_path).data));
    CHECK(row.size == std::to_string(tar.at(image_path).data.size()));
  }
  CHECK(rows.size() == installed.files.size());
}

}  // namespace

TEST_CASE("wheel/real pip, setuptools and wheel install into a venv layer") {
  auto pip = system_wheel("pip"), setuptools = system_wheel("setuptools"), wheel = system_wheel("wheel");
  if (!pip || !setuptools || !wheel) {
    MESSAGE("skipped: install python3-pip-whl python3-setuptools-whl python3-wheel-whl (tools/install-deps.sh)");
    return;
  }
  const InstallScheme venv = InstallScheme::venv("/opt/venv", 3, 11);
  const std::string site = "opt/venv/lib/python3.11/site-packages";
  InstallOptions requested;
  requested.requested = true;
  requested.verify_record = true;  // these wheels are consistent; prove that we read them right
  InstallOptions dependency;
  dependency.verify_record = true;

  auto pip_installed = install_wheel(*pip, venv, requested);
  auto setuptools_installed = install_wheel(*setuptools, venv, dependency);
  auto wheel_installed = install_wheel(*wheel, venv, dependency);
  CHECK(pip_installed.name == "pip");
  CHECK(pip_installed.version.to_string() == version_of(*pip));
  CHECK(pip_installed.dist_info == site + "/pip-" + version_of(*pip) + ".dist-info");

  auto merged = rp::python::merge_installed_wheels({pip_installed, setuptools_installed, wheel_installed});
  auto tar = rp::test::read_layer(merged);

  // A member streamed from the zip equals the member itself.
  auto archive = rp::python::WheelArchive::open(*pip);
  const auto* init = archive->find("pip/__init__.py");
  REQUIRE(init);
  CHECK(tar.at(site + "/pip/__init__.py").data == archive->read_member(*init, 1 << 20));
  CHECK(tar.at(site + "/pip/__init__.py").mode == 0644);
  CHECK(tar.at(site + "/pip/__init__.py").uid == 0);

  // The console launcher, uv's form.
  const auto& launcher = tar.at("opt/venv/bin/pip");
  CHECK(launcher.mode == 0755);
  CHECK(launcher.data ==
        "#!/opt/venv/bin/python\n"
        "# -*- coding: utf-8 -*-\n"
        "import sys\n"
        "from pip._internal.cli.main import main\n"
        "if __name__ == \"__main__\":\n"
        "    if sys.argv[0].endswith(\"-script.pyw\"):\n"
        "        sys.argv[0] = sys.argv[0][:-11]\n"
        "    elif sys.argv[0].endswith(\".exe\"):\n"
        "        sys.argv[0] = sys.argv[0][:-4]\n"
        "    sys.exit(main())\n");
  CHECK(tar.count("opt/venv/bin/wheel") == 1);

  check_record_consistency(tar, pip_installed, site);
  check_record_consistency(tar, setuptools_installed, site);
  check_record_consistency(tar, wheel_installed, site);

  CHECK(tar.at(pip_installed.dist_info + "/INSTALLER").data == "rockpack\n");
  CHECK(tar.count(pip_installed.dist_info + "/REQUESTED") == 1);
  CHECK(tar.count(setuptools_installed.dist_info + "/REQUESTED") == 0);
  // pip ships no .data; nothing of the wheel's layout is left over.
  for (const auto& kv : tar) CHECK_MESSAGE(kv.first.find(".data/") == std::string::npos, kv.first);
}

namespace {

// Runs a shell command, returns its exit status and stdout.
int run(const std::string& command, std::string* out = nullptr) {
  FILE* p = ::popen(command.c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  size_t n;
  std::string text;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) text.append(buf, n);
  int status = ::pclose(p);
  if (out) *out = text;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string host_python() {
  if (fs::exists("/usr/bin/python3")) return "/usr/bin/python3";
  std::string out;
  if (run("command -v python3", &out) == 0 && !out.empty()) return out.substr(0, out.find('\n'));
  return {};
}

}  // namespace

TEST_CASE("wheel/venv the layer extracted over a host venv runs pip") {
  auto pip = system_wheel("pip"), setuptools = system_wheel("setuptools"), wheel = system_wheel("wheel");
  std::string python = host_python();
  if (!pip || !setuptools || !wheel || python.empty() || run("command -v tar >/dev/null") != 0) {
    MESSAGE("skipped: needs python3, tar and the python3-*-whl packages");
    return;
  }
  std::string version;
  REQUIRE(run(python + " -c 'import sys; print(sys.version_info[0], sys.version_info[1])'", &version) == 0);
  int major = 0, minor = 0;
  REQUIRE(std::sscanf(version.c_str(), "%d %d", &major, &minor) == 2);

  rp::test::TempDir dir;
  fs::path venv = dir.path / "venv";
  if (run(python + " -m venv --without-pip '" + venv.string() + "' 2>&1") != 0) {
    MESSAGE("skipped: " << python << " -m venv does not work here");
    return;
  }
  // The scheme names the venv's real location, so shebangs and paths are right once extracted.
  const InstallScheme scheme = InstallScheme::venv(venv.string(), major, minor);
  InstallOptions requested;
  requested.requested = true;
  auto merged = rp::python::merge_installed_wheels(
      {install_wheel(*pip, scheme, requested), install_wheel(*setuptools, scheme), install_wheel(*wheel, scheme)});

  // Keep only what lies inside the venv, relative to it: extracting directory entries for /tmp
  // itself would change the host's /tmp.
  std::string prefix = venv.string().substr(1) + "/";
  std::vector<rp::Entry> inside;
  for (auto& e : merged) {
    if (!e.path.starts_with(prefix)) continue;
    e.path = e.path.substr(prefix.size());
    inside.push_back(std::move(e));
  }
  dir.write("layer.tar", rp::test::layer_tar_bytes(std::move(inside)));
  REQUIRE(run("tar -x -f '" + (dir.path / "layer.tar").string() + "' -C '" + venv.string() + "'") == 0);

  std::string env = "env -u PYTHONPATH -u PYTHONHOME PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INDEX=1 PYTHONNOUSERSITE=1 ";
  std::string bin = venv.string() + "/bin/";
  std::string out;
  CHECK(run(env + bin + "python -c 'import pip; print(pip.__version__)'", &out) == 0);
  CHECK(out == version_of(*pip) + "\n");
  CHECK(run(env + bin + "pip --version", &out) == 0);
  CHECK(out.starts_with("pip " + version_of(*pip) + " from " + venv.string()));
  CHECK(run(env + bin + "python -m pip list --format=freeze 2>&1", &out) == 0);
  CHECK(out.find("pip==" + version_of(*pip) + "\n") != std::string::npos);
  CHECK(out.find("setuptools==" + version_of(*setuptools) + "\n") != std::string::npos);
  CHECK(out.find("wheel==" + version_of(*wheel) + "\n") != std::string::npos);
  INFO(out);
  CHECK(run(env + bin + "python -m pip check 2>&1", &out) == 0);
  CHECK(out.find("No broken requirements found.") != std::string::npos);
  // pip reads our RECORD and INSTALLER back.
  CHECK(run(env + bin + "python -m pip show -f wheel 2>&1", &out) == 0);
  CHECK(out.find("Version: " + version_of(*wheel)) != std::string::npos);
  CHECK(run(env + bin + "python -m pip inspect 2>/dev/null | grep -c '\"installer\": \"rockpack\"'", &out) == 0);
  CHECK(std::stoi(out) == 3);
}
