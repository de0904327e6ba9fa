// apt search patterns a recipe may use instead of package names: ?essential and ?priority(...),
// expanded against a small Packages index; anything else is refused.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "apt/package_index.hpp"
#include "apt/patterns.hpp"
#include "util/error.hpp"

using namespace rp::apt;

namespace {

std::string stanza(const std::string& name, const std::string& arch, const std::string& extra) {
  return "Package: " + name + "\nVersion: 1.0\nArchitecture: " + arch + "\n" + extra + "Filename: pool/" + name +
         ".deb\nSize: 1\nSHA256: " + std::string(64, 'a') + "\n\n";
}

std::vector<Package> index() {
  return parse_packages_index(stanza("dpkg", "amd64", "Essential: yes\nPriority: required\n") +
                                  stanza("base-files", "amd64", "Essential: yes\nPriority: required\n") +
                                  stanza("tzdata", "all", "Priority: required\n") +
                                  stanza("apt", "amd64", "Priority: important\n") +
                                  stanza("less", "amd64", "Priority: standard\n") +
                                  stanza("vim", "amd64", "Priority: optional\n") +
                                  stanza("libc6", "i386", "Essential: yes\nPriority: required\n") +
                                  stanza("bash", "arm64", "Essential: yes\nPriority: required\n") +
                                  stanza("coreutils", "amd64", "Essential: no\nPriority: required\n"),
                              "test Packages", 0);
}

}  // namespace

TEST_CASE("apt/patterns: which texts are patterns") {
  CHECK(is_pattern("?essential"));
  CHECK(is_pattern("?priority(required)"));
  CHECK_FALSE(is_pattern("essential"));
  CHECK_FALSE(is_pattern(""));
  CHECK_NOTHROW(check_pattern("?essential"));
  for (const char* p : {"?priority(required)", "?priority(important)", "?priority(standard)", "?priority(optional)"})
    CHECK_NOTHROW(check_pattern(p));
}

TEST_CASE("apt/patterns: ?essential selects Essential: yes packages of the architecture or all") {
  auto available = index();
  CHECK(expand_pattern("?essential", available, "amd64") == std::vector<std::string>{"base-files", "dpkg"});
  CHECK(expand_pattern("?essential", available, "arm64") == std::vector<std::string>{"bash"});
  CHECK(expand_pattern("?essential", {}, "amd64").empty());
}

TEST_CASE("apt/patterns: ?priority(...) selects by Priority, sorted and unique") {
  auto available = index();
  auto again = index();
  available.insert(available.end(), again.begin(), again.end());  // a package offered twice is named once
  CHECK(expand_pattern("?priority(required)", available, "amd64") ==
        std::vector<std::string>{"base-files", "coreutils", "dpkg", "tzdata"});
  CHECK(expand_pattern("?priority(important)", available, "amd64") == std::vector<std::string>{"apt"});
  CHECK(expand_pattern("?priority(standard)", available, "amd64") == std::vector<std::string>{"less"});
  CHECK(expand_pattern("?priority(optional)", available, "amd64") == std::vector<std::string>{"vim"});
  CHECK(expand_pattern("?priority(required)", available, "i386") == std::vector<std::string>{"libc6", "tzdata"});
}

TEST_CASE("apt/patterns: unsupported patterns are an input error naming the pattern") {
  for (const char* p : {"?name(vim)", "?priority(urgent)", "?priority()", "?priority(required", "?essential()", "?",
                        "?Essential", "~prequired", "?priority(required) "}) {
    CAPTURE(p);
    try {
      check_pattern(p);
      FAIL("accepted");
    } catch (const rp::InputError& e) {
      CHECK(std::string(e.what()) == "apt pattern '" + std::string(p) + "' is not supported");
    }
    CHECK_THROWS_AS((void)expand_pattern(p, index(), "amd64"), rp::InputError);
  }
}
