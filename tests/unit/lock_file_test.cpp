// The lock file: its text (sorted, stable, round-trips), its parser (untrusted input: every bad
// field named, never a crash), args with secrets, and the checks that a lock fits a recipe.
#include <doctest/doctest.h>

#include <string>

#include "plan/lock_file.hpp"
#include "plan/lock_plan.hpp"
#include "recipe/model.hpp"
#include "test_helpers.hpp"
#include "util/error.hpp"

using namespace rp;
using namespace rp::test;

namespace {

ResolvedComponent component(const std::string& name, const std::string& version, char hash) {
  ResolvedComponent c;
  c.kind = rp::PackageKind::kPython;
  c.name = name;
  c.version = version;
  c.filename = name + "-" + version + "-py3-none-any.whl";
  c.url = "http://127.0.0.1:1/files/" + c.filename;
  c.sha256 = std::string(64, hash);
  c.size = 123;
  c.origin = "http://127.0.0.1:1/simple/";
  c.layer = "python";
  c.requested = name == "zeta";
  return c;
}

LockFile sample() {
  LockFile lock;
  lock.name = "app";
  lock.platform = "linux/amd64";
  lock.base = "oci:base:base";
  lock.args = {{"MIRROR", "http://mirror/debian"}};
  lock.base_name = "oci:base:base";
  lock.base_digest = "sha256:" + std::string(64, 'c');
  StepLock& py = lock.steps["python"];
  py.inputs["requirements"] = {"zeta>=1"};
  py.inputs["indexes"] = {"http://127.0.0.1:1/simple/"};
  py.components = {component("zeta", "2.0", 'a'), component("alpha", "1.0", 'b')};
  lock.steps["rocm"].pins = {{"version", "7.10.0a20251121"}, {"layout", "per-family"}};
  return lock;
}

std::string error_of(const std::string& text) {
  try {
    (void)parse_lock_file(text, "app.lock");
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("lock file: the text is sorted and stable, and reads back to the same text") {
  std::string text = lock_file_text(sample());
  CHECK(text.back() == '\n');
  // Components sorted by name whatever order the plan had; keys sorted.
  CHECK(text.find("\"alpha\"") < text.find("\"zeta\""));
  CHECK(text.find("\"base\"") < text.find("\"recipe\""));
  CHECK(text.find("\"recipe\"") < text.find("\"steps\""));
  LockFile back = parse_lock_file(text, "app.lock");
  CHECK(lock_file_text(back) == text);
  REQUIRE(back.steps.count("python"));
  CHECK(back.steps["python"].components.size() == 2);
  CHECK(back.steps["python"].components[0].name == "alpha");
  CHECK(back.steps["python"].components[1].requested);
  CHECK(back.steps["rocm"].pins["version"] == "7.10.0a20251121");
  CHECK(back.base_digest == "sha256:" + std::string(64, 'c'));

  // Scratch: base null, and it reads back.
  LockFile scratch = sample();
  scratch.base_name.clear();
  scratch.base_digest.clear();
  std::string t2 = lock_file_text(scratch);
  CHECK(t2.find("\"base\": null") != std::string::npos);
  CHECK(parse_lock_file(t2, "x").base_digest.empty());
}

TEST_CASE("lock file: a written file reads back, and a missing one says to run rockpack lock") {
  TempDir dir;
  std::string path = (dir.path / "app.yaml.lock").string();
  write_lock_file(path, sample());
  CHECK(lock_file_text(read_lock_file(path)) == lock_file_text(sample()));
  try {
    (void)read_lock_file((dir.path / "none.lock").string());
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("none.lock") != std::string::npos);
    CHECK(e.hint().find("rockpack lock") != std::string::npos);
  }
}

TEST_CASE("lock file: malformed input is an InputError naming the field") {
  std::string good = lock_file_text(sample());
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    auto at = t.find(from);
    REQUIRE(at != std::string::npos);
    return t.replace(at, from.size(), to);
  };
  CHECK(error_of("") .find("not valid JSON") != std::string::npos);
  CHECK(error_of("[1]").find("expected a JSON object") != std::string::npos);
  CHECK(error_of("{}").find("rockpack_lock: missing") != std::string::npos);
  CHECK(error_of(replaced("\"rockpack_lock\": 1", "\"rockpack_lock\": 7")).find("lock format 7") != std::string::npos);
  CHECK(error_of(replaced("\"rockpack_lock\": 1", "\"rockpack_lock\": \"1\"")).find("rockpack_lock") != std::string::npos);
  CHECK(error_of(replaced(std::string(64, 'a'), "zz")).find("steps.python.components[1].sha256") != std::string::npos);
  CHECK(error_of(replaced(std::string(64, 'a'), std::string(64, 'A'))).find("64 lowercase hex") != std::string::npos);
  CHECK(error_of(replaced("\"size\": 123", "\"size\": -1")).find("size: expected a byte count") != std::string::npos);
  CHECK(error_of(replaced("\"size\": 123", "\"size\": \"big\"")).find("size") != std::string::npos);
  CHECK(error_of(replaced("\"requested\": false", "\"requested\": 0")).find("requested") != std::string::npos);
  CHECK(error_of(replaced("\"platform\": \"linux/amd64\"", "\"platform\": 5")).find("recipe.platform") != std::string::npos);
  CHECK(error_of(replaced("\"sha256:" + std::string(64, 'c') + "\"", "\"md5:1\"")).find("base.digest") != std::string::npos);
  CHECK(error_of(replaced("\"zeta>=1\"", "7")).find("steps.python.inputs.requirements") != std::string::npos);
  CHECK(error_of(replaced("\"layout\": \"per-family\"", "\"layout\": []")).find("steps.rocm.pins.layout") != std::string::npos);
  // Truncated anywhere: a clear error, never a crash.
  for (size_t n = 0; n < good.size(); n += 7) CHECK(error_of(good.substr(0, n)) != "(no error)");
}

TEST_CASE("lock file: args keep no secret and no credential") {
  auto args = lockable_args({{"GITHUB_TOKEN", "ghp_x"}, {"PIP_PASSWORD", "p"}, {"api_key", "k"},
                             {"INDEX", "https://user:pw@host/simple/"}, {"VERSION", "1.2"}});
  CHECK(args["GITHUB_TOKEN"] == "<secret>");
  CHECK(args["PIP_PASSWORD"] == "<secret>");
  CHECK(args["api_key"] == "<secret>");
  CHECK(args["INDEX"].find("pw") == std::string::npos);
  CHECK(args["INDEX"].find("host/simple/") != std::string::npos);
  CHECK(args["VERSION"] == "1.2");
}

TEST_CASE("lock file: a lock that no longer fits the recipe says what differs") {
  TempDir dir;
  recipe::Recipe r = recipe::load_recipe(
      dir.write("app.yaml", "name: app\nargs:\n  VERSION: '1.2'\n  NEW: x\nbase: scratch\n"), {});
  LockFile lock;
  lock.name = "app";
  lock.platform = r.platform.str();
  lock.base = "scratch";
  lock.args = {{"VERSION", "1.1"}, {"OLD", "y"}};
  lock.steps["python"].inputs["requirements"] = {"alpha", "beta>=2"};
  LockUse use{&lock, "app.yaml.lock", true, {}};
  try {
    check_lock_fits_recipe(use, r, {"rocm"});
    FAIL("no error");
  } catch (const InputError& e) {
    std::string m = e.what();
    CHECK(m.find("app.yaml.lock does not match app.yaml") != std::string::npos);
    CHECK(m.find("arg VERSION is '1.2', locked '1.1'") != std::string::npos);
    CHECK(m.find("arg NEW is new") != std::string::npos);
    CHECK(m.find("arg OLD is gone") != std::string::npos);
    CHECK(m.find("a rocm section the lock has nothing for") != std::string::npos);
    CHECK(m.find("a python section the recipe no longer has") != std::string::npos);
    CHECK(e.hint().find("rockpack lock app.yaml") != std::string::npos);
  }
  try {
    check_locked_inputs(use, "python", "requirements", {"alpha", "gamma"});
    FAIL("no error");
  } catch (const InputError& e) {
    std::string m = e.what();
    CHECK(m.find("python requirements: added 'gamma'; removed 'beta>=2'") != std::string::npos);
  }
  CHECK_NOTHROW(check_locked_inputs(use, "python", "requirements", {"beta>=2", "alpha"}));  // order does not matter
  // lock --update (not strict) checks nothing.
  LockUse update{&lock, "app.yaml.lock", false, {"alpha"}};
  CHECK_NOTHROW(check_locked_inputs(update, "python", "requirements", {"gamma"}));
  CHECK(update.keeps("beta"));
  CHECK(!update.keeps("alpha"));
}
