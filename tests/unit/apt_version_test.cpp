// Debian versions and relationship fields. The order is checked against dpkg itself
// (`dpkg --compare-versions`) on every pair of a list of tricky versions, when dpkg is installed.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "apt/relation.hpp"
#include "apt/version.hpp"
#include "util/error.hpp"

using rp::apt::Version;
using rp::apt::VersionOp;

namespace {

Version V(const char* s) { return Version::parse(s); }

// dpkg --compare-versions A OP B, run without a shell.
bool dpkg_says(const std::string& a, const char* op, const std::string& b) {
  pid_t pid = fork();
  if (pid == 0) {
    execlp("dpkg", "dpkg", "--compare-versions", a.c_str(), op, b.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) > 1) throw std::runtime_error("dpkg failed");
  return WEXITSTATUS(status) == 0;
}

}  // namespace

TEST_CASE("apt/version: parts and spellings") {
  Version v = V("1:2.36-9+deb12u4");
  CHECK(v.epoch() == 1);
  CHECK(v.upstream() == "2.36");
  CHECK(v.revision() == "9+deb12u4");
  CHECK(v.str() == "1:2.36-9+deb12u4");
  CHECK(V("1.2-3-4").upstream() == "1.2-3");  // the last '-' starts the revision
  CHECK(V("1.2-3-4").revision() == "4");
  CHECK(V("0:1.0") == V("1.0"));
  CHECK(V("1.0-0") == V("1.0"));
  CHECK(V(" 1.0 ").str() == "1.0");
  for (const char* bad : {"", " ", "1 0", ":1.0", "a:1.0", "1:", "1.0-", "-1", "99999999999:1"})
    CHECK_THROWS_AS(Version::parse(bad), rp::InputError);
  CHECK(Version::try_parse("abc"));  // dpkg only warns about a non-digit start
}

TEST_CASE("apt/version: the documented order") {
  CHECK(V("1.0~rc1") < V("1.0"));
  CHECK(V("1.0") < V("1.0+b1"));
  CHECK(V("1.0~") < V("1.0"));
  CHECK(V("1.0~~") < V("1.0~"));
  CHECK(V("1.0~~a") < V("1.0~"));
  CHECK(V("1.0") < V("1.0a"));
  CHECK(V("1.0a") < V("1.0+"));
  CHECK(V("1:0.1") > V("9.9"));
  CHECK(V("2.10") > V("2.9"));
  CHECK(V("1.001") == V("1.1"));
}

TEST_CASE("apt/version: every pair ordered as dpkg orders it") {
  if (access("/usr/bin/dpkg", X_OK) != 0) return;
  const std::vector<std::string> versions = {
      "0",         "0.0",      "0~",          "0~~",       "0a",         "1.0",       "1.0-1",       "1.0-0",
      "1.0-1~bpo1", "1.0-1+b1", "1.0~rc1",     "1.0~rc1-1", "1.0+dfsg",   "1.0.1",     "1.00",        "1:0.9",
      "2:0",       "1.0a",     "1.0A",        "1.0-a",     "1.0-1.1",    "1.0-10",    "1.0-9",       "1.2.3-4ubuntu1",
      "1.2.3-4",   "1.2.3-4+deb12u1", "4:12.2.0-3", "4:12.2.0-14", "2.36-9+deb12u4", "2.36-9",  "3.22*x", "1.0.",
      "1..0",      "1.0+~",    "1.0~+",       "10",        "9.99999999", "1.0-1-1",   "1:1.0-1",     "0:1.0-1"};
  for (size_t i = 0; i < versions.size(); ++i)
    for (size_t j = i; j < versions.size(); ++j) {
      Version a = V(versions[i].c_str()), b = V(versions[j].c_str());
      const char* op = a < b ? "lt" : a == b ? "eq" : "gt";
      INFO(versions[i] << " " << op << " " << versions[j]);
      CHECK(dpkg_says(versions[i], op, versions[j]));
      CHECK((b <=> a) == (0 <=> (a <=> b)));  // antisymmetric
    }
}

TEST_CASE("apt/relation: fields") {
  auto groups = rp::apt::parse_relations(
      "libc6 (>= 2.34), gcc-12 (>= 12.2.0-1) | clang\n (>>1:2) ,python3:any, libfoo:amd64 [amd64 arm64] <!nocheck>,x (<< 1~),",
      "Depends of t");
  REQUIRE(groups.size() == 5);
  CHECK(groups[0][0].name == "libc6");
  CHECK(groups[0][0].op == VersionOp::kGreaterEqual);
  CHECK(groups[0][0].version.str() == "2.34");
  REQUIRE(groups[1].size() == 2);
  CHECK(groups[1][1].name == "clang");
  CHECK(groups[1][1].op == VersionOp::kGreater);
  CHECK(groups[1][1].version.str() == "1:2");
  CHECK(groups[2][0].arch_qualifier == "any");
  CHECK(groups[3][0].arch_qualifier == "amd64");
  CHECK(groups[3][0].applies_to("amd64"));
  CHECK_FALSE(groups[3][0].applies_to("i386"));
  CHECK(groups[4][0].op == VersionOp::kLess);
  CHECK(rp::apt::to_string(groups[1]) == "gcc-12 (>= 12.2.0-1) | clang (>> 1:2)");
  CHECK(rp::apt::parse_relations("a (< 1), b (> 2)", "x")[0][0].op == VersionOp::kLessEqual);  // obsolete forms
  CHECK(rp::apt::parse_relations("  ", "x").empty());
  auto neg = rp::apt::parse_relations("a [!i386]", "x")[0][0];
  CHECK(neg.applies_to("amd64"));
  CHECK_FALSE(neg.applies_to("i386"));
  for (const char* bad : {"a (>= )", "a (~ 1)", "a (>= 1", "a,, b", "A", "a | ", "a b", "a [amd64 !i386]", "a:"})
    CHECK_THROWS_AS(rp::apt::parse_relations(bad, "x"), rp::InputError);
}
