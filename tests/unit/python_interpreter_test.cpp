#include <doctest/doctest.h>

#include <gnu/libc-version.h>

#include <cstdio>
#include <filesystem>
#include <sstream>

#include "image/rootfs_view.hpp"
#include "image_test_support.hpp"
#include "python/image_facts.hpp"
#include "python/interpreter.hpp"
#include "python/sysconfigdata.hpp"
#include "test_helpers.hpp"
#include "util/error.hpp"

using namespace rp;
using namespace rp::python;
using namespace rp::test;

namespace {

// Shaped like Debian 12's file: pprint output, adjacent literals, a parenthesized value.
const char* kDebianSysconfig = R"(# system configuration generated and used by the sysconfig module
build_time_vars = {'ABIFLAGS': '',
 'AC_APPLE_UNIVERSAL_BUILD': 0,
 'ALIGNOF_LONG': 8,
 'BINDIR': '/usr/bin',
 'BOOTSTRAP_HEADERS': '\\',
 'CFLAGS': '-Wsign-compare -DNDEBUG -g -fwrapv -O2 -Wall -g '
           ' '
           ' -fstack-protector-strong ',
 'CONFIG_ARGS': ("'--enable-shared' '--prefix=/usr' "
                 "'--libdir=/usr/lib/x86_64-linux-gnu'"),
 'INCLUDEPY': '/usr/include/python3.11',
 'LIBDIR': '/usr/lib/x86_64-linux-gnu',
 'MULTIARCH': 'x86_64-linux-gnu',
 'Py_DEBUG': 0,
 'Py_ENABLE_SHARED': 0,
 'SIZEOF_LONG': -8,
 'SOABI': 'cpython-311-x86_64-linux-gnu',
 'VERSION': '3.11',
 'exec_prefix': '/usr',
 'prefix': '/usr',
 'srcdir': '..'}
)";

const char* kDpkgStatus = R"(Package: libc6
Status: install ok installed
Version: 2.36-9+deb12u4

Package: python3.11-minimal
Status: install ok installed
Priority: optional
Version: 3.11.2-6+deb12u6
Description: Minimal subset of the Python language (version 3.11)
 This package contains the interpreter and some essential modules.

)";

std::string fake_libc(const std::string& version) {
  std::string bytes = "\x7f" "ELF";
  bytes.append(100, '\0');  // (appended, not operator+: GCC 12 warns falsely of -Warray-bounds there)
  bytes += "GLIBC_2.2.5";
  bytes.append(3, '\0');
  bytes += "GLIBC_2.34";
  bytes += '\0';
  bytes += "GNU C Library (Debian GLIBC " + version + "-9+deb12u4) stable release version " + version + ".\n";
  bytes += std::string(50, '\0');
  return bytes;
}

std::vector<Entry> debian_base() {
  return {dir_entry("usr"), dir_entry("usr/lib"), dir_entry("usr/bin"), dir_entry("usr/lib/x86_64-linux-gnu"),
          symlink_entry("lib", "usr/lib"), symlink_entry("bin", "usr/bin"),
          file_entry("usr/lib/x86_64-linux-gnu/libc.so.6", fake_libc("2.36"), 0755),
          dir_entry("var"), dir_entry("var/lib"), dir_entry("var/lib/dpkg"),
          file_entry("var/lib/dpkg/status", kDpkgStatus)};
}

std::vector<Entry> debian_python() {
  return {file_entry("usr/bin/python3.11", "\x7f" "ELF python", 0755), symlink_entry("usr/bin/python3", "python3.11"),
          dir_entry("usr/lib/python3.11"), file_entry("usr/lib/python3.11/os.py", "# os\n"),
          file_entry("usr/lib/python3.11/_sysconfigdata__x86_64-linux-gnu.py", kDebianSysconfig),
          symlink_entry("usr/lib/python3.11/_sysconfigdata__linux_x86_64-linux-gnu.py",
                        "_sysconfigdata__x86_64-linux-gnu.py"),
          file_entry("usr/lib/python3.11/EXTERNALLY-MANAGED", "[externally-managed]\nError=use apt\n"),
          dir_entry("usr/lib/python3"), dir_entry("usr/lib/python3/dist-packages")};
}

Platform amd64() { return Platform::parse("linux/amd64"); }

}  // namespace

TEST_CASE("sysconfigdata: strings, concatenation, parentheses, escapes, integers") {
  auto vars = parse_sysconfigdata(kDebianSysconfig, "sysconfig.py");
  CHECK(vars.get("ABIFLAGS") == "");
  CHECK(vars.get("SOABI") == "cpython-311-x86_64-linux-gnu");
  CHECK(vars.get("BOOTSTRAP_HEADERS") == "\\");
  CHECK(vars.get("CFLAGS") == "-Wsign-compare -DNDEBUG -g -fwrapv -O2 -Wall -g   -fstack-protector-strong ");
  CHECK(vars.get("CONFIG_ARGS") == "'--enable-shared' '--prefix=/usr' '--libdir=/usr/lib/x86_64-linux-gnu'");
  CHECK(vars.get_int("ALIGNOF_LONG") == 8);
  CHECK(vars.get_int("SIZEOF_LONG") == -8);
  CHECK_FALSE(vars.get_int("SOABI"));
  CHECK_FALSE(vars.get("missing"));

  auto more = parse_sysconfigdata("build_time_vars = {\"a\": 'x\\'y\\x41\\u00e9\\n', 'b': r'\\d', 'c': True,\n"
                                  "  # comment\n 'd': 007, }\n",
                                  "t.py");
  CHECK(more.get("a") == "x'yA\xc3\xa9\n");
  CHECK(more.get("b") == "\\d");
  CHECK(more.get("c") == "True");
  CHECK(more.get_int("d") == 7);
  CHECK(parse_sysconfigdata("build_time_vars = {}", "t.py").values.empty());
}

TEST_CASE("sysconfigdata: malformed input is a clear InputError with file, line and column") {
  auto error_of = [](const std::string& text) {
    try {
      parse_sysconfigdata(text, "/usr/lib/python3.11/_sysconfigdata_x.py");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("x = 1").find("no 'build_time_vars") != std::string::npos);
  CHECK(error_of("build_time_vars = {'a': 'b'") .find("not closed") != std::string::npos);
  CHECK(error_of("build_time_vars = {'a': 'b\n'}").find(":1:") != std::string::npos);
  CHECK(error_of("build_time_vars = {\n'a': [1]}").find("/usr/lib/python3.11/_sysconfigdata_x.py:2:6") != std::string::npos);
  CHECK(error_of("build_time_vars = {'a' 1}").find("expected ':'") != std::string::npos);
  CHECK(error_of("build_time_vars = {'a': 1 'b': 2}").find("expected ',' or '}'") != std::string::npos);
  CHECK(error_of("build_time_vars = {'a': '\\x4'}").find("hex digits") != std::string::npos);
  CHECK(error_of("build_time_vars = {'a': " + std::string(100, '(') + "1" + std::string(100, ')') + "}")
            .find("nested too deeply") != std::string::npos);
  CHECK(error_of("build_time_vars = {'a': 1.5}").find("decimal integers") != std::string::npos);
  CHECK(error_of("build_time_vars = {'a': '''x'''}").find("triple") != std::string::npos);
  CHECK(error_of(std::string("build_time_vars = {'a': '\\") ).find("backslash") != std::string::npos);
}

TEST_CASE("sysconfigdata: the host's real files parse (skipped when absent)") {
  for (const char* path : {"/usr/lib/python3.11/_sysconfigdata__x86_64-linux-gnu.py",
                           "/root/.pyenv/versions/3.11.7/lib/python3.11/_sysconfigdata__linux_x86_64-linux-gnu.py"}) {
    if (!std::filesystem::exists(path)) continue;
    auto vars = parse_sysconfigdata(read_file(path), path);
    CHECK(vars.get("VERSION") == "3.11");
    CHECK(vars.get("SOABI") == "cpython-311-x86_64-linux-gnu");
    CHECK(vars.values.size() > 500);
  }
}

TEST_CASE("image facts: glibc, patchlevel.h, dpkg and apk databases") {
  CHECK(glibc_version_from_library(fake_libc("2.36")) == "2.36");
  CHECK(glibc_version_from_library(std::string("x\0GLIBC_2.17\0GLIBC_2.2.5\0GLIBC_2.35\0GLIBC_PRIVATE", 48)) == "2.35");
  CHECK_FALSE(glibc_version_from_library("nothing here"));
  CHECK(version_from_patchlevel("/* x */\n#define PY_MINOR_VERSION 11\n#define PY_VERSION      \"3.11.9\"\n") ==
        "3.11.9");
  CHECK(version_from_patchlevel("#  define PY_VERSION \"3.13.0rc2+\"") == "3.13.0rc2+");
  CHECK_FALSE(version_from_patchlevel("#define PY_VERSION_HEX 0x030b09f0"));
  CHECK(version_from_dpkg_status(kDpkgStatus, 3, 11) == "3.11.2");
  CHECK_FALSE(version_from_dpkg_status(kDpkgStatus, 3, 12));
  CHECK(version_from_dpkg_status("Package: libpython3.12-minimal\nStatus: install ok not-installed\nVersion: 3.12.2-1\n\n"
                                 "Package: libpython3.12-minimal\nStatus: deinstall ok config-files\nVersion: 3.12.1-1\n\n"
                                 "Package: libpython3.12-minimal\nStatus: install ok installed\nVersion: 1:3.12.0~rc1-2\n",
                                 3, 12) == "3.12.0rc1");
  CHECK(version_from_apk_installed("P:musl\nV:1.2.4-r2\n\nP:python3\nV:3.11.9-r0\n", 3, 11) == "3.11.9");
  CHECK(musl_version_from_apk_installed("P:musl\nV:1.2.4-r2\n\nP:python3\nV:3.11.9-r0\n") == "1.2.4");
}

TEST_CASE("interpreter: the files of interest") {
  CHECK(interpreter_file_of_interest("usr/lib/python3.11/_sysconfigdata__x86_64-linux-gnu.py"));
  CHECK(interpreter_file_of_interest("opt/python/lib/python3.13t/_sysconfigdata_t_linux_x86_64-linux-gnu.py"));
  CHECK(interpreter_file_of_interest("usr/lib/python3.11/EXTERNALLY-MANAGED"));
  CHECK(interpreter_file_of_interest("usr/local/include/python3.12/patchlevel.h"));
  CHECK(interpreter_file_of_interest("var/lib/dpkg/status"));
  CHECK(interpreter_file_of_interest("var/lib/dpkg/status.d/libpython3.11-minimal"));
  CHECK(interpreter_file_of_interest("lib/apk/db/installed"));
  CHECK(interpreter_file_of_interest("usr/lib/x86_64-linux-gnu/libc.so.6"));
  CHECK(interpreter_file_of_interest("lib/x86_64-linux-gnu/libc-2.31.so"));
  CHECK_FALSE(interpreter_file_of_interest("usr/lib/python3.11/os.py"));
  CHECK_FALSE(interpreter_file_of_interest("usr/lib/python3.11/site-packages/x/_sysconfigdata_x.py"));
  CHECK_FALSE(interpreter_file_of_interest("usr/share/doc/libc.so.6"));
  CHECK_FALSE(interpreter_file_of_interest("usr/include/patchlevel.h"));
}

TEST_CASE("interpreter: Debian 12 layout read from layers") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  RootfsView view;
  view.add_layer(store, store_layer(store, debian_base()), interpreter_file_of_interest);
  view.add_layer(store, store_layer(store, debian_python(), "zstd"), interpreter_file_of_interest);

  Interpreter py = read_interpreter(view, "/usr/bin/python3", amd64());
  CHECK(py.executable == "/usr/bin/python3");
  CHECK(py.real_executable == "/usr/bin/python3.11");
  CHECK(py.version == "3.11.2");  // from dpkg: no patchlevel.h without python3.11-dev
  CHECK(py.major == 3);
  CHECK(py.minor == 11);
  CHECK(py.soabi == "cpython-311-x86_64-linux-gnu");
  CHECK(py.abiflags == "");
  CHECK(py.prefix == "/usr");
  CHECK(py.stdlib == "/usr/lib/python3.11");
  CHECK(py.include == "/usr/include/python3.11");
  CHECK(py.libc == "glibc");
  CHECK(py.libc_version == "2.36");
  CHECK(py.machine == "x86_64");
  REQUIRE(py.externally_managed);
  CHECK(py.externally_managed->find("externally-managed") != std::string::npos);
  CHECK(py.system_scheme.purelib == "/usr/local/lib/python3.11/dist-packages");
  CHECK(py.system_scheme.platlib == "/usr/local/lib/python3.11/dist-packages");
  CHECK(py.system_scheme.scripts == "/usr/local/bin");
  CHECK(py.system_scheme.data == "/usr/local");
  CHECK(py.system_scheme.include == "/usr/local/include/python3.11");
  CHECK(py.notes.empty());

  auto env = py.marker_environment();
  CHECK(env.python_full_version == "3.11.2");
  CHECK(env.platform_machine == "x86_64");
  auto policy = py.tag_policy();
  CHECK(policy.priority(WheelTag{"cp311", "cp311", "manylinux_2_36_x86_64"}));
  CHECK_FALSE(policy.priority(WheelTag{"cp311", "cp311", "manylinux_2_37_x86_64"}));

  auto back = Interpreter::from_json(py.to_json());
  CHECK(back.to_json() == py.to_json());
  CHECK(back.externally_managed == py.externally_managed);

  // The same through the /bin -> usr/bin symlink.
  CHECK(read_interpreter(view, "bin/python3", amd64()).real_executable == "/usr/bin/python3.11");
}

TEST_CASE("interpreter: a missing interpreter names what the image has") {
  TempDir dir;
  ContentStore store(dir.path / "store");
  RootfsView view;
  view.add_layer(store, store_layer(store, debian_base()), interpreter_file_of_interest);
  view.add_layer(store, store_layer(store, debian_python()), interpreter_file_of_interest);
  try {
    read_interpreter(view, "/usr/bin/python3.12", amd64());
    FAIL("expected an error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("/usr/bin/python3.12") != std::string::npos);
    CHECK(e.hint().find("/usr/bin/python3.11") != std::string::npos);
    CHECK(e.hint().find("/usr/bin/python3 ") != std::string::npos);
  }
  CHECK_THROWS_AS(read_interpreter(view, "/usr/lib", amd64()), InputError);
}

TEST_CASE("interpreter: no libc, no stdlib, no sysconfigdata, mismatched VERSION are InputErrors") {
  auto view_of = [](std::vector<Entry> entries) {
    RootfsView view;
    view.add_entries(entries);
    return view;
  };
  auto python = debian_python();
  {
    auto view = view_of(python);  // no libc
    try {
      read_interpreter(view, "/usr/bin/python3", amd64());
      FAIL("expected an error");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find("no C library") != std::string::npos);
    }
  }
  auto base = debian_base();
  {
    std::vector<Entry> entries = base;
    entries.push_back(file_entry("usr/bin/python3.11", "ELF", 0755));
    auto view = view_of(entries);
    CHECK_THROWS_WITH_AS(read_interpreter(view, "/usr/bin/python3.11", amd64()),
                         doctest::Contains("no standard library"), InputError);
  }
  {
    std::vector<Entry> entries = base;
    for (auto& e : python)
      if (e.path.find("_sysconfigdata") == std::string::npos) entries.push_back(e);
    auto view = view_of(entries);
    CHECK_THROWS_WITH_AS(read_interpreter(view, "/usr/bin/python3", amd64()), doctest::Contains("_sysconfigdata"),
                         InputError);
  }
  {
    std::vector<Entry> entries = base;
    for (auto& e : python)
      if (e.path.find("_sysconfigdata") == std::string::npos) entries.push_back(e);
    std::string text = kDebianSysconfig;
    text.replace(text.find("'VERSION': '3.11'"), 17, "'VERSION': '3.12'");
    entries.push_back(file_entry("usr/lib/python3.11/_sysconfigdata__x86_64-linux-gnu.py", text));
    auto view = view_of(entries);
    CHECK_THROWS_WITH_AS(read_interpreter(view, "/usr/bin/python3", amd64()), doctest::Contains("3.12"), InputError);
  }
  {
    std::vector<Entry> entries = base;
    for (auto& e : python)
      if (e.path.find("_sysconfigdata") == std::string::npos) entries.push_back(e);
    entries.push_back(file_entry("usr/lib/python3.11/_sysconfigdata__x86_64-linux-gnu.py", "build_time_vars = {'a': "));
    auto view = view_of(entries);
    CHECK_THROWS_AS(read_interpreter(view, "/usr/bin/python3", amd64()), InputError);
  }
}

TEST_CASE("interpreter: a standalone tree at /opt/python, relocated from its build prefix") {
  std::string sysconfig = "build_time_vars = {'ABIFLAGS': '', 'SOABI': 'cpython-312-aarch64-linux-gnu', "
                          "'VERSION': '3.12', 'prefix': '/install', 'exec_prefix': '/install', "
                          "'INCLUDEPY': '/install/include/python3.12', 'LIBDIR': '/install/lib'}\n";
  std::vector<Entry> entries = {
      file_entry("usr/lib/aarch64-linux-gnu/libc.so.6", fake_libc("2.31"), 0755),
      file_entry("opt/python/bin/python3.12", "ELF", 0755), symlink_entry("opt/python/bin/python3", "python3.12"),
      file_entry("opt/python/lib/python3.12/os.py", ""),
      file_entry("opt/python/lib/python3.12/_sysconfigdata__linux_aarch64-linux-gnu.py", sysconfig),
      file_entry("opt/python/include/python3.12/patchlevel.h", "#define PY_VERSION \"3.12.7\"\n")};
  finalize_entries(entries);
  RootfsView view;
  view.add_entries(entries);
  Interpreter py = read_interpreter(view, "/opt/python/bin/python3", Platform::parse("linux/arm64"));
  CHECK(py.prefix == "/opt/python");
  CHECK(py.version == "3.12.7");
  CHECK(py.include == "/opt/python/include/python3.12");
  CHECK(py.machine == "aarch64");
  CHECK(py.libc_version == "2.31");
  CHECK_FALSE(py.externally_managed);
  CHECK(py.system_scheme.purelib == "/opt/python/lib/python3.12/site-packages");
  CHECK(py.system_scheme.scripts == "/opt/python/bin");
  CHECK(py.system_scheme.python == "/opt/python/bin/python3.12");
  REQUIRE(py.notes.size() == 1);
  CHECK(py.notes[0].find("/install") != std::string::npos);
}

TEST_CASE("interpreter: musl (Alpine) and a version known only from the name") {
  std::string sysconfig = "build_time_vars = {'ABIFLAGS': '', 'SOABI': 'cpython-311-x86_64-linux-musl', "
                          "'VERSION': '3.11', 'prefix': '/usr', 'MULTIARCH': 'x86_64-linux-musl'}\n";
  std::vector<Entry> entries = {file_entry("lib/ld-musl-x86_64.so.1", "ELF", 0755),
                                symlink_entry("lib/libc.musl-x86_64.so.1", "ld-musl-x86_64.so.1"),
                                file_entry("usr/bin/python3.11", "ELF", 0755),
                                file_entry("usr/lib/python3.11/os.py", ""),
                                file_entry("usr/lib/python3.11/_sysconfigdata__linux_x86_64-linux-musl.py", sysconfig)};
  RootfsView view;
  view.add_entries(entries);
  Interpreter py = read_interpreter(view, "/usr/bin/python3.11", amd64());
  CHECK(py.libc == "musl");
  CHECK(py.libc_version == "");
  CHECK(py.version == "3.11.0");
  CHECK(py.notes.size() == 2);
  CHECK(py.system_scheme.purelib == "/usr/lib/python3.11/site-packages");  // no dist-packages: not Debian's
  CHECK_THROWS_AS(py.tag_policy(), InputError);

  view.add_entries({file_entry("lib/apk/db/installed", "P:musl\nV:1.2.4-r2\n\nP:python3\nV:3.11.9-r0\n")});
  py = read_interpreter(view, "/usr/bin/python3.11", amd64());
  CHECK(py.libc_version == "1.2.4");
  CHECK(py.version == "3.11.9");
}

namespace {

// The regular files and symlinks directly in a host directory, as planned entries at `image_dir`.
void add_host_dir(std::vector<Entry>& entries, const std::string& host_dir, const std::string& image_dir) {
  for (const auto& de : std::filesystem::directory_iterator(host_dir)) {
    std::string image_path = image_dir + "/" + de.path().filename().string();
    if (de.is_symlink()) {
      entries.push_back(symlink_entry(image_path, std::filesystem::read_symlink(de.path()).string()));
    } else if (de.is_regular_file()) {
      Entry e;
      e.path = image_path;
      e.type = EntryType::kFile;
      e.mode = static_cast<uint32_t>(de.status().permissions()) & 07777;
      e.content = std::make_shared<HostFileContent>(de.path().string(), de.file_size(), "");
      entries.push_back(e);
    } else if (de.is_directory()) {
      entries.push_back(dir_entry(image_path));
    }
  }
}

void add_host_file(std::vector<Entry>& entries, const std::string& host_path, const std::string& image_path) {
  std::string real = std::filesystem::canonical(host_path).string();
  Entry e;
  e.path = image_path;
  e.content = std::make_shared<HostFileContent>(real, std::filesystem::file_size(real), "");
  entries.push_back(e);
}

// What the interpreter itself says (the test may run it; rockpack never does).
std::vector<std::string> ask_python(const std::string& python) {
  std::string command = python + " -c \"import sys, sysconfig; print(sys.version.split()[0], "
                                 "sysconfig.get_config_var('SOABI'), sys.prefix)\"";
  std::string out;
  FILE* p = ::popen(command.c_str(), "r");
  REQUIRE(p);
  char buf[512];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  std::vector<std::string> words;
  std::istringstream in(out);
  for (std::string w; in >> w;) words.push_back(w);
  REQUIRE(words.size() == 3);
  return words;
}

}  // namespace

TEST_CASE("interpreter: the host's pyenv installation as real-world input (skipped when absent)") {
  const std::string root = "/root/.pyenv/versions/3.11.7";
  if (!std::filesystem::exists(root + "/bin/python3.11")) return;
  auto truth = ask_python(root + "/bin/python3.11");
  // bin/, the stdlib's top level, include/ and the host's libc; the prefix moved to /opt/py.
  std::vector<Entry> entries;
  add_host_dir(entries, root + "/bin", "opt/py/bin");
  add_host_dir(entries, root + "/lib/python3.11", "opt/py/lib/python3.11");
  add_host_dir(entries, root + "/include/python3.11", "opt/py/include/python3.11");
  add_host_file(entries, "/lib/x86_64-linux-gnu/libc.so.6", "lib/x86_64-linux-gnu/libc.so.6");
  RootfsView view;
  view.add_entries(entries);
  Interpreter py = read_interpreter(view, "/opt/py/bin/python3", amd64());
  CHECK(py.real_executable == "/opt/py/bin/python3.11");
  CHECK(py.version == truth[0]);
  CHECK(py.soabi == truth[1]);
  CHECK(truth[2] == root);
  CHECK(py.prefix == "/opt/py");
  CHECK(py.include == "/opt/py/include/python3.11");
  CHECK(py.libc == "glibc");
  CHECK(py.libc_version == gnu_get_libc_version());
  CHECK(py.system_scheme.purelib == "/opt/py/lib/python3.11/site-packages");
}

TEST_CASE("interpreter: the host's Debian python3 as real-world input (skipped when absent)") {
  if (!std::filesystem::exists("/usr/bin/python3.11") ||
      !std::filesystem::exists("/usr/lib/python3.11/_sysconfigdata__x86_64-linux-gnu.py"))
    return;
  auto truth = ask_python("/usr/bin/python3.11");
  std::vector<Entry> entries;
  add_host_dir(entries, "/usr/bin", "usr/bin");
  add_host_dir(entries, "/usr/lib/python3.11", "usr/lib/python3.11");
  entries.push_back(dir_entry("usr/lib/python3/dist-packages"));
  add_host_file(entries, "/lib/x86_64-linux-gnu/libc.so.6", "usr/lib/x86_64-linux-gnu/libc.so.6");
  entries.push_back(symlink_entry("lib", "usr/lib"));
  if (std::filesystem::exists("/var/lib/dpkg/status")) add_host_file(entries, "/var/lib/dpkg/status", "var/lib/dpkg/status");
  RootfsView view;
  view.add_entries(entries);
  Interpreter py = read_interpreter(view, "/usr/bin/python3", amd64());
  CHECK(py.version == truth[0]);
  CHECK(py.soabi == truth[1]);
  CHECK(py.prefix == truth[2]);
  CHECK(py.libc_version == gnu_get_libc_version());
  CHECK(py.system_scheme.purelib == "/usr/local/lib/python3.11/dist-packages");
  CHECK(py.externally_managed.has_value() == std::filesystem::exists("/usr/lib/python3.11/EXTERNALLY-MANAGED"));
}
