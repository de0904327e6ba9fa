// The installer on wheels built by the tests: the hard cases of wheels.md, checked through a real
// layer tar read back with libarchive.
#include <doctest/doctest.h>

#include "python/install_plan.hpp"
#include "python/wheel_installer.hpp"
#include "python/wheel_record.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "wheel_test_support.hpp"

using rp::python::install_wheel;
using rp::python::InstallOptions;
using rp::python::InstallScheme;
using rp::test::TempDir;
using rp::test::TestWheel;
using rp::test::ZipSpec;

namespace {

const InstallScheme kVenv = InstallScheme::venv("/opt/venv", 3, 11);
const std::string kSite = "opt/venv/lib/python3.11/site-packages";

std::string install_error(const TestWheel& wheel, const InstallOptions& options = {}) {
  TempDir dir;
  try {
    install_wheel(wheel.write(dir), kVenv, options);
  } catch (const rp::Error& e) {
    return e.what();
  }
  return "(no error)";
}

// RECORD rows by path.
std::map<std::string, rp::python::RecordRow> record_of(const std::map<std::string, rp::test::TarMember>& tar,
                                                       const std::string& dist_info) {
  std::map<std::string, rp::python::RecordRow> rows;
  for (auto& row : rp::python::parse_record(tar.at(dist_info + "/RECORD").data)) rows[row.path] = row;
  return rows;
}

void check_row(const std::map<std::string, rp::python::RecordRow>& rows, const std::string& path,
               const std::string& content) {
  INFO(path);
  REQUIRE(rows.count(path) == 1);
  CHECK(rows.at(path).hash == rp::python::record_hash(content));
  CHECK(rows.at(path).size == std::to_string(content.size()));
}

}  // namespace

TEST_CASE("wheel/install puts a purelib wheel into site-packages with RECORD, INSTALLER, REQUESTED") {
  TempDir dir;
  TestWheel w;
  w.files = {{"demo_pkg/__init__.py", "VALUE = 1\n"},
             {"demo_pkg/tool.sh", "#!/bin/sh\necho hi\n", 0100755},
             {"demo_pkg/empty/", "", 040755, false}};
  InstallOptions options;
  options.requested = true;
  auto installed = install_wheel(w.write(dir), kVenv, options);
  CHECK(installed.name == "demo_pkg");
  CHECK(installed.normalized_name == "demo-pkg");
  CHECK(installed.version.to_string() == "1.0");
  CHECK(installed.dist_info == kSite + "/demo_pkg-1.0.dist-info");
  CHECK(installed.warnings.empty());

  auto tar = rp::test::read_layer(installed.entries);
  CHECK(tar.at(kSite + "/demo_pkg/__init__.py").data == "VALUE = 1\n");
  CHECK(tar.at(kSite + "/demo_pkg/__init__.py").mode == 0644);
  CHECK(tar.at(kSite + "/demo_pkg/tool.sh").mode == 0755);
  CHECK(tar.at(kSite + "/demo_pkg/empty").type == AE_IFDIR);
  CHECK(tar.at(kSite + "/demo_pkg").mode == 0755);
  CHECK(tar.at(kSite + "/demo_pkg/__init__.py").uid == 0);
  CHECK(tar.at(installed.dist_info + "/INSTALLER").data == "rockpack\n");
  CHECK(tar.at(installed.dist_info + "/REQUESTED").data.empty());

  auto rows = record_of(tar, installed.dist_info);
  check_row(rows, "demo_pkg/__init__.py", "VALUE = 1\n");
  check_row(rows, "demo_pkg-1.0.dist-info/INSTALLER", "rockpack\n");
  check_row(rows, "demo_pkg-1.0.dist-info/REQUESTED", "");
  CHECK(rows.at("demo_pkg-1.0.dist-info/RECORD").hash.empty());
  CHECK(rows.at("demo_pkg-1.0.dist-info/RECORD").size.empty());
  // Every installed file has exactly one row, and every row is an installed file.
  CHECK(rows.size() == installed.files.size());
  for (const auto& f : installed.files) CHECK(rows.count(rp::python::relative_path("/" + kSite, "/" + f)) == 1);

  options.requested = false;
  auto again = install_wheel(w.write(dir), kVenv, options);
  CHECK(rp::test::read_layer(again.entries).count(again.dist_info + "/REQUESTED") == 0);
}

TEST_CASE("wheel/install puts a non-purelib wheel into platlib") {
  TempDir dir;
  TestWheel w;
  w.root_is_purelib = false;
  w.files = {{"demo_pkg/_native.so", "ELF", 0100755}};
  InstallScheme scheme = InstallScheme::prefix_install("/usr", "/usr/bin/python3.11", 3, 11);
  scheme.platlib = "/usr/lib64/python3.11/site-packages";
  auto installed = install_wheel(w.write(dir), scheme);
  CHECK(installed.dist_info == "usr/lib64/python3.11/site-packages/demo_pkg-1.0.dist-info");
  auto tar = rp::test::read_layer(installed.entries);
  CHECK(tar.at("usr/lib64/python3.11/site-packages/demo_pkg/_native.so").mode == 0755);
  CHECK(tar.count("usr/lib/python3.11/site-packages/demo_pkg/_native.so") == 0);
  auto rows = record_of(tar, installed.dist_info);
  check_row(rows, "demo_pkg/_native.so", "ELF");
}

TEST_CASE("wheel/install maps .data directories and rewrites #!python scripts") {
  TempDir dir;
  TestWheel w;
  std::string data = w.data_dir();
  w.files = {{"demo_pkg/__init__.py", ""},
             {data + "/scripts/demo-run", "#!python\nimport demo_pkg\nprint('run')\n", 0100644},
             {data + "/scripts/demo-gui", "#!pythonw -E\r\nprint('gui')\r\n"},
             {data + "/scripts/plain.sh", "#!/bin/sh\necho plain\n"},
             {data + "/headers/demo.h", "#define DEMO 1\n"},
             {data + "/data/share/demo/config.txt", "key=value\n"},
             {data + "/purelib/demo_extra/mod.py", "X = 2\n"},
             {data + "/platlib/demo_native/lib.py", "Y = 3\n"}};
  auto installed = install_wheel(w.write(dir), kVenv);
  auto tar = rp::test::read_layer(installed.entries);

  std::string run = "#!/opt/venv/bin/python\nimport demo_pkg\nprint('run')\n";
  CHECK(tar.at("opt/venv/bin/demo-run").data == run);
  CHECK(tar.at("opt/venv/bin/demo-run").mode == 0755);
  // The whole first line goes, whatever followed the placeholder; the rest stays byte for byte.
  CHECK(tar.at("opt/venv/bin/demo-gui").data == "#!/opt/venv/bin/python\nprint('gui')\r\n");
  CHECK(tar.at("opt/venv/bin/plain.sh").data == "#!/bin/sh\necho plain\n");
  CHECK(tar.at("opt/venv/bin/plain.sh").mode == 0755);
  CHECK(tar.at("opt/venv/include/site/python3.11/demo_pkg/demo.h").data == "#define DEMO 1\n");
  CHECK(tar.at("opt/venv/share/demo/config.txt").data == "key=value\n");
  CHECK(tar.at(kSite + "/demo_extra/mod.py").data == "X = 2\n");
  CHECK(tar.at(kSite + "/demo_native/lib.py").data == "Y = 3\n");
  for (const auto& kv : tar) CHECK_MESSAGE(kv.first.find(".data") == std::string::npos, kv.first);

  auto rows = record_of(tar, installed.dist_info);
  check_row(rows, "../../../bin/demo-run", run);
  check_row(rows, "../../../bin/plain.sh", "#!/bin/sh\necho plain\n");
  check_row(rows, "../../../include/site/python3.11/demo_pkg/demo.h", "#define DEMO 1\n");
  check_row(rows, "../../../share/demo/config.txt", "key=value\n");
  check_row(rows, "demo_extra/mod.py", "X = 2\n");
  for (const auto& kv : rows) CHECK_MESSAGE(kv.first.find(".data/") == std::string::npos, kv.first);

  // RECORD describes the scripts as shipped; verification checks them before the rewrite.
  InstallOptions verify;
  verify.verify_record = true;
  CHECK(install_wheel(w.write(dir), kVenv, verify).files == installed.files);
}

TEST_CASE("wheel/install uses the /bin/sh trick for long or spaced interpreter paths") {
  TempDir dir;
  TestWheel w;
  w.files = {{w.data_dir() + "/scripts/demo-run", "#!python\nprint(1)\n"}};
  w.entry_points = "[console_scripts]\ndemo = demo_pkg.cli:main\n";
  InstallScheme scheme = InstallScheme::venv("/opt/my venv", 3, 11);
  auto tar = rp::test::read_layer(install_wheel(w.write(dir), scheme).entries);
  std::string sh = "#!/bin/sh\n'''exec' '/opt/my venv/bin/python' \"$0\" \"$@\"\n' '''\n";
  CHECK(tar.at("opt/my venv/bin/demo-run").data == sh + "print(1)\n");
  CHECK(tar.at("opt/my venv/bin/demo").data.starts_with(sh + "# -*- coding: utf-8 -*-\n"));

  InstallScheme deep = InstallScheme::venv("/opt/" + std::string(120, 'v'), 3, 11);
  auto deep_tar = rp::test::read_layer(install_wheel(w.write(dir), deep).entries);
  CHECK(deep_tar.at(deep.scripts.substr(1) + "/demo-run").data.starts_with("#!/bin/sh\n'''exec' '"));
}

TEST_CASE("wheel/install generates console and gui launchers, extras ignored, scripts of the same name skipped") {
  TempDir dir;
  TestWheel w;
  w.files = {{"demo_pkg/__init__.py", ""},
             {w.data_dir() + "/scripts/demo", "#!python\nprint('old script')\n"}};
  w.entry_points =
      "[console_scripts]\n"
      "demo = demo_pkg.cli:main [color, fast]\n"
      "[gui_scripts]\n"
      "demo-gui = demo_pkg.gui:App.run\n"
      "[demo.plugins]\n"
      "ignored = demo_pkg.plugin\n";
  auto installed = install_wheel(w.write(dir), kVenv);
  auto tar = rp::test::read_layer(installed.entries);
  std::string expected =
      "#!/opt/venv/bin/python\n"
      "# -*- coding: utf-8 -*-\n"
      "import sys\n"
      "from demo_pkg.cli import main\n"
      "if __name__ == \"__main__\":\n"
      "    if sys.argv[0].endswith(\"-script.pyw\"):\n"
      "        sys.argv[0] = sys.argv[0][:-11]\n"
      "    elif sys.argv[0].endswith(\".exe\"):\n"
      "        sys.argv[0] = sys.argv[0][:-4]\n"
      "    sys.exit(main())\n";
  CHECK(tar.at("opt/venv/bin/demo").data == expected);
  CHECK(tar.at("opt/venv/bin/demo").mode == 0755);
  std::string gui = tar.at("opt/venv/bin/demo-gui").data;
  CHECK(gui.find("from demo_pkg.gui import App\n") != std::string::npos);
  CHECK(gui.find("    sys.exit(App.run())\n") != std::string::npos);
  CHECK(tar.count("opt/venv/bin/ignored") == 0);

  auto rows = record_of(tar, installed.dist_info);
  check_row(rows, "../../../bin/demo", expected);
  check_row(rows, "../../../bin/demo-gui", gui);
  check_row(rows, "demo_pkg-1.0.dist-info/entry_points.txt", w.entry_points);
  CHECK(rows.size() == installed.files.size());
}

TEST_CASE("wheel/install rejects entry point names that escape bin") {
  TestWheel w;
  w.entry_points = "[console_scripts]\n../evil = demo_pkg:main\n";
  CHECK(install_error(w).find("entry_points.txt") != std::string::npos);
}

TEST_CASE("wheel/install rejects an unknown .data key") {
  TestWheel w;
  w.files = {{w.data_dir() + "/lib/x.py", ""}};
  std::string error = install_error(w);
  CHECK(error.find("unknown .data directory") != std::string::npos);
  CHECK(error.find("demo_pkg-1.0.data/lib") != std::string::npos);
}

TEST_CASE("wheel/install rejects unsafe paths inside the wheel") {
  TestWheel climbing;
  climbing.files = {{"../../etc/cron.d/evil", "* * * * * root sh\n"}};
  CHECK(install_error(climbing).find("'..'") != std::string::npos);
  TestWheel absolute;
  absolute.files = {{"/etc/passwd", "root::0:0::/:/bin/sh\n"}};
  CHECK(install_error(absolute).find("absolute path") != std::string::npos);
  TestWheel data_climb;
  data_climb.files = {{data_climb.data_dir() + "/data/../../../../etc/passwd", "x"}};
  CHECK(install_error(data_climb).find("'..'") != std::string::npos);
}

TEST_CASE("wheel/install fails while streaming a member with a bad CRC") {
  TempDir dir;
  TestWheel w;
  ZipSpec bad{"demo_pkg/big.py", std::string(100000, 'x')};
  bad.corrupt_crc = true;
  w.files = {bad};
  auto installed = install_wheel(w.write(dir), kVenv);  // planning reads only the metadata
  try {
    rp::test::layer_tar_bytes(installed.entries);
    FAIL("no error");
  } catch (const rp::Error& e) {
    std::string msg = e.what();
    CHECK(msg.find(w.filename()) != std::string::npos);
    CHECK(msg.find("demo_pkg/big.py") != std::string::npos);
    CHECK(msg.find("CRC-32") != std::string::npos);
  }
}

TEST_CASE("wheel/install checks name and version against the file name") {
  TestWheel renamed;
  renamed.metadata_name = "other-pkg";
  CHECK(install_error(renamed).find("METADATA names the project 'other-pkg'") != std::string::npos);

  TestWheel other_version;
  other_version.filename_version = "2.0";
  CHECK(install_error(other_version).find("version") != std::string::npos);

  // Normalized names match: Demo.Pkg in METADATA, demo_pkg in the file name.
  TestWheel spelled;
  spelled.metadata_name = "Demo.Pkg";
  CHECK(install_error(spelled) == "(no error)");
}

TEST_CASE("wheel/install accepts a local version label in the file name") {
  TempDir dir;
  TestWheel w;
  w.name = "torch";
  w.version = "2.9.1+rocm7.0";
  w.files = {{"torch/__init__.py", ""}};
  auto installed = install_wheel(w.write(dir), kVenv);
  CHECK(installed.filename == "torch-2.9.1+rocm7.0-py3-none-any.whl");
  CHECK(installed.version.to_string() == "2.9.1+rocm7.0");
  CHECK(installed.dist_info == kSite + "/torch-2.9.1+rocm7.0.dist-info");

  // METADATA without the local label, file name with it: only the local part may differ.
  TestWheel plain = w;
  plain.version = "2.9.1";
  plain.filename_version = "2.9.1+rocm7.0";
  CHECK(install_error(plain) == "(no error)");

  // The name as served by an index ("%2B") works when passed through InstallOptions::filename.
  InstallOptions options;
  options.filename = "torch-2.9.1%2Brocm7.0-py3-none-any.whl";
  auto blob = dir.write("sha256-blob", w.bytes());
  CHECK(install_wheel(blob, kVenv, options).version.to_string() == "2.9.1+rocm7.0");
}

TEST_CASE("wheel/install checks WHEEL and the .dist-info directory") {
  TestWheel future;
  future.wheel_version = "2.0";
  CHECK(install_error(future).find("Wheel-Version") != std::string::npos);

  TempDir dir;
  TestWheel newer;
  newer.wheel_version = "1.9";
  auto installed = install_wheel(newer.write(dir), kVenv);
  REQUIRE(installed.warnings.size() == 1);
  CHECK(installed.warnings[0].find("1.9") != std::string::npos);

  TestWheel two;
  two.files = {{"other-1.0.dist-info/METADATA", "Name: other\n"}};
  CHECK(install_error(two).find("2 .dist-info directories") != std::string::npos);
}

TEST_CASE("wheel/install verifies RECORD hashes only when asked") {
  TestWheel w;
  w.files = {{"demo_pkg/__init__.py", "VALUE = 1\n"}};
  w.record_overrides["demo_pkg/__init__.py"] = rp::python::record_hash("something else") + ",10";
  InstallOptions verify;
  verify.verify_record = true;
  CHECK(install_error(w).find("(no error)") != std::string::npos);
  CHECK(install_error(w, verify).find("does not match its RECORD entry") != std::string::npos);

  TestWheel good;
  good.files = {{"demo_pkg/__init__.py", "VALUE = 1\n"}};
  CHECK(install_error(good, verify) == "(no error)");
}

TEST_CASE("wheel/install reads zip64 wheels") {
  TempDir dir;
  TestWheel w;
  w.zip64 = true;
  w.files = {{"demo_pkg/__init__.py", "VALUE = 64\n"}};
  auto tar = rp::test::read_layer(install_wheel(w.write(dir), kVenv).entries);
  CHECK(tar.at(kSite + "/demo_pkg/__init__.py").data == "VALUE = 64\n");
}

TEST_CASE("wheel/merge reports two wheels writing one file and merges shared directories") {
  TempDir dir;
  TestWheel a;
  a.name = "alpha";
  a.files = {{"shared_ns/alpha/__init__.py", "A\n"}, {"shared_ns/__init__.py", ""}, {"common.py", "alpha\n"}};
  TestWheel b;
  b.name = "beta";
  b.files = {{"shared_ns/beta/__init__.py", "B\n"}, {"shared_ns/__init__.py", ""}};
  // With the wheels' digests, member content keys name the wheel instead of hashing the member;
  // identical files from two wheels must still be recognised as identical.
  InstallOptions a_options, b_options;
  a_options.wheel_digest = rp::sha256_digest(a.bytes());
  b_options.wheel_digest = rp::sha256_digest(b.bytes());
  auto wa = install_wheel(a.write(dir), kVenv, a_options);
  auto wb = install_wheel(b.write(dir), kVenv, b_options);
  for (const auto& e : wa.entries)
    if (e.path.ends_with("alpha/__init__.py"))
      // "record-checked:": the member streams through its RECORD check, and a layer cached by a
      // build that did not check (an older rockpack) must not be found by this key.
      CHECK(e.content->content_key() ==
            "record-checked:wheel-member:" + a_options.wheel_digest + ":shared_ns/alpha/__init__.py");
  auto merged = rp::python::merge_installed_wheels({wa, wb});
  auto tar = rp::test::read_layer(merged);
  CHECK(tar.at(kSite + "/shared_ns/alpha/__init__.py").data == "A\n");
  CHECK(tar.at(kSite + "/shared_ns/beta/__init__.py").data == "B\n");
  CHECK(tar.count(kSite + "/shared_ns/__init__.py") == 1);  // identical bytes: fine

  TestWheel c;
  c.name = "gamma";
  c.files = {{"common.py", "gamma\n"}};
  auto wc = install_wheel(c.write(dir), kVenv);
  try {
    rp::python::merge_installed_wheels({wa, wb, wc});
    FAIL("no error");
  } catch (const rp::InputError& e) {
    std::string msg = e.what();
    CHECK(msg.find("/" + kSite + "/common.py") != std::string::npos);
    CHECK(msg.find(a.filename()) != std::string::npos);
    CHECK(msg.find(c.filename()) != std::string::npos);
  }
}

TEST_CASE("wheel/install takes modes from the zip's Unix attributes") {
  TempDir dir;
  TestWheel w;
  w.files = {{"demo_pkg/no_unix_mode.py", "", 0},           // written on Windows: no mode at all
             {"demo_pkg/group_exec", "", 0100710},           // any x bit makes it executable
             {"demo_pkg/setuid", "", 0104755},               // special bits are not kept
             {"demo_pkg/private.txt", "", 0100600}};         // read bits are normalized
  auto tar = rp::test::read_layer(install_wheel(w.write(dir), kVenv).entries);
  CHECK(tar.at(kSite + "/demo_pkg/no_unix_mode.py").mode == 0644);
  CHECK(tar.at(kSite + "/demo_pkg/group_exec").mode == 0755);
  CHECK(tar.at(kSite + "/demo_pkg/setuid").mode == 0755);
  CHECK(tar.at(kSite + "/demo_pkg/private.txt").mode == 0644);
}

TEST_CASE("wheel/install rejects files where .data directories belong") {
  TestWheel data_file;
  data_file.files = {{data_file.data_dir(), "not a directory"}};
  CHECK(install_error(data_file).find("where the .data directory belongs") != std::string::npos);
  TestWheel key_file;
  key_file.files = {{key_file.data_dir() + "/scripts", "not a directory"}};
  CHECK(install_error(key_file).find("where a .data directory belongs") != std::string::npos);
}

TEST_CASE("wheel/install rejects two members landing on one path") {
  TestWheel w;
  w.files = {{"demo_pkg/mod.py", "A"}, {w.data_dir() + "/purelib/demo_pkg/mod.py", "B"}};
  std::string error = install_error(w);
  CHECK(error.find("would both be installed as /" + kSite + "/demo_pkg/mod.py") != std::string::npos);
}
