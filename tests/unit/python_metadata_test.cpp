// METADATA, WHEEL and entry_points.txt.
#include <doctest/doctest.h>

#include <set>
#include <string>

#include "python/core_metadata.hpp"
#include "python/entry_points.hpp"
#include "util/error.hpp"

using rp::python::CoreMetadata;
using rp::python::EmailHeaders;
using rp::python::EntryPoints;
using rp::python::WheelInfo;

TEST_CASE("python/metadata: email headers with continuation lines and a body") {
  auto h = EmailHeaders::parse(
      "Metadata-Version: 2.1\r\n"
      "Name: foo\r\n"
      "Classifier: A\r\n"
      "Classifier: B\r\n"
      "License: line one\r\n"
      "        line two\r\n"
      "\tline three\r\n"
      "\r\n"
      "# Foo\n\nName: not a header\n");
  CHECK(h.get("name") == "foo");
  CHECK(h.get_all("CLASSIFIER") == std::vector<std::string>{"A", "B"});
  CHECK(h.get("License") == "line one\nline two\nline three");
  CHECK(h.body() == "# Foo\n\nName: not a header\n");
  CHECK_FALSE(h.get("Missing"));
  // A line that is not a header starts the body.
  auto broken = EmailHeaders::parse("Name: x\nthis is not a header\nVersion: 1\n");
  CHECK(broken.fields().size() == 1);
  CHECK(broken.body() == "this is not a header\nVersion: 1\n");
  CHECK(EmailHeaders::parse("").fields().empty());
  CHECK(EmailHeaders::parse("  leading continuation\nA: b").get("A") == "b");
}

TEST_CASE("python/metadata: METADATA fields") {
  auto m = CoreMetadata::parse(
      "Metadata-Version: 2.1\n"
      "Name: torch\n"
      "Version: 2.10.0a0+rocm7.10.0a20251120\n"
      "Requires-Python: >=3.10\n"
      "Requires-Dist: filelock\n"
      "Requires-Dist: typing-extensions (>=4.10.0)\n"
      "Requires-Dist: rocm[libraries]==7.10.0a20251120 ; extra == \"rocm\"\n"
      "Requires-Dist: opt-einsum>=3.3; extra == 'Opt_Einsum'\n"
      "Provides-Extra: Opt_Einsum\n"
      "Provides-Extra: rocm\n"
      "Provides-Extra: opt.einsum\n"
      "\n"
      "Long description with Requires-Dist: nothing\n");
  CHECK(m.name == "torch");
  CHECK(m.version.to_string() == "2.10.0a0+rocm7.10.0a20251120");
  REQUIRE(m.requires_dist.size() == 4);
  CHECK(m.requires_dist[1].to_string() == "typing-extensions>=4.10.0");
  CHECK(m.requires_dist[2].extras == std::vector<std::string>{"libraries"});
  CHECK_FALSE(m.requires_dist[2].applies({}));
  CHECK(m.requires_dist[2].applies({}, {"rocm"}));
  REQUIRE(m.requires_python);
  CHECK(m.requires_python->to_string() == ">=3.10");
  CHECK(m.provides_extra == std::vector<std::string>{"opt-einsum", "rocm"});
  CHECK(m.headers.body().find("Long description") == 0);
}

TEST_CASE("python/metadata: METADATA errors") {
  CHECK_THROWS_WITH(CoreMetadata::parse("Metadata-Version: 3.0\nName: x\nVersion: 1\n"),
                    doctest::Contains("Metadata-Version 3.0 is newer"));
  CHECK_NOTHROW(CoreMetadata::parse("Metadata-Version: 2.4\nName: x\nVersion: 1\n"));
  CHECK_THROWS_WITH(CoreMetadata::parse("Name: x\nVersion: 1\n"), doctest::Contains("missing Metadata-Version"));
  CHECK_THROWS_WITH(CoreMetadata::parse("Metadata-Version: 2.1\nVersion: 1\n"), doctest::Contains("missing Name"));
  CHECK_THROWS_WITH(CoreMetadata::parse("Metadata-Version: 2.1\nName: x\nVersion: one\n"),
                    doctest::Contains("invalid Version 'one'"));
  CHECK_THROWS_WITH(CoreMetadata::parse("Metadata-Version: 2.1\nName: x\nVersion: 1\nRequires-Dist: foo (>=1\n",
                                        "x-1.dist-info/METADATA"),
                    doctest::Contains("x-1.dist-info/METADATA: bad Requires-Dist"));
  CHECK_THROWS_WITH(CoreMetadata::parse("Metadata-Version: 2.1\nName: x\nVersion: 1\nRequires-Python: >=3.x\n"),
                    doctest::Contains("bad Requires-Python"));
  CHECK_THROWS_AS(CoreMetadata::parse("Metadata-Version: two\nName: x\nVersion: 1\n"), rp::InputError);
}

TEST_CASE("python/metadata: WHEEL file") {
  auto w = WheelInfo::parse(
      "Wheel-Version: 1.0\nGenerator: bdist_wheel (0.43.0)\nRoot-Is-Purelib: True\n"
      "Tag: py2-none-any\nTag: py3-none-any\n");
  CHECK(w.version_major == 1);
  CHECK(w.version_minor == 0);
  CHECK(w.root_is_purelib);
  CHECK(w.tags == std::vector<std::string>{"py2-none-any", "py3-none-any"});
  CHECK(w.generator == "bdist_wheel (0.43.0)");
  CHECK_FALSE(WheelInfo::parse("Wheel-Version: 1.9\nRoot-Is-Purelib: false\n").root_is_purelib);
  CHECK(WheelInfo::parse("Wheel-Version: 1.9\n").version_minor == 9);
  CHECK_THROWS_WITH(WheelInfo::parse("Wheel-Version: 2.0\n"), doctest::Contains("not supported"));
  CHECK_THROWS_WITH(WheelInfo::parse("Root-Is-Purelib: true\n"), doctest::Contains("missing Wheel-Version"));
  CHECK_THROWS_AS(WheelInfo::parse("Wheel-Version: 1\n"), rp::InputError);
}

TEST_CASE("python/metadata: entry_points.txt") {
  auto eps = EntryPoints::parse(
      "# comment\n"
      "[console_scripts]\n"
      "torchrun = torch.distributed.run:main\n"
      "Foo-Bar=pkg.cli : run_it [rich, color]\n"
      "\n"
      "[gui_scripts]\n"
      "viewer = pkg.gui:App.main\n"
      "[some.plugins]\n"
      "weird = this is not a module path\n"
      "plain = pkg.mod\n");
  auto cs = eps.console_scripts();
  REQUIRE(cs.size() == 2);
  CHECK(cs[0].name == "torchrun");
  CHECK(cs[0].module == "torch.distributed.run");
  CHECK(cs[0].attr == "main");
  CHECK(cs[1].name == "Foo-Bar");
  CHECK(cs[1].module == "pkg.cli");
  CHECK(cs[1].attr == "run_it");
  CHECK(cs[1].extras == std::vector<std::string>{"rich", "color"});
  REQUIRE(eps.gui_scripts().size() == 1);
  CHECK(eps.gui_scripts()[0].attr == "App.main");
  auto plugins = eps.group("some.plugins");
  REQUIRE(plugins.size() == 2);
  CHECK(plugins[0].module.empty());
  CHECK(plugins[0].value == "this is not a module path");
  CHECK(plugins[1].module == "pkg.mod");
  CHECK(plugins[1].attr.empty());
}

TEST_CASE("python/metadata: entry point names may not escape bin/") {
  for (const char* bad : {"[console_scripts]\n../evil = a:b\n", "[console_scripts]\nsub/dir = a:b\n",
                          "[gui_scripts]\n.. = a:b\n", "[console_scripts]\na\\b = a:b\n",
                          "[console_scripts]\nx = a\n", "[console_scripts]\nx = a:b c\n",
                          "[console_scripts]\n = a:b\n", "[console_scripts]\nnoequals\n", "[console_scripts\n"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(EntryPoints::parse(bad), rp::InputError);
  }
  CHECK_THROWS_WITH(EntryPoints::parse("[console_scripts]\n\n../evil = a:b\n"), doctest::Contains("line 3"));
}

TEST_CASE("python/metadata: real-world Requires-Dist lines evaluated for the target") {
  // Shaped like torch's METADATA: platform-gated CUDA dependencies and extras.
  auto m = CoreMetadata::parse(
      "Metadata-Version: 2.1\n"
      "Name: torch\n"
      "Version: 2.5.1\n"
      "Requires-Python: >=3.8.0\n"
      "Requires-Dist: filelock\n"
      "Requires-Dist: typing-extensions>=4.8.0\n"
      "Requires-Dist: nvidia-cuda-nvrtc-cu12==12.4.127; platform_system == \"Linux\" and platform_machine == \"x86_64\"\n"
      "Requires-Dist: triton==3.1.0; platform_system == \"Linux\" and platform_machine == \"x86_64\" and "
      "python_version < \"3.13\"\n"
      "Requires-Dist: setuptools; python_version >= \"3.12\"\n"
      "Requires-Dist: sympy==1.12.1; python_version == \"3.8\"\n"
      "Requires-Dist: sympy==1.13.1; python_version >= \"3.9\"\n"
      "Requires-Dist: opt-einsum>=3.3; extra == \"opt-einsum\"\n"
      "Requires-Dist: optree>=0.12.0; extra == \"optree\"\n"
      "Provides-Extra: opt-einsum\n"
      "Provides-Extra: optree\n");
  auto applicable = [&](const rp::python::MarkerEnvironment& env, const std::set<std::string>& extras) {
    std::vector<std::string> out;
    for (const auto& r : m.requires_dist) {
      if (r.applies(env, extras)) out.push_back(r.to_string(false));
    }
    return out;
  };
  rp::python::MarkerEnvironment x86;  // CPython 3.11, linux x86_64
  CHECK(applicable(x86, {}) == std::vector<std::string>{"filelock", "typing-extensions>=4.8.0",
                                                        "nvidia-cuda-nvrtc-cu12==12.4.127", "triton==3.1.0",
                                                        "sympy==1.13.1"});
  auto arm313 = rp::python::MarkerEnvironment::for_python("3.13", "aarch64");
  CHECK(applicable(arm313, {"optree"}) ==
        std::vector<std::string>{"filelock", "typing-extensions>=4.8.0", "setuptools", "sympy==1.13.1", "optree>=0.12.0"});
  CHECK(m.requires_python->contains(rp::python::Version::parse("3.11.2")));
  CHECK_FALSE(m.requires_python->contains(rp::python::Version::parse("3.7")));
}
