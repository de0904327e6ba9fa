// The recipe's python: section: a complete section into the typed model, the merge rule for
// fragments, and every validation error at its line:column.
#include <doctest/doctest.h>

#include "recipe/model.hpp"
#include "test_helpers.hpp"

using rp::recipe::load_recipe;
using rp::recipe::LoadOptions;
using rp::recipe::PrereleaseMode;
using rp::recipe::RecipeError;
using rp::test::TempDir;

namespace {
const std::string kHashA(64, 'a');
const std::string kHashB = std::string(63, '0') + "F";  // upper case is accepted and lowered

std::string python_load_error(const TempDir& dir, const std::string& text) {
  auto path = dir.write("recipe.yaml", text);
  try {
    load_recipe(path, {});
    return "";
  } catch (const RecipeError& e) {
    return e.what();
  }
}
}  // namespace

TEST_CASE("recipe python: a complete section loads into the typed model") {
  TempDir dir;
  dir.write("reqs/requirements.txt", "numpy==1.26.4\n");
  dir.write("reqs/constraints.txt", "urllib3<3\n");
  dir.write("wheels/local-1.0-py3-none-any.whl", "not really a zip");
  dir.write("links/.keep", "");
  auto path = dir.write("recipe.yaml", R"(name: py
args:
  ROCM: "6.4"
python:
  interpreter: /usr/bin/python3
  venv: /opt/venv
  break_system_packages: false
  index_strategy: unsafe-best-match
  prerelease: allow
  indexes:
    - url: https://example.invalid/whl/nightly/rocm${ROCM}/
      username_env: IDX_USER
      password_env: IDX_PASS
      packages: [Torch, "ROCm_*"]
      layer: torch
    - url: http://127.0.0.1:8080/simple/
      netrc: true
  find_links: [./links, "https://example.invalid/links.html"]
  packages:
    - pip
    - "demo[cli]>=1.0; python_version >= '3.8'"
  requirements: [reqs/requirements.txt]
  constraints: reqs/constraints.txt
  wheels:
    - url: https://example.invalid/flash_attn-2.8.3%2Brocm62torch2.5-cp311-cp311-linux_x86_64.whl
      sha256: )" + kHashA + R"(
      layer: extras
    - path: wheels/local-1.0-py3-none-any.whl
      verify: false
  layers:
    torch: [torch, triton, "rocm*"]
    tools: [Black]
)");
  auto r = load_recipe(path, {});
  REQUIRE(r.python);
  const auto& p = *r.python;
  CHECK(p.where.line == 5);  // the mapping starts at its first key
  CHECK(p.interpreter == "/usr/bin/python3");
  CHECK(!p.standalone);
  CHECK(p.venv == "/opt/venv");
  CHECK(!p.break_system_packages);
  CHECK(p.index_strategy == rp::recipe::IndexStrategy::kUnsafeBestMatch);
  CHECK(p.prerelease == PrereleaseMode::kAllow);
  REQUIRE(p.indexes.size() == 2);
  CHECK(p.indexes[0].url == "https://example.invalid/whl/nightly/rocm6.4/");
  CHECK(p.indexes[0].username_env == "IDX_USER");
  CHECK(p.indexes[0].password_env == "IDX_PASS");
  CHECK(p.indexes[0].packages == std::vector<std::string>{"torch", "rocm-*"});
  CHECK(p.indexes[0].layer == "torch");
  CHECK(p.indexes[0].where.line == 11);
  CHECK(p.indexes[1].netrc);
  CHECK(p.indexes[1].layer.empty());
  REQUIRE(p.find_links.size() == 2);
  CHECK(p.find_links[0] == (dir.path / "links").string());
  CHECK(p.find_links[1] == "https://example.invalid/links.html");
  REQUIRE(p.packages.size() == 2);
  CHECK(p.packages[1].first == "demo[cli]>=1.0; python_version >= '3.8'");
  CHECK(p.packages[1].second.line == 21);
  CHECK(p.requirements == std::vector<std::filesystem::path>{dir.path / "reqs/requirements.txt"});
  CHECK(p.constraints == std::vector<std::filesystem::path>{dir.path / "reqs/constraints.txt"});
  REQUIRE(p.wheels.size() == 2);
  CHECK(p.wheels[0].sha256 == kHashA);
  CHECK(p.wheels[0].layer == "extras");
  CHECK(p.wheels[0].verify);
  CHECK(p.wheels[1].url.empty());
  CHECK(*p.wheels[1].path == dir.path / "wheels/local-1.0-py3-none-any.whl");
  CHECK(!p.wheels[1].verify);
  REQUIRE(p.layers.size() == 2);
  CHECK(p.layers[0].first == "torch");
  CHECK(p.layers[0].second == std::vector<std::string>{"torch", "triton", "rocm*"});
  CHECK(p.layers[1].second == std::vector<std::string>{"black"});
}

TEST_CASE("recipe python: a standalone interpreter with its defaults") {
  TempDir dir;
  dir.write("cpython.tar.gz", "x");
  auto r = load_recipe(dir.write("recipe.yaml", "name: py\npython:\n  standalone:\n    path: cpython.tar.gz\n    sha256: " +
                                                    kHashB + "\n  packages: [pip]\n"),
                       {});
  REQUIRE(r.python->standalone);
  CHECK(!r.python->interpreter);
  CHECK(*r.python->standalone->path == dir.path / "cpython.tar.gz");
  CHECK(r.python->standalone->sha256 == std::string(63, '0') + "f");
  CHECK(r.python->standalone->prefix == "/opt/python");
  CHECK(r.python->standalone->strip == "python");
  CHECK(r.python->index_strategy == rp::recipe::IndexStrategy::kFirstIndex);
  CHECK(r.python->prerelease == PrereleaseMode::kIfNecessaryOrExplicit);
}

TEST_CASE("recipe python: fragments merge — lists append, scalars and the interpreter choice are replaced") {
  TempDir dir;
  dir.write("layers/torch.yaml", R"(python:
  standalone:
    url: https://example.invalid/cpython-3.11.tar.gz
    sha256: )" + kHashA + R"(
  venv: /opt/frag
  indexes:
    - url: https://example.invalid/torch/
      packages: [torch]
  packages: [torch]
  layers:
    torch: [torch, triton]
    other: [numpy]
)");
  auto path = dir.write("recipe.yaml", R"(name: py
include: [torch]
python:
  interpreter: /usr/bin/python3
  venv: /opt/venv
  indexes:
    - url: https://example.invalid/simple/
  packages: [numpy]
  layers:
    torch: [torch]
)");
  auto r = load_recipe(path, {});
  const auto& p = *r.python;
  CHECK(p.interpreter == "/usr/bin/python3");
  CHECK(!p.standalone);
  CHECK(p.venv == "/opt/venv");
  REQUIRE(p.indexes.size() == 2);
  CHECK(p.indexes[0].url == "https://example.invalid/torch/");
  CHECK(p.indexes[1].url == "https://example.invalid/simple/");
  REQUIRE(p.packages.size() == 2);
  CHECK(p.packages[0].first == "torch");
  CHECK(p.packages[0].second.file == (dir.path / "layers/torch.yaml").string());
  CHECK(p.packages[1].first == "numpy");
  // `torch` is replaced by the recipe's entry (and moves after `other`).
  REQUIRE(p.layers.size() == 2);
  CHECK(p.layers[0] == std::pair<std::string, std::vector<std::string>>{"other", {"numpy"}});
  CHECK(p.layers[1] == std::pair<std::string, std::vector<std::string>>{"torch", {"torch"}});
  CHECK(p.where.file == path.string());
}

TEST_CASE("recipe python: an index listed in a fragment and again in the recipe is an error") {
  TempDir dir;
  dir.write("layers/idx.yaml", "python:\n  indexes:\n    - url: https://example.invalid/simple\n");
  std::string msg = python_load_error(dir, "name: x\ninclude: [idx]\npython:\n  interpreter: /usr/bin/python3\n"
                                    "  packages: [a]\n  indexes:\n    - url: https://example.invalid/simple/\n");
  CHECK(msg.find("recipe.yaml:7:12: index 'https://example.invalid/simple/' is listed twice (first at ") !=
        std::string::npos);
  CHECK(msg.find("idx.yaml:3:7") != std::string::npos);
}

TEST_CASE("recipe python: broken sections fail with file:line:column and a useful message") {
  struct Case {
    std::string text;  // the python: section, after "name: x\n"
    std::string expected;
  };
  const std::string ok = "  interpreter: /usr/bin/python3\n";
  const std::string pkgs = "  packages: [pip]\n";
  const std::vector<Case> cases = {
      {"python: [pip]\n", "recipe.yaml:2:9: 'python' must be a mapping"},
      {"python:\n  interpreter: /usr/bin/python3\n  pakages: [pip]\n",
       "recipe.yaml:4:3: unknown key 'pakages' in python (did you mean 'packages'?)"},
      {"python:\n" + pkgs, "recipe.yaml:3:3: the python section needs 'interpreter' or 'standalone'"},
      {"python:\n" + ok, "the python section installs nothing"},
      {"python:\n  interpreter: python3\n" + pkgs,
       "recipe.yaml:3:16: 'interpreter' must be an absolute path in the image, got 'python3'"},
      {"python:\n" + ok + pkgs + "  venv: venv\n", "recipe.yaml:5:9: 'venv' must be an absolute path"},
      {"python:\n" + ok + "  standalone:\n    url: https://h/p.tar.gz\n    sha256: " + kHashA + "\n" + pkgs,
       "recipe.yaml:5:5: 'python' has both 'interpreter' and 'standalone'"},
      {"python:\n  standalone:\n    url: https://h/p.tar.gz\n    sha256: abc\n" + pkgs,
       "recipe.yaml:5:13: 'sha256' must be 64 hex digits, got 'abc'"},
      {"python:\n  standalone:\n    url: https://h/p.tar.gz\n" + pkgs,
       "recipe.yaml:4:5: 'standalone' needs 'sha256'"},
      {"python:\n  standalone:\n    url: https://h/p.tar.gz\n    sha256: " + kHashA + "\n    prefix: opt/python\n" + pkgs,
       "recipe.yaml:6:13: 'prefix' must be an absolute path"},
      {"python:\n  standalone:\n    url: ftp://h/p.tar.gz\n    sha256: " + kHashA + "\n" + pkgs,
       "recipe.yaml:4:10: 'url' must be a URL starting with http://, https://, file://, got 'ftp://h/p.tar.gz'"},
      {"python:\n" + ok + pkgs + "  indexes:\n    - url: https://user:secret@h/simple/\n",
       "recipe.yaml:6:12: 'url' has credentials in its URL (credentials never go into a recipe"},
      {"python:\n" + ok + pkgs + "  indexes:\n    - url: file:///srv/simple/\n",
       "recipe.yaml:6:12: 'url' must be a URL starting with http://, https://"},
      {"python:\n" + ok + pkgs + "  indexes:\n    - url: https://h/a/\n    - url: https://h/a\n",
       "recipe.yaml:7:12: index 'https://h/a' is listed twice (first at "},
      {"python:\n" + ok + pkgs + "  indexes:\n    - url: https://h/a/\n      username_env: U\n",
       "recipe.yaml:6:7: an index needs both 'username_env' and 'password_env', or neither"},
      {"python:\n" + ok + pkgs + "  indexes:\n    - url: https://h/a/\n      netrc: yes\n",
       "recipe.yaml:7:14: 'netrc' must be true or false, got 'yes'"},
      {"python:\n" + ok + pkgs + "  indexes:\n    - url: https://h/a/\n      packges: [a]\n",
       "recipe.yaml:7:7: unknown key 'packges' in python.indexes item (did you mean 'packages'?)"},
      {"python:\n" + ok + pkgs + "  indexes:\n    - url: https://h/a/\n      packages: [\"torch>=2\"]\n",
       "recipe.yaml:7:18: 'torch>=2' in 'packages' is not a package name or a '*' glob"},
      {"python:\n" + ok + "  packages:\n    - pip\n    - \"demo[cli>=1.0\"\n",
       "recipe.yaml:6:7: invalid requirement: expected ',' or ']'"},
      {"python:\n" + ok + "  packages: [\"demo @ git+https://h/demo.git\"]\n",
       "recipe.yaml:4:14: 'git+https://h/demo.git' is not a wheel URL"},
      {"python:\n" + ok + "  packages: [\"demo @ https://h/demo-1.0.tar.gz\"]\n",
       "recipe.yaml:4:14: 'demo-1.0.tar.gz' is not a wheel file name"},
      {"python:\n" + ok + "  requirements: [missing.txt]\n",
       "recipe.yaml:4:18: requirements 'missing.txt' does not exist"},
      {"python:\n" + ok + "  wheels:\n    - url: https://h/flash_attn-2.8.3.whl\n      sha256: " + kHashA + "\n",
       "recipe.yaml:5:12: 'flash_attn-2.8.3.whl' is not a wheel file name"},
      {"python:\n" + ok + "  wheels:\n    - url: https://h/demo-1.0-py3-none-any.whl\n",
       "recipe.yaml:5:7: a wheels item needs 'sha256'"},
      {"python:\n" + ok + "  wheels:\n    - path: nope-1.0-py3-none-any.whl\n      verify: false\n",
       "recipe.yaml:5:13: path 'nope-1.0-py3-none-any.whl' does not exist"},
      {"python:\n" + ok + pkgs + "  layers:\n    a: [torch, numpy]\n    b: [Torch]\n",
       "recipe.yaml:7:8: package 'torch' is in layer 'a' and in layer 'b'"},
      {"python:\n" + ok + pkgs + "  index_strategy: first_index\n",
       "recipe.yaml:5:19: unknown index_strategy 'first_index' (did you mean 'first-index'?)"},
      {"python:\n" + ok + pkgs + "  prerelease: alow\n",
       "recipe.yaml:5:15: unknown prerelease mode 'alow' (did you mean 'allow'?)"},
      {"python:\n" + ok + "  packages: [\"${TORCH_VERSON}\"]\nargs:\n  TORCH_VERSION: \"2.4\"\n",
       "recipe.yaml:4:14: undefined variable '${TORCH_VERSON}' in 'packages item' (did you mean 'TORCH_VERSION'?)"},
  };
  for (const auto& c : cases) {
    TempDir dir;
    std::string text = "name: x\n" + c.text;
    std::string msg = python_load_error(dir, text);
    INFO("recipe:\n" << text << "\nmessage: " << msg);
    CHECK(msg.find(c.expected) != std::string::npos);
  }
}

TEST_CASE("recipe python: a broken requirements file is reported at the recipe item") {
  TempDir dir;
  dir.write("req.txt", "numpy\n-e ./src\n");
  std::string msg = python_load_error(dir, "name: x\npython:\n  interpreter: /usr/bin/python3\n  requirements: [req.txt]\n");
  CHECK(msg.find("recipe.yaml:4:18: " + (dir.path / "req.txt").string() + ":2: editable requirements") !=
        std::string::npos);
}
