// PEP 440 versions and specifiers. Expected values are the spec's examples and what pip's
// `packaging` answers for the same input.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "python/pep440.hpp"
#include "util/error.hpp"

using rp::python::Specifier;
using rp::python::SpecifierSet;
using rp::python::Version;

namespace {

std::string norm(const char* s) { return Version::parse(s).to_string(); }
Version V(const char* s) { return Version::parse(s); }

}  // namespace

TEST_CASE("python/pep440: normalizes alternate spellings") {
  CHECK(norm("1.0") == "1.0");
  CHECK(norm("v1.0") == "1.0");
  CHECK(norm("  1.0\n") == "1.0");
  CHECK(norm("1.01.002") == "1.1.2");
  CHECK(norm("0!1.0") == "1.0");
  CHECK(norm("2!1.0") == "2!1.0");
  // Pre-releases: separators, spellings and the implicit number.
  CHECK(norm("1.0a1") == "1.0a1");
  CHECK(norm("1.0.a1") == "1.0a1");
  CHECK(norm("1.0-A-1") == "1.0a1");
  CHECK(norm("1.0alpha1") == "1.0a1");
  CHECK(norm("1.0beta2") == "1.0b2");
  CHECK(norm("1.0c3") == "1.0rc3");
  CHECK(norm("1.0pre3") == "1.0rc3");
  CHECK(norm("1.0preview3") == "1.0rc3");
  CHECK(norm("1.0RC") == "1.0rc0");
  CHECK(norm("1.0a") == "1.0a0");
  // Post-releases, including the implicit "-N" form and the rev/r spellings.
  CHECK(norm("1.0-1") == "1.0.post1");
  CHECK(norm("1.0post") == "1.0.post0");
  CHECK(norm("1.0.rev2") == "1.0.post2");
  CHECK(norm("1.0-r_3") == "1.0.post3");
  CHECK(norm("1.0.post-4") == "1.0.post4");
  // Dev releases.
  CHECK(norm("1.0dev") == "1.0.dev0");
  CHECK(norm("1.0-dev2") == "1.0.dev2");
  CHECK(norm("1.0a1.post2.dev3") == "1.0a1.post2.dev3");
  // Local labels: separators become '.', lowercase, numeric segments lose leading zeros.
  CHECK(norm("1.0+Ubuntu-1") == "1.0+ubuntu.1");
  CHECK(norm("1.0+abc_007") == "1.0+abc.7");
  CHECK(norm("2.10.0a0+rocm7.10.0a20251120") == "2.10.0a0+rocm7.10.0a20251120");
}

TEST_CASE("python/pep440: rejects invalid versions") {
  for (const char* bad : {"", "abc", "1.0+", "1.0+a..b", "1.0-", "1..0", "1.0.", "1.0 beta", "1.0+a+b",
                          "1.0a1a2", "!1.0", "1.0.post1.post2", "99999999999999999999999.0", "1.0\x01"}) {
    CAPTURE(bad);
    CHECK_FALSE(Version::try_parse(bad).has_value());
  }
  CHECK_THROWS_AS(Version::parse("not a version"), rp::InputError);
  CHECK_THROWS_WITH(Version::parse("x1"), doctest::Contains("invalid version 'x1'"));
}

TEST_CASE("python/pep440: accessors and predicates") {
  Version v = V("1!2.3.4rc5.post6.dev7+loc.8");
  CHECK(v.epoch() == 1);
  CHECK(v.release() == std::vector<uint64_t>{2, 3, 4});
  REQUIRE(v.pre());
  CHECK(v.pre()->kind == Version::PreKind::kRc);
  CHECK(v.pre()->number == 5);
  CHECK(*v.post() == 6);
  CHECK(*v.dev() == 7);
  CHECK(v.local() == std::vector<std::string>{"loc", "8"});
  CHECK(v.public_string() == "1!2.3.4rc5.post6.dev7");
  CHECK(v.base_string() == "1!2.3.4");
  CHECK(v.is_prerelease());
  CHECK(V("1.0.dev1").is_prerelease());
  CHECK(V("1.0a1").is_prerelease());
  CHECK_FALSE(V("1.0.post1").is_prerelease());
  CHECK_FALSE(V("1.0+local").is_prerelease());
}

TEST_CASE("python/pep440: the spec's ordering example") {
  // From the "Summary of permitted suffixes and relative ordering" section.
  std::vector<const char*> ordered = {
      "1.dev0", "1.0.dev456", "1.0a1", "1.0a2.dev456", "1.0a12.dev456", "1.0a12", "1.0b1.dev456", "1.0b2",
      "1.0b2.post345.dev456", "1.0b2.post345", "1.0rc1.dev456", "1.0rc1", "1.0", "1.0+abc.5", "1.0+abc.7",
      "1.0+5", "1.0.post456.dev34", "1.0.post456", "1.0.15", "1.1.dev1", "1!0.1"};
  for (size_t i = 0; i + 1 < ordered.size(); ++i) {
    CAPTURE(ordered[i]);
    CAPTURE(ordered[i + 1]);
    CHECK(V(ordered[i]) < V(ordered[i + 1]));
    CHECK(V(ordered[i + 1]) > V(ordered[i]));
  }
}

TEST_CASE("python/pep440: equality ignores trailing zeros but not local labels") {
  CHECK(V("1.0") == V("1.0.0"));
  CHECK(V("1") == V("1.0.0.0"));
  CHECK(V("1.0a1") == V("1.0.0a1"));
  CHECK(V("1.0+local") != V("1.0"));
  CHECK(V("1.0+Local") == V("1.0+local"));
  CHECK(V("1.0+1") == V("1.0+01"));
}

TEST_CASE("python/pep440: ROCm local-version chain") {
  std::vector<const char*> chain = {"2.9.1+rocm6.4",
                                    "2.10.0a0",
                                    "2.10.0a0+rocm7.0.0rc20250101",
                                    "2.10.0a0+rocm7.0.0",
                                    "2.10.0a0+rocm7.0.1",
                                    "2.10.0a0+rocm7.1",
                                    "2.10.0"};
  for (size_t i = 0; i + 1 < chain.size(); ++i) {
    CAPTURE(chain[i]);
    CHECK(V(chain[i]) < V(chain[i + 1]));
  }
  // Local-label rules in isolation: numeric beats text, text is case-insensitive, longer beats prefix.
  CHECK(V("1.0+abc") < V("1.0+1"));
  CHECK(V("1.0+ABC") == V("1.0+abc"));
  CHECK(V("1.0+abc") < V("1.0+abc.1"));
  CHECK(V("1.0+9") < V("1.0+10"));
  CHECK(V("1.0+99999999999999999999999") > V("1.0+99999999999999999999998"));
  // The documented caveat: inside a label, "0rc10" and "0rc2" are text.
  CHECK(V("1.0+rocm7.0rc10") < V("1.0+rocm7.0rc2"));
}

TEST_CASE("python/pep440: specifier parsing") {
  CHECK(Specifier::parse(">= 1.0").to_string() == ">=1.0");
  CHECK(Specifier::parse("==2.10.*").wildcard());
  CHECK(Specifier::parse("~=1.4.5a4").to_string() == "~=1.4.5a4");
  CHECK(Specifier::parse("===foo-bar").to_string() == "===foo-bar");
  CHECK(SpecifierSet::parse(">=1.0, <2 ,").specifiers().size() == 2);
  CHECK(SpecifierSet::parse("").empty());
  for (const char* bad : {"1.0", "=>1.0", ">=", "~=1", "~=1.0+local", ">=1.0+local", "<1.0.*", "==1.0a1.*",
                          "==1.0+local.*", "==1.*.0", "=== a b", ">=1.0 junk"}) {
    CAPTURE(bad);
    CHECK_THROWS_AS(Specifier::parse(bad), rp::InputError);
  }
  CHECK_THROWS_WITH(SpecifierSet::parse(">=1.0,~=3"), doctest::Contains("'~=3'"));
}

TEST_CASE("python/pep440: == and != with wildcards and local versions") {
  auto m = [](const char* spec, const char* v) { return Specifier::parse(spec).matches(V(v)); };
  CHECK(m("==1.0", "1.0.0"));
  CHECK(m("==1.0", "1.0+local"));
  CHECK(m("==2.10.0a0", "2.10.0a0+rocm7.10.0a20251120"));
  CHECK_FALSE(m("==2.10.0a0+rocm7.0", "2.10.0a0+rocm7.1"));
  CHECK(m("==2.10.0a0+rocm7.0", "2.10.0a0+ROCM7.00"));
  CHECK_FALSE(m("==2.10.0a0+rocm7.0", "2.10.0a0+rocm7.0.0"));
  CHECK_FALSE(m("==2.10.0a0+rocm7.0", "2.10.0a0"));
  CHECK(m("==2.10.*", "2.10.0a0+rocm7.1"));
  CHECK(m("==2.10.*", "2.10.3.post1"));
  CHECK(m("==2.10.*", "2.10"));
  CHECK_FALSE(m("==2.10.*", "2.1"));
  CHECK_FALSE(m("==2.10.*", "2.11"));
  CHECK(m("==2.*", "2"));
  CHECK_FALSE(m("==1!2.*", "2.0"));
  CHECK(m("!=1.0", "1.0.post1"));
  CHECK_FALSE(m("!=1.0", "1.0+local"));
  CHECK_FALSE(m("!=1.0.*", "1.0.5"));
  CHECK(m("!=1.0.*", "1.1"));
  CHECK(m("===1.0", "1.0"));
  CHECK_FALSE(m("===1.0", "1.0.0"));
}

TEST_CASE("python/pep440: ordered comparisons and their exclusions") {
  auto m = [](const char* spec, const char* v) { return Specifier::parse(spec).matches(V(v)); };
  CHECK(m(">=1.0", "1.0+local"));
  CHECK(m("<=1.0", "1.0+local"));
  CHECK(m(">1.7", "1.7.1"));
  CHECK_FALSE(m(">1.7", "1.7.0.post1"));
  CHECK(m(">1.7.post2", "1.7.0.post3"));
  CHECK_FALSE(m(">1.7", "1.7+local"));
  CHECK_FALSE(m(">2.10.0a0", "2.10.0a0+rocm7.10.0a20251120"));
  CHECK(m(">2.10.0a0", "2.10.0a1"));
  CHECK(m(">2.10.0a0", "2.10.0"));
  CHECK(m("<3.0", "2.9"));
  CHECK_FALSE(m("<3.0", "3.0rc1"));
  CHECK_FALSE(m("<3.0", "3.0.dev0"));
  CHECK(m("<3.0rc2", "3.0rc1"));
  CHECK(m("<3.0", "2.9rc1"));
  CHECK(m("~=2.2", "2.3"));
  CHECK_FALSE(m("~=2.2", "3.0"));
  CHECK(m("~=1.4.5", "1.4.9"));
  CHECK_FALSE(m("~=1.4.5", "1.5.0"));
  CHECK_FALSE(m("~=1.4.5", "1.4.4"));
  CHECK(m("~=2.2.post3", "2.9"));
  CHECK_FALSE(m("~=2.2.post3", "2.2"));
  CHECK(m("~=1.4.5a4", "1.4.5"));
  CHECK(m("~=1!1.1", "1!1.5"));
  CHECK_FALSE(m("~=1!1.1", "1.5"));
}

TEST_CASE("python/pep440: pre-release handling in contains()") {
  auto set = SpecifierSet::parse(">=1.0");
  CHECK_FALSE(set.contains(V("2.0b1")));
  CHECK(set.contains(V("2.0b1"), true));
  CHECK(set.contains(V("2.0")));
  auto named = SpecifierSet::parse(">=1.0, <=2.10.0a0");
  CHECK(named.names_prerelease());
  CHECK(named.contains(V("2.0b1")));
  CHECK_FALSE(SpecifierSet::parse("!=2.0a1").names_prerelease());
  CHECK(SpecifierSet::parse("==2.10.0a0").names_prerelease());
  CHECK(SpecifierSet::parse("==2.10.0a0").contains(V("2.10.0a0+rocm7.10.0a20251120")));
  CHECK(SpecifierSet::parse("===1.0a1").names_prerelease());
  CHECK_FALSE(SpecifierSet::parse("==2.*").names_prerelease());
  CHECK(SpecifierSet().contains(V("1.0")));
  CHECK_FALSE(SpecifierSet().contains(V("1.0.dev0")));
  CHECK(SpecifierSet::parse("==1.0").is_pin());
  CHECK(SpecifierSet::parse(">=0, ===x").is_pin());
  CHECK_FALSE(SpecifierSet::parse("==1.*").is_pin());
}
