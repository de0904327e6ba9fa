// Planning without root: the step order, the Env merge rule, layer assignment, the python step
// against a fake base (a layer blob in a store) and a local find-links directory, the typed
// composition another step (rocm) uses, and the offline checks `validate` runs.
#include <doctest/doctest.h>

#include <algorithm>
#include <future>

#include "image_test_support.hpp"
#include "plan/lock_file.hpp"
#include "plan/lock_plan.hpp"
#include "plan/python_step.hpp"
#include "plan/steps.hpp"
#include "recipe/model.hpp"
#include "test_helpers.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "wheel_test_support.hpp"

using namespace rp;
using namespace rp::test;

namespace {

const char* kSysconfig = R"(build_time_vars = {'ABIFLAGS': '',
 'BINDIR': '/usr/bin',
 'INCLUDEPY': '/usr/include/python3.11',
 'LIBDIR': '/usr/lib/x86_64-linux-gnu',
 'MULTIARCH': 'x86_64-linux-gnu',
 'Py_DEBUG': 0,
 'Py_ENABLE_SHARED': 0,
 'SIZEOF_LONG': 8,
 'SOABI': 'cpython-311-x86_64-linux-gnu',
 'VERSION': '3.11',
 'exec_prefix': '/usr',
 'prefix': '/usr'}
)";

std::string fake_libc() {
  std::string bytes = "\x7f" "ELF";
  bytes.append(100, '\0');  // (appended, not operator+: GCC 12 warns falsely of -Warray-bounds there)
  bytes += "GLIBC_2.2.5";
  bytes.append(3, '\0');
  bytes += "GLIBC_2.34";
  bytes += '\0';
  bytes += "GNU C Library (Debian GLIBC 2.36-9+deb12u4) stable release version 2.36.\n";
  bytes.append(50, '\0');
  return bytes;
}

// A Debian-like base with python3.11, as one gzip layer in `store`.
BaseImage fake_base(ContentStore& store) {
  std::vector<Entry> entries = {
      dir_entry("usr"), dir_entry("usr/lib"), dir_entry("usr/bin"), dir_entry("usr/lib/x86_64-linux-gnu"),
      symlink_entry("lib", "usr/lib"), symlink_entry("bin", "usr/bin"),
      file_entry("usr/lib/x86_64-linux-gnu/libc.so.6", fake_libc(), 0755),
      file_entry("usr/bin/python3.11", "\x7f" "ELF python", 0755), symlink_entry("usr/bin/python3", "python3.11"),
      dir_entry("usr/lib/python3.11"), file_entry("usr/lib/python3.11/os.py", "# os\n"),
      file_entry("usr/lib/python3.11/_sysconfigdata__x86_64-linux-gnu.py", kSysconfig)};
  BaseImage base;
  ImageLayer layer;
  layer.blob = store_layer(store, entries);
  layer.diff_id = "sha256:" + std::string(64, '0');
  base.image.layers.push_back(layer);
  base.image.config = {{"config", {{"Env", {"PATH=/usr/local/bin:/usr/bin:/bin", "KEEP=1"}}}},
                       {"rootfs", {{"type", "layers"}, {"diff_ids", {layer.diff_id}}}}};
  base.name = "fake:base";
  base.digest = "sha256:" + std::string(64, '1');
  return base;
}

struct Fixture {
  TempDir dir;
  ContentStore store{dir.path / "store"};
  TestWheel alpha, beta, gamma;
  Fixture() {
    alpha.name = "alpha";
    alpha.files = {{"alpha/__init__.py", "A = 1\n"}};
    beta.name = "beta";
    beta.files = {{"beta/__init__.py", "B = 2\n"}};
    gamma.name = "gamma";
    gamma.files = {{"gamma/__init__.py", "G = 3\n"}};
    for (const auto* w : {&alpha, &beta, &gamma}) dir.write("links/" + w->filename(), w->bytes());
  }
  recipe::Recipe load(const std::string& body) {
    return recipe::load_recipe(dir.write("recipe.yaml", "name: t\n" + body), {});
  }
  BuildPlan plan(const recipe::Recipe& r, StepMode mode) {
    PlanOptions options;
    if (r.base != "scratch") options.base = fake_base(store);
    BuildPlan p = make_plan(r, options);
    StepRunOptions steps;
    steps.mode = mode;
    steps.store = mode == StepMode::kOffline ? nullptr : &store;
    run_steps(p, r, steps);
    return p;
  }
};

const char* kPython = R"(base: fake:base
python:
  interpreter: /usr/bin/python3
  venv: /opt/venv
  find_links: [./links]
  packages: [alpha, beta]
  layers: {mine: [beta]}
env: {LANG: C.UTF-8}
)";

std::vector<std::string> layer_names(const BuildPlan& p) {
  std::vector<std::string> out;
  for (const auto& l : p.layers) out.push_back(l.step + ":" + l.name);
  return out;
}

std::vector<std::string> env_of(const BuildPlan& p) {
  std::vector<std::string> out;
  for (const auto& e : p.config["config"]["Env"]) out.push_back(e.get<std::string>());
  return out;
}

}  // namespace

TEST_CASE("plan/steps: one order, following the data (packages and accounts first) -- files keep their place before python") {
  std::vector<std::string> names;
  for (const auto& s : build_steps()) names.push_back(s->name());
  CHECK(names == std::vector<std::string>{"apt", "accounts", "files", "python", "rocm", "run", "login-env"});
}

TEST_CASE("plan/steps: the one Env merge rule") {
  recipe::Recipe r;
  r.env = {{"PINNED", "recipe"}};
  nlohmann::json env = {"A=1", "PATH=/usr/bin:/bin", "A=dup", "PINNED=recipe"};
  apply_env_changes(env,
                    {{EnvChange::Kind::kSet, "A", "2"},
                     {EnvChange::Kind::kSet, "PINNED", "step"},
                     {EnvChange::Kind::kPrependPath, "PATH", "/opt/venv/bin:"},
                     {EnvChange::Kind::kSet, "NEW", "x"}},
                    r);
  // Every A replaced in place, the recipe's variable untouched, PATH prefixed, NEW appended.
  CHECK(env == nlohmann::json{"A=2", "PATH=/opt/venv/bin:/usr/bin:/bin", "A=2", "PINNED=recipe", "NEW=x"});
  nlohmann::json none = nlohmann::json::array();
  apply_env_changes(none, {{EnvChange::Kind::kPrependPath, "PATH", "/x/bin:"}}, r);
  CHECK(none == nlohmann::json{"PATH=/x/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"});
  r.env.emplace_back("PATH", "/mine");
  nlohmann::json kept = {"PATH=/mine"};
  apply_env_changes(kept, {{EnvChange::Kind::kPrependPath, "PATH", "/x/bin:"}}, r);
  CHECK(kept == nlohmann::json{"PATH=/mine"});
}

TEST_CASE("plan/steps: files and symlinks become layers of the files step, in first-named order") {
  Fixture f;
  f.dir.write("payload/hello.txt", "hi\n");
  recipe::Recipe r = f.load(
      "files:\n  - {src: payload, dest: /srv, layer: app}\n  - {content: x, dest: /etc/x, layer: conf}\n"
      "symlinks:\n  - {path: /srv/link, target: hello.txt, layer: app}\nenv: {PATH: /opt/tool/bin}\n");
  BuildPlan p = f.plan(r, StepMode::kBuild);
  // /opt/tool/bin is not on a login shell's PATH: the login-env step adds its layer last.
  CHECK(layer_names(p) == std::vector<std::string>{"files:app", "files:conf", "login-env:login-env"});
  auto has = [&](const LayerPlan& l, const std::string& path) {
    return std::any_of(l.entries.begin(), l.entries.end(), [&](const Entry& e) { return e.path == path; });
  };
  CHECK(has(p.layers[0], "srv/hello.txt"));
  CHECK(has(p.layers[0], "srv/link"));
  CHECK(has(p.layers[1], "etc/x"));
  // validate (offline) plans the same files layers, without the derived login-env one.
  CHECK(layer_names(f.plan(r, StepMode::kOffline)) == std::vector<std::string>{"files:app", "files:conf"});
}

TEST_CASE("plan/steps: the python step on a fake base with a local find-links directory") {
  Fixture f;
  recipe::Recipe r = f.load(kPython);
  BuildPlan p = f.plan(r, StepMode::kBuild);
  CHECK(p.base_name == "fake:base");
  // venv, then the recipe's named layer, then the local wheels, then login-env (PATH has the venv).
  CHECK(layer_names(p) == std::vector<std::string>{"python:python-venv", "python:mine", "python:python-local",
                                                   "login-env:login-env"});
  CHECK(env_of(p) == std::vector<std::string>{"PATH=/opt/venv/bin:/usr/local/bin:/usr/bin:/bin", "KEEP=1",
                                              "LANG=C.UTF-8", "VIRTUAL_ENV=/opt/venv"});
  REQUIRE(p.components.size() == 2);
  for (const auto& [step, c] : p.components) {
    CHECK(step == "python");
    CHECK(c.kind == rp::PackageKind::kPython);
    const TestWheel& w = c.name == "alpha" ? f.alpha : f.beta;
    CHECK(c.sha256 == sha256_hex(w.bytes()));
    CHECK(c.size == w.bytes().size());
    CHECK(c.layer == (c.name == "beta" ? "mine" : "python-local"));
  }
  auto site = [&](const LayerPlan& l, const std::string& pkg) {
    return std::any_of(l.entries.begin(), l.entries.end(), [&](const Entry& e) {
      return e.path == "opt/venv/lib/python3.11/site-packages/" + pkg + "/__init__.py";
    });
  };
  CHECK(site(p.layers[1], "beta"));
  CHECK(site(p.layers[2], "alpha"));
  nlohmann::json resolution = resolution_json(p);
  REQUIRE(resolution.contains("python"));
  CHECK(resolution["python"]["target"] == "/opt/venv");
  CHECK(resolution["python"]["packages"].size() == 2);
  CHECK(resolution["python"]["packages"][0]["layer"] == "python-local");

  // Resolving only (rockpack plan) gives the same components; the layers are the same names.
  Fixture g;
  BuildPlan resolved = g.plan(g.load(kPython), StepMode::kResolve);
  CHECK(layer_names(resolved) == layer_names(p));
  REQUIRE(resolved.components.size() == 2);
  CHECK(resolved.components[0].component.sha256 == p.components[0].component.sha256);
}

TEST_CASE("plan/steps: another step composes with python through typed additions (as rocm does)") {
  Fixture f;
  recipe::Recipe r = f.load(kPython);
  PlanOptions options;
  options.base = fake_base(f.store);
  BuildPlan p = make_plan(r, options);
  PythonAdditions additions;
  additions.packages.emplace_back("gamma", r.python->where);
  additions.adjust_package = [](const std::string& text) { return text == "alpha" ? "alpha==1.0" : text; };
  additions.layers = {{"mine", {"gamma"}}, {"extra", {"gamma", "alpha"}}};  // "mine" is the recipe's: kept
  std::vector<std::string> hooked;
  additions.after_install = [&](std::vector<python::InstalledWheel>& wheels, const python::InstallScheme&) {
    for (const auto& w : wheels) hooked.push_back(w.filename);
  };
  StepContext context{r, p, StepMode::kBuild, &f.store, {}, "python", {}};
  PythonStepResult result = plan_python(context, *r.python, additions);
  std::vector<std::string> layers;
  for (const auto& l : result.layers) layers.push_back(l.name);
  CHECK(layers == std::vector<std::string>{"python-venv", "mine", "extra"});
  REQUIRE(result.record);
  std::map<std::string, std::string> where;
  for (const auto& pkg : result.record->packages) where[pkg.component.name] = pkg.component.layer;
  CHECK(where == std::map<std::string, std::string>{{"alpha", "extra"}, {"beta", "mine"}, {"gamma", "extra"}});
  CHECK(hooked.size() == 3);
  // The recipe is not rewritten.
  CHECK(r.python->packages.size() == 2);
  CHECK(r.python->layers.size() == 1);
}

TEST_CASE("plan/steps: validate plans the python section offline, with no store and no image") {
  Fixture f;
  f.dir.write("reqs.txt", "alpha\nbeta==1.0\n");
  recipe::Recipe ok = f.load("base: fake:base\npython:\n  interpreter: /usr/bin/python3\n  requirements: [reqs.txt]\n");
  BuildPlan p = f.plan(ok, StepMode::kOffline);
  CHECK(p.layers.empty());
  CHECK(p.components.empty());
  // A requirements file that went bad after loading is reported by the step.
  f.dir.write("reqs.txt", "alpha >=\n");
  CHECK_THROWS_AS(f.plan(ok, StepMode::kOffline), InputError);
}

TEST_CASE("plan/steps: a locked python step installs the locked files and refuses a recipe that changed") {
  Fixture f;
  recipe::Recipe r = f.load(kPython);
  BuildPlan unlocked = f.plan(r, StepMode::kBuild);
  LockFile lock = lock_from_plan(unlocked, r);
  REQUIRE(lock.steps.count("python"));
  CHECK(lock.steps["python"].components.size() == 2);
  CHECK(lock.steps["python"].inputs["requirements"] == std::vector<std::string>{"alpha", "beta"});

  // A newer alpha appears next to the locked one: a locked plan still installs the locked files.
  TestWheel newer = f.alpha;
  newer.version = "2.0";
  f.dir.write("links/" + newer.filename(), newer.bytes());
  LockFile back = parse_lock_file(lock_file_text(lock), "t.lock");
  StepRunOptions options;
  options.store = &f.store;
  options.lock = LockUse{&back, "t.lock", true, {}};
  PlanOptions plan_options;
  plan_options.base = fake_base(f.store);
  BuildPlan locked = make_plan(r, plan_options);
  run_steps(locked, r, options);
  REQUIRE(locked.components.size() == unlocked.components.size());
  for (size_t i = 0; i < locked.components.size(); ++i) {
    CHECK(locked.components[i].component.version == unlocked.components[i].component.version);
    CHECK(locked.components[i].component.sha256 == unlocked.components[i].component.sha256);
  }
  CHECK(layer_names(locked) == layer_names(unlocked));
  // Without the lock the newer alpha wins.
  BuildPlan fresh = f.plan(r, StepMode::kResolve);
  CHECK(std::any_of(fresh.components.begin(), fresh.components.end(),
                    [](const PlannedComponent& c) { return c.component.name == "alpha" && c.component.version == "2.0"; }));

  // gamma added to the recipe: the lock is stale, and the message names gamma.
  recipe::Recipe changed = f.load(std::string(kPython).replace(std::string(kPython).find("[alpha, beta]"), 13, "[alpha, beta, gamma]"));
  BuildPlan p2 = make_plan(changed, plan_options);
  try {
    run_steps(p2, changed, options);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("python requirements: added 'gamma'") != std::string::npos);
  }
}

TEST_CASE("plan/steps: the steps look into the base through the base check's one read of it") {
  Fixture f;
  recipe::Recipe r = f.load(kPython);
  BaseImage base = fake_base(f.store);
  const Descriptor& layer = base.image.layers[0].blob;
  // What the check hands over on a cold store: every layer read, with what the steps read kept.
  RootfsView::KeepContent wanted = files_steps_read_from_base(r);
  CHECK(wanted("usr/lib/python3.11/_sysconfigdata__x86_64-linux-gnu.py"));
  CHECK_FALSE(wanted("usr/lib/python3.11/os.py"));
  auto read = RootfsView::read_layer(f.store, layer, wanted);
  std::promise<std::shared_ptr<const BaseLayerReads>> check;
  check.set_value(std::make_shared<const BaseLayerReads>(BaseLayerReads{read}));
  base.verified = check.get_future().share();
  // The layer leaves the store: a step that decompressed the base again would fail.
  fs::remove(f.store.blob_path(layer.digest));
  PlanOptions options;
  options.base = base;
  BuildPlan p = make_plan(r, options);
  StepRunOptions steps;
  steps.store = &f.store;
  run_steps(p, r, steps);
  nlohmann::json resolved = resolution_json(p);
  CHECK(resolved["python"]["interpreter"]["version"] == "3.11.0");  // from the kept sysconfig data
  // Done with it: the read is let go, the check's outcome stays.
  CHECK(p.base_verified.valid());
  CHECK(p.base_reads() == nullptr);
}

TEST_CASE("run_steps waits for the base check and rethrows its error") {
  Fixture f;
  recipe::Recipe r = f.load("base: fake:base\nenv:\n  A: b\n");
  PlanOptions options;
  BaseImage base = fake_base(f.store);
  std::promise<std::shared_ptr<const BaseLayerReads>> check;
  base.verified = check.get_future().share();
  options.base = base;
  BuildPlan p = make_plan(r, options);
  check.set_exception(std::make_exception_ptr(Error("base layer sha256:00 in the store hashes to sha256:11")));
  StepRunOptions steps;
  steps.store = &f.store;
  CHECK_THROWS_WITH_AS(run_steps(p, r, steps), doctest::Contains("hashes to sha256:11"), Error);

  // A check that passed lets the plan through.
  std::promise<std::shared_ptr<const BaseLayerReads>> passed;
  base.verified = passed.get_future().share();
  options.base = base;
  BuildPlan q = make_plan(r, options);
  passed.set_value(nullptr);
  run_steps(q, r, steps);
  CHECK(q.base_verified.valid());
}
