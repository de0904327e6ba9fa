// PEP 508 requirements and markers.
#include <doctest/doctest.h>

#include <string>

#include "python/pep508.hpp"
#include "python/text.hpp"
#include "util/error.hpp"

using rp::python::Marker;
using rp::python::MarkerEnvironment;
using rp::python::Requirement;
using rp::python::Version;

namespace {

bool eval(const char* marker, const MarkerEnvironment& env = {}, const std::set<std::string>& extras = {}) {
  return Marker::parse(marker).evaluate(env, extras);
}

}  // namespace

TEST_CASE("python/pep508: name normalization") {
  CHECK(rp::python::normalize_name("Friendly-Bard") == "friendly-bard");
  CHECK(rp::python::normalize_name("FRIENDLY_._BARD") == "friendly-bard");
  CHECK(rp::python::normalize_name("friendly.bard") == "friendly-bard");
  CHECK(rp::python::normalize_name("rocm_sdk_libraries_gfx110X") == "rocm-sdk-libraries-gfx110x");
}

TEST_CASE("python/pep508: requirement forms") {
  auto r = Requirement::parse("Torch[Vision , audio_X]>=2.9,<3 ; python_version >= '3.10'");
  CHECK(r.name == "Torch");
  CHECK(r.normalized_name() == "torch");
  CHECK(r.extras == std::vector<std::string>{"vision", "audio-x"});
  CHECK(r.specifier.to_string() == ">=2.9,<3");
  REQUIRE(r.marker);
  CHECK(r.marker->to_string() == "python_version >= \"3.10\"");
  CHECK(r.to_string() == "Torch[vision,audio-x]>=2.9,<3; python_version >= \"3.10\"");

  // The old parenthesized form from Requires-Dist, with and without spaces.
  auto old = Requirement::parse("zope.interface (>=3.5, <4.0) ; extra == 'test'");
  CHECK(old.normalized_name() == "zope-interface");
  CHECK(old.specifier.specifiers().size() == 2);
  CHECK(old.marker->mentions_extra());
  CHECK(Requirement::parse("foo(==1.0)").specifier.to_string() == "==1.0");

  auto bare = Requirement::parse("  numpy  ");
  CHECK(bare.name == "numpy");
  CHECK(bare.specifier.empty());
  CHECK_FALSE(bare.marker);
  CHECK(Requirement::parse("a[]").extras.empty());
  CHECK(Requirement::parse("x[a,A,a]").extras == std::vector<std::string>{"a"});
  CHECK(Requirement::parse("rocm[libraries]==7.10.0a20251120").to_string() == "rocm[libraries]==7.10.0a20251120");
}

TEST_CASE("python/pep508: URL requirements") {
  auto r = Requirement::parse("pip @ https://example.com/pip-1.0-py3-none-any.whl#sha256=00 ; os_name == 'posix'");
  CHECK(r.url == "https://example.com/pip-1.0-py3-none-any.whl#sha256=00");
  CHECK(r.marker);
  // Without whitespace the ';' is part of the URL, as PEP 508 says.
  auto glued = Requirement::parse("pip @ https://x/y;z");
  CHECK(glued.url == "https://x/y;z");
  CHECK_FALSE(glued.marker);
  CHECK(Requirement::parse("name[e]@file:///tmp/a.whl").url == "file:///tmp/a.whl");
  CHECK_THROWS_WITH(Requirement::parse("pip @ "), doctest::Contains("expected a URL"));
  CHECK_THROWS_WITH(Requirement::parse("pip @ https://x extra"), doctest::Contains("expected '; <marker>'"));
}

TEST_CASE("python/pep508: errors name the column") {
  CHECK_THROWS_WITH(Requirement::parse(""), doctest::Contains("expected a package name at column 1"));
  CHECK_THROWS_WITH(Requirement::parse("-foo"), doctest::Contains("at column 1"));
  CHECK_THROWS_WITH(Requirement::parse("foo- >=1"), doctest::Contains("must end with a letter or digit at column 4"));
  CHECK_THROWS_WITH(Requirement::parse("foo[bar"), doctest::Contains("expected ',' or ']' in the extras list at column 8"));
  CHECK_THROWS_WITH(Requirement::parse("foo (>=1.0"), doctest::Contains("expected ')'"));
  CHECK_THROWS_WITH(Requirement::parse("foo >=1.0 junk"), doctest::Contains("at column 5"));
  CHECK_THROWS_WITH(Requirement::parse("foo; python_version >= "), doctest::Contains("at column 24"));
  CHECK_THROWS_WITH(Requirement::parse("foo; python_version >= '3"), doctest::Contains("unterminated string"));
  CHECK_THROWS_WITH(Requirement::parse("foo; pyton_version == '3'"), doctest::Contains("unknown marker variable 'pyton_version'"));
  CHECK_THROWS_WITH(Requirement::parse("foo bar"), doctest::Contains("at column 5"));
  // The message shows the text with a caret under the column.
  try {
    Requirement::parse("foo; os_name = 'posix'");
    FAIL("expected an error");
  } catch (const rp::InputError& e) {
    std::string msg = e.what();
    CHECK(msg.find("foo; os_name = 'posix'\n") != std::string::npos);
    CHECK(msg.find("\n                 ^") != std::string::npos);
  }
}

TEST_CASE("python/pep508: marker precedence and parentheses") {
  // "and" binds tighter than "or": true or (false and false) == true.
  CHECK(eval("os_name == 'posix' or os_name == 'nt' and sys_platform == 'win32'"));
  // Parentheses change it: (true or false) and false == false.
  CHECK_FALSE(eval("(os_name == 'posix' or os_name == 'nt') and sys_platform == 'win32'"));
  CHECK(eval("sys_platform == 'win32' and os_name == 'nt' or platform_machine == 'x86_64'"));
  // false and true or true and true == true; false and (true or true) and true == false.
  CHECK(eval("os_name == 'nt' and python_version >= '3' or sys_platform == 'linux' and os_name == 'posix'"));
  CHECK_FALSE(eval("os_name == 'nt' and (python_version >= '3' or sys_platform == 'linux') and os_name == 'posix'"));
}

TEST_CASE("python/pep508: marker canonical text keeps the meaning") {
  CHECK(Marker::parse("(os_name=='a' or os_name=='b') and python_version>'3'").to_string() ==
        "(os_name == \"a\" or os_name == \"b\") and python_version > \"3\"");
  CHECK(Marker::parse("os_name=='a' or (os_name=='b' and extra=='x')").to_string() ==
        "os_name == \"a\" or os_name == \"b\" and extra == \"x\"");
  CHECK(Marker::parse("'linux' in sys_platform").to_string() == "\"linux\" in sys_platform");
  CHECK(Marker::parse("os_name == '\"'").to_string() == "os_name == '\"'");
}

TEST_CASE("python/pep508: marker evaluation against the target") {
  MarkerEnvironment env;  // CPython 3.11 on linux x86_64
  CHECK(eval("python_version >= '3.8'", env));
  CHECK(eval("python_version > '3.9'", env));
  CHECK_FALSE(eval("python_version < '3.10'", env));  // as versions: 3.11 > 3.10 (as strings it would be less)
  CHECK(eval("python_version == '3.*'", env));
  CHECK(eval("python_full_version ~= '3.11'", env));
  CHECK(eval("'3.9' < python_version", env));
  CHECK(eval("platform_python_implementation == 'CPython' and implementation_name == \"cpython\"", env));
  CHECK(eval("sys_platform == 'linux' and platform_system == 'Linux' and os_name == 'posix'", env));
  CHECK(eval("'linux' in sys_platform", env));
  CHECK(eval("'win' not in sys_platform", env));
  CHECK_FALSE(eval("platform_machine == 'aarch64'", env));
  CHECK(eval("os.name == 'posix' and python_implementation == 'CPython'", env));
  CHECK_FALSE(eval("os_name ~= 'posix'", env));  // undefined for strings: false

  auto arm = MarkerEnvironment::for_python("3.12", "aarch64");
  CHECK(arm.python_full_version == "3.12.0");
  CHECK(eval("platform_machine == 'aarch64' and python_version >= '3.12'", arm));
  CHECK(MarkerEnvironment::for_python("3.10.14", "x86_64").python_version == "3.10");
  CHECK_THROWS_AS(MarkerEnvironment::for_python("3", "x86_64"), rp::InputError);
  CHECK_THROWS_AS(MarkerEnvironment::for_python("three", "x86_64"), rp::InputError);
}

TEST_CASE("python/pep508: extra markers") {
  CHECK_FALSE(eval("extra == 'test'"));
  CHECK(eval("extra == 'test'", {}, {"test"}));
  CHECK(eval("extra == 'Test_Suite'", {}, {"test-suite"}));  // PEP 685: compared normalized
  CHECK(eval("'cuda' == extra", {}, {"rocm", "cuda"}));
  CHECK_FALSE(eval("extra != 'cuda'", {}, {"rocm", "cuda"}));
  CHECK(eval("extra != 'cuda'", {}, {"rocm"}));
  CHECK(eval("extra == 'libraries' and python_version >= '3.9'", {}, {"libraries"}));
  auto r = Requirement::parse("rocm-sdk-libraries==7.10.0a1 ; extra == \"libraries\"");
  CHECK_FALSE(r.applies({}));
  CHECK(r.applies({}, {"libraries"}));
  CHECK_FALSE(Marker::parse("os_name == 'posix'").mentions_extra());
}

TEST_CASE("python/pep508: PEP 817 variant markers are never satisfied, not an error") {
  // TheRock's split torch wheels, built for variant-aware installers, carry such lines.
  auto r = Requirement::parse("amd-torch-device-gfx942 == 2.11.0+rocm7.14; \"amd :: gfx_arch :: gfx942\" in variant_properties");
  CHECK_FALSE(r.applies({}));
  CHECK_FALSE(r.applies({}, {"device-gfx942"}));
  CHECK_FALSE(eval("'x' not in variant_properties"));  // no variant properties are known: never true
  CHECK_FALSE(eval("variant_label == 'amd_gfx942'"));
  CHECK(eval("os_name == 'posix' or 'x' in variant_namespaces"));
  CHECK_FALSE(eval("os_name == 'posix' and 'x' in variant_features"));
}

TEST_CASE("python/pep508: malformed markers") {
  for (const char* bad : {"", "os_name", "os_name ==", "== 'x'", "os_name == 'a' and", "(os_name == 'a'",
                          "os_name == 'a')", "'a' == 'b'", "os_name == sys_platform", "os_name not 'x'",
                          "os_name =! 'x'", "os_name == 'a' xor os_name == 'b'"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(Marker::parse(bad), rp::InputError);
  }
  std::string deep(200, '(');
  CHECK_THROWS_WITH(Marker::parse(deep + "os_name == 'a'"), doctest::Contains("nested too deeply"));
}
