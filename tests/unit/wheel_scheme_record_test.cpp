// Install schemes, RECORD CSV and hashes, shebangs: the small pieces of the wheel installer.
#include <doctest/doctest.h>

#include "python/install_scheme.hpp"
#include "python/script_launcher.hpp"
#include "python/wheel_record.hpp"
#include "util/error.hpp"

using namespace rp::python;

TEST_CASE("wheel/scheme venv and prefix layouts") {
  auto venv = InstallScheme::venv("/opt/venv/", 3, 11);
  CHECK(venv.prefix == "/opt/venv");
  CHECK(venv.purelib == "/opt/venv/lib/python3.11/site-packages");
  CHECK(venv.platlib == venv.purelib);
  CHECK(venv.scripts == "/opt/venv/bin");
  CHECK(venv.data == "/opt/venv");
  CHECK(venv.headers_for("torch") == "/opt/venv/include/site/python3.11/torch");
  CHECK(venv.python == "/opt/venv/bin/python");

  auto prefix = InstallScheme::prefix_install("/usr/local", "/usr/bin/python3", 3, 12);
  CHECK(prefix.purelib == "/usr/local/lib/python3.12/site-packages");
  CHECK(prefix.scripts == "/usr/local/bin");
  CHECK(prefix.headers_for("numpy") == "/usr/local/include/python3.12/numpy");
  CHECK(prefix.python == "/usr/bin/python3");

  auto root = InstallScheme::prefix_install("/", "/bin/python3", 3, 11);
  CHECK(root.purelib == "/lib/python3.11/site-packages");
  CHECK(root.data == "/");
}

TEST_CASE("wheel/record parses and writes CSV as Python's csv module does") {
  auto rows = parse_record("a.py,sha256=abc,3\r\n\"we,ird \"\"name\"\".py\",sha256=def,4\nRECORD,,\n\n");
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].path == "a.py");
  CHECK(rows[0].hash == "sha256=abc");
  CHECK(rows[0].size == "3");
  CHECK(rows[1].path == "we,ird \"name\".py");
  CHECK(rows[2].hash.empty());
  CHECK(format_record(rows) == "a.py,sha256=abc,3\n\"we,ird \"\"name\"\".py\",sha256=def,4\nRECORD,,\n");
  CHECK_THROWS_AS(parse_record("a,b,c,d\n"), rp::InputError);
  CHECK_THROWS_AS(parse_record("\"open\n"), rp::InputError);
  CHECK_THROWS_AS(parse_record(",sha256=x,1\n"), rp::InputError);
}

TEST_CASE("wheel/record hashes are urlsafe base64 sha256 without padding") {
  // Known values: python -c "import hashlib,base64;print(base64.urlsafe_b64encode(hashlib.sha256(b'').digest()))"
  CHECK(record_hash("") == "sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
  CHECK(record_hash("hello\n") == "sha256=WJG1tSLV3whtD_CxEPvZ0hu0_HFjrzTQgoai6Eb2vgM");
}

TEST_CASE("wheel/record relative paths from site-packages") {
  CHECK(relative_path("/v/lib/python3.11/site-packages", "/v/bin/pip") == "../../../bin/pip");
  CHECK(relative_path("/v/lib/python3.11/site-packages", "/v/lib/python3.11/site-packages/pip/x.py") == "pip/x.py");
  CHECK(relative_path("/usr/lib64/python3.11/site-packages", "/usr/include/python3.11/x/y.h") ==
        "../../../include/python3.11/x/y.h");
  // Below `from` takes a shortcut; these must still come out as splitting gives them.
  CHECK(relative_path("/a/b", "/a/b/c//d/") == "c/d");
  CHECK(relative_path("/a/b", "/a/bc") == "../bc");
  CHECK(relative_path("/a/b/", "/a/b/c") == "c");
  CHECK(relative_path("/a/b", "/a/b") == ".");
  CHECK(relative_path("/a/b", "/a/b/") == ".");
}

TEST_CASE("wheel/shebangs") {
  CHECK(shebang_for("/opt/venv/bin/python") == "#!/opt/venv/bin/python\n");
  CHECK(shebang_for("/opt/a b/bin/python") == "#!/bin/sh\n'''exec' '/opt/a b/bin/python' \"$0\" \"$@\"\n' '''\n");
  std::string p124 = "/" + std::string(123, 'p');  // 124 + 3 = 127: still fits
  CHECK(shebang_for(p124) == "#!" + p124 + "\n");
  CHECK(shebang_for(p124 + "x").starts_with("#!/bin/sh\n"));
  CHECK(has_python_placeholder("#!python\n"));
  CHECK(has_python_placeholder("#!pythonw"));
  CHECK_FALSE(has_python_placeholder("#!/usr/bin/python"));
  CHECK_FALSE(has_python_placeholder("#! python"));
  CHECK(replace_placeholder_shebang("#!python", "/p") == "#!/p\n");
}
