#include <doctest/doctest.h>

#include "recipe/model.hpp"
#include "test_helpers.hpp"

using rp::recipe::load_recipe;
using rp::recipe::LoadOptions;
using rp::recipe::RecipeError;
using rp::test::TempDir;

namespace {
// Loads `text` as a recipe and returns the error message ("" when it loads).
std::string recipe_load_error(const TempDir& dir, const std::string& text, LoadOptions opts = {}) {
  auto path = dir.write("recipe.yaml", text);
  try {
    load_recipe(path, opts);
    return "";
  } catch (const RecipeError& e) {
    return e.what();
  }
}
}  // namespace

TEST_CASE("recipe: a complete recipe loads into the typed model") {
  TempDir dir;
  dir.write("app/hello.txt", "hi");
  auto path = dir.write("recipe.yaml", R"(name: demo
args:
  VERSION: "1.2"
  GREETING: hello
platform: linux/arm64/v8
files:
  - content: "${GREETING} ${VERSION}\n"
    dest: /etc/greeting
    mode: "0600"
    uid: 1000
    gid: 1000
  - src: app/hello.txt
    dest: /opt/hello.txt
    layer: app
symlinks:
  - path: /usr/bin/hi
    target: ../../opt/hello.txt
env:
  APP_VERSION: ${VERSION}
  PATH: /usr/bin:/bin
user: "1000:1000"
workdir: /opt
entrypoint: ["/bin/sh", "-c"]
cmd: echo hi
labels:
  org.example.version: ${VERSION}
annotations:
  org.opencontainers.image.vendor: Example
tags: [latest, "v${VERSION}"]
)");
  LoadOptions opts;
  opts.set_args = {{"VERSION", "2.0"}};
  auto r = load_recipe(path, opts);
  CHECK(r.name == "demo");
  CHECK(r.platform.str() == "linux/arm64/v8");
  REQUIRE(r.files.size() == 2);
  CHECK(*r.files[0].content == "hello 2.0\n");
  CHECK(*r.files[0].mode == 0600);
  CHECK(r.files[0].uid == 1000);
  CHECK(r.files[1].src->filename() == "hello.txt");
  CHECK(r.files[1].layer == "app");
  CHECK(r.symlinks.at(0).target == "../../opt/hello.txt");
  CHECK(r.env.at(0) == std::pair<std::string, std::string>{"APP_VERSION", "2.0"});
  CHECK(*r.user == "1000:1000");
  CHECK(r.cmd->size() == 3);  // shell form
  CHECK(r.labels.at("org.example.version") == "2.0");
  CHECK(r.tags == std::vector<std::string>{"latest", "v2.0"});
}

TEST_CASE("recipe: DATE and SOURCE_DATE_EPOCH built-ins") {
  TempDir dir;
  auto path = dir.write("recipe.yaml", "name: d\ntags: [\"nightly-${DATE}\", \"e${SOURCE_DATE_EPOCH}\"]\n");
  LoadOptions opts;
  opts.source_date_epoch = 1763683200;  // 2025-11-21T00:00:00Z
  opts.now = 0;
  auto r = load_recipe(path, opts);
  CHECK(r.tags == std::vector<std::string>{"nightly-20251121", "e1763683200"});
  opts.source_date_epoch.reset();
  opts.now = 86400 * 365;
  r = load_recipe(path, opts);
  CHECK(r.tags.at(0) == "nightly-19710101");
  CHECK(r.tags.at(1) == "e0");
}

TEST_CASE("recipe: $$ escapes and plain $VAR pass through") {
  TempDir dir;
  auto path = dir.write("recipe.yaml", "name: d\nenv:\n  A: \"$${HOME} and $HOME\"\n");
  auto r = load_recipe(path, {});
  CHECK(r.env.at(0).second == "${HOME} and $HOME");
}

TEST_CASE("recipe: include merges fragments first, recipe last") {
  TempDir dir;
  dir.write("layers/base.yaml", R"(args:
  WHO: fragment
env:
  A: from-fragment
  B: from-fragment
labels:
  l1: fragment
files:
  - content: fragment ${WHO}
    dest: /f1
tags: [frag]
user: nobody
)");
  dir.write("recipes/sub/extra.yaml", "env:\n  C: extra\n");
  auto path = dir.write("recipes/r.yaml", R"(name: merged
include: [base, sub/extra.yaml]
args:
  WHO: recipe
env:
  B: from-recipe
files:
  - content: recipe
    dest: /f2
tags: [mine]
)");
  auto r = load_recipe(path, {});
  REQUIRE(r.included.size() == 2);
  CHECK(r.env == std::vector<std::pair<std::string, std::string>>{
                     {"A", "from-fragment"}, {"B", "from-recipe"}, {"C", "extra"}});
  REQUIRE(r.files.size() == 2);
  CHECK(*r.files[0].content == "fragment recipe");  // recipe's arg default wins, applied everywhere
  CHECK(r.files[1].dest == "/f2");
  CHECK(r.tags == std::vector<std::string>{"frag", "mine"});
  CHECK(*r.user == "nobody");
  CHECK(r.labels.at("l1") == "fragment");
}

TEST_CASE("recipe: an include cycle is reported") {
  TempDir dir;
  dir.write("layers/a.yaml", "include: [b]\n");
  dir.write("layers/b.yaml", "include: [a]\n");
  CHECK(recipe_load_error(dir, "name: x\ninclude: [a]\n").find("include cycle") != std::string::npos);
}

// The table of broken recipes: each must fail with its message at its location.
TEST_CASE("recipe: broken recipes fail with file:line:column and a useful message") {
  struct Case {
    const char* text;
    const char* expected;  // substring of the message
  };
  const Case cases[] = {
      {"name: x\nentrypont: [\"/bin/sh\"]\n", "recipe.yaml:2:1: unknown key 'entrypont' in recipe (did you mean 'entrypoint'?)"},
      {"name: x\nfiles:\n  - content: a\n    dset: /a\n", "recipe.yaml:4:5: unknown key 'dset' in files item (did you mean 'dest'?)"},
      {"name: x\nfiles: /etc\n", "recipe.yaml:2:8: 'files' must be a list"},
      {"name: x\nenv: [A, B]\n", "recipe.yaml:2:6: 'env' must be a mapping"},
      {"name: x\nfiles:\n  - src: nope.txt\n    dest: /a\n", "recipe.yaml:3:10: src 'nope.txt' does not exist"},
      {"name: x\ntags: [\"${VERSON}\"]\nargs:\n  VERSION: 1\n", "recipe.yaml:2:8: undefined variable '${VERSON}' in 'tags item' (did you mean 'VERSION'?)"},
      {"name: x\nfiles:\n  - content: a\n    dest: relative/path\n", "recipe.yaml:4:11: 'dest' must be an absolute path"},
      {"name: x\nfiles:\n  - content: a\n    dest: /a/../../etc\n", "may not contain '..'"},
      {"name: x\nfiles:\n  - content: a\n    dest: /a\n    mode: 0999\n", "recipe.yaml:5:11: 'mode' must be an octal mode"},
      {"name: x\nfiles:\n  - dest: /a\n", "a files item needs 'content' or 'src'"},
      {"name: Bad_Name\n", "recipe.yaml:1:7: name 'Bad_Name' is not a valid image name"},
      {"files: []\n", "the recipe has no 'name'"},
      {"name: x\ntags: [\"bad tag\"]\n", "tag 'bad tag' is not a valid tag"},
      {"name: x\nplatform: linux\n", "recipe.yaml:2:11: invalid platform 'linux'"},
      {"name: x\nbase: Ubuntu:22.04\n", "recipe.yaml:2:7: base: invalid repository name"},
      {"name: x\nname: y\n", "duplicate key 'name'"},
      {"name: x\nfiles: [\n", "recipe.yaml:3:1: invalid YAML"},
      {"- just\n- a list\n", "a recipe must be a YAML mapping"},
      {"name: x\ninclude: [missing-fragment]\n", "include 'missing-fragment' not found"},
      {"name: x\nargs:\n  DATE: today\n", "arg 'DATE' is a built-in variable"},
      {"name: x\nargs:\n  NEEDED:\n", "arg 'NEEDED' has no default and was not set (pass --set NEEDED=VALUE)"},
      {"name: x\nsymlinks:\n  - path: /a\n", "a symlinks item needs 'target'"},
      {"name: x\nuser: [a]\n", "'user' must be a single value, not a list"},
  };
  for (const auto& c : cases) {
    TempDir dir;
    std::string msg = recipe_load_error(dir, c.text);
    INFO("recipe:\n" << std::string(c.text) << "\nmessage: " << msg);
    CHECK(msg.find(c.expected) != std::string::npos);
  }
}

TEST_CASE("recipe: an unknown --set key is an error with a suggestion") {
  TempDir dir;
  LoadOptions opts;
  opts.set_args = {{"UBUNTU_VERSON", "24.04"}};
  std::string msg = recipe_load_error(dir, "name: x\nargs:\n  UBUNTU_VERSION: \"22.04\"\n", opts);
  CHECK(msg.find("unknown build arg 'UBUNTU_VERSON' (did you mean 'UBUNTU_VERSION'?)") != std::string::npos);
}

TEST_CASE("recipe: every error is reported, not just the first") {
  TempDir dir;
  std::string msg = recipe_load_error(dir, "name: x\nfoo: 1\nbar: 2\n");
  CHECK(msg.find("'foo'") != std::string::npos);
  CHECK(msg.find("'bar'") != std::string::npos);
}
