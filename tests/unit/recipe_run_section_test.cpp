#include <doctest/doctest.h>

#include <fstream>

#include "recipe/run_section.hpp"
#include "test_helpers.hpp"
#include "util/error.hpp"

using namespace rp;
using namespace rp::recipe;
using namespace rp::test;

namespace {
// Reads the `run:` value of `yaml`; returns the items, or the error messages joined by "\n".
std::pair<std::vector<RunItem>, std::string> read(const std::string& yaml, const fs::path& dir) {
  std::map<std::string, std::string> vars;
  Diagnostics diag;
  DocumentReader in(dir / "recipe.yaml", diag, vars);
  std::vector<RunItem> items;
  read_run_section(in, YAML::Load(yaml)["run"], items);
  try {
    diag.throw_if_any();
  } catch (const RecipeError& e) {
    std::string all;
    for (const auto& d : e.diagnostics()) all += d.where.str() + ": " + d.message + "\n";
    return {items, all};
  }
  return {items, ""};
}
}  // namespace

TEST_CASE("run section: shell and command items with their options") {
  TempDir dir;
  std::ofstream(dir.path / "deps.txt") << "x";
  auto [items, errors] = read(R"(run:
  - name: build
    shell: |
      make install
    env: {CC: gcc}
    user: "1000"
    workdir: /src
    network: true
    timeout: 60
    cache_key: [deps.txt]
  - command: [/bin/true, --flag]
)",
                              dir.path);
  CHECK(errors == "");
  REQUIRE(items.size() == 2);
  CHECK(items[0].name == "build");
  CHECK(*items[0].shell == "make install\n");
  CHECK(items[0].env == std::vector<std::pair<std::string, std::string>>{{"CC", "gcc"}});
  CHECK(items[0].user == "1000");
  CHECK(items[0].workdir == "/src");
  CHECK(items[0].network);
  CHECK(items[0].timeout_seconds == 60);
  CHECK(items[0].layer == "build");
  REQUIRE(items[0].cache_key.size() == 1);
  CHECK(items[0].cache_key[0].filename() == "deps.txt");
  CHECK(items[1].name == "run-2");
  CHECK(items[1].command == std::vector<std::string>{"/bin/true", "--flag"});
  CHECK_FALSE(items[1].network);
}

TEST_CASE("run section: strict validation with locations") {
  TempDir dir;
  auto [items, errors] = read(R"(run:
  - shell: a
    command: [b]
  - name: x
  - shell: a
    netwrok: true
  - shell: a
    timeout: 0
    cache_key: [missing.txt]
)",
                              dir.path);
  CHECK(errors.find("recipe.yaml:2:5: a run item has both shell: and command:") != std::string::npos);
  CHECK(errors.find("recipe.yaml:4:5: a run item needs shell: or command:") != std::string::npos);
  CHECK(errors.find("netwrok") != std::string::npos);
  CHECK(errors.find("timeout: must be at least 1") != std::string::npos);
  CHECK(errors.find("cache_key file 'missing.txt' does not exist") != std::string::npos);
}
