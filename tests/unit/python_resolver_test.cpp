// The resolver against an in-memory index.
#include <doctest/doctest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "python/resolver.hpp"
#include "util/error.hpp"

using namespace rp::python;

namespace {

// Packages as {name: {version: [Requires-Dist...]}}; direct URLs as {url: (version, deps)}.
class FakeIndex : public ResolverProvider {
 public:
  void add(const std::string& name, const std::string& version, std::vector<std::string> deps = {}) {
    packages_[name][version] = std::move(deps);
  }
  void add_url(const std::string& url, const std::string& version, std::vector<std::string> deps = {}) {
    urls_[url] = {version, std::move(deps)};
  }

  std::vector<Version> versions(const std::string& name) override {
    ++version_calls[name];
    std::vector<Version> out;
    auto it = packages_.find(name);
    if (it == packages_.end()) return out;
    for (const auto& [v, deps] : it->second) out.push_back(Version::parse(v));
    return out;  // map order, deliberately not newest-first
  }

  Version url_version(const std::string&, const std::string& url) override {
    return Version::parse(urls_.at(url).first);
  }

  std::vector<Requirement> dependencies(const std::string& name, const Candidate& c) override {
    const std::vector<std::string>* deps = nullptr;
    if (!c.url.empty()) {
      deps = &urls_.at(c.url).second;
    } else {
      for (const auto& [v, d] : packages_.at(name)) {
        if (Version::parse(v).to_string() == c.version.to_string()) deps = &d;
      }
    }
    if (!deps) throw std::runtime_error("no such candidate: " + name + " " + c.version.to_string());
    std::vector<Requirement> out;
    for (const auto& d : *deps) out.push_back(Requirement::parse(d));
    return out;
  }

  std::map<std::string, int> version_calls;

 private:
  std::map<std::string, std::map<std::string, std::vector<std::string>>> packages_;
  std::map<std::string, std::pair<std::string, std::vector<std::string>>> urls_;
};

std::vector<Requirement> reqs(std::vector<std::string> texts) {
  std::vector<Requirement> out;
  for (const auto& t : texts) out.push_back(Requirement::parse(t));
  return out;
}

// "name==version" lines of a resolution, in its order.
std::vector<std::string> pins(const std::vector<ResolvedPackage>& resolved) {
  std::vector<std::string> out;
  for (const auto& r : resolved) out.push_back(r.name + "==" + r.version.to_string());
  return out;
}

std::string failure(FakeIndex& index, std::vector<std::string> recipe, const ResolverOptions& options = {}) {
  try {
    resolve(reqs(std::move(recipe)), index, options);
  } catch (const rp::InputError& e) {
    return e.what();
  }
  return "(resolved)";
}

}  // namespace

TEST_CASE("python/resolver: newest versions, sorted output, who required what") {
  FakeIndex norm;
  norm.add("requests", "2.31.0", {"urllib3<3,>=1.21.1", "idna>=2.5", "certifi"});
  norm.add("requests", "2.32.3", {"urllib3<3,>=1.21.1", "idna>=2.5", "certifi", "charset_normalizer<4,>=2"});
  norm.add("urllib3", "1.26.20");
  norm.add("urllib3", "2.2.3");
  norm.add("urllib3", "3.0.0");
  norm.add("idna", "3.10");
  norm.add("certifi", "2024.8.30");
  norm.add("charset-normalizer", "3.4.0");
  auto out = resolve(reqs({"Requests", "certifi"}), norm);
  CHECK(pins(out) == std::vector<std::string>{"certifi==2024.8.30", "charset-normalizer==3.4.0", "idna==3.10",
                                              "requests==2.32.3", "urllib3==2.2.3"});
  CHECK(out[0].requested);
  CHECK(out[0].required_by == std::vector<std::string>{"requests"});
  CHECK_FALSE(out[1].requested);
  CHECK(out[3].requested);
  CHECK(out[3].required_by.empty());
  // Every provider question is asked once.
  for (const auto& call : norm.version_calls) {  // no structured binding: clang 14 cannot capture one
    CAPTURE(call.first);
    CHECK(call.second == 1);
  }
}

TEST_CASE("python/resolver: abandons the newest version when its dependencies conflict") {
  FakeIndex idx;
  idx.add("a", "2.0", {"c>=2"});
  idx.add("a", "1.0", {"c<2"});
  idx.add("b", "1.0", {"c<2"});
  idx.add("c", "1.0");
  idx.add("c", "2.0");
  CHECK(pins(resolve(reqs({"a", "b"}), idx)) == std::vector<std::string>{"a==1.0", "b==1.0", "c==1.0"});
}

TEST_CASE("python/resolver: backtracks across several levels") {
  // torch 2.10 needs a rocm that needs a newer hipblas than the recipe allows; torch 2.9 works.
  FakeIndex idx;
  idx.add("torch", "2.10.0", {"rocm==7.1.0", "filelock"});
  idx.add("torch", "2.9.1", {"rocm==7.0.0", "filelock"});
  idx.add("rocm", "7.1.0", {"hipblas>=2"});
  idx.add("rocm", "7.0.0", {"hipblas>=1,<2"});
  idx.add("hipblas", "1.5");
  idx.add("hipblas", "2.1");
  idx.add("filelock", "3.16.1");
  auto out = resolve(reqs({"torch", "hipblas<2"}), idx);
  CHECK(pins(out) ==
        std::vector<std::string>{"filelock==3.16.1", "hipblas==1.5", "rocm==7.0.0", "torch==2.9.1"});
}

TEST_CASE("python/resolver: conflict-directed backjumping skips unrelated decisions") {
  // x 2.0 needs z>=2, which does not exist. Eight unrelated packages with five versions each are
  // decided between x and z; plain chronological backtracking would try 5^8 combinations of them
  // before revisiting x. Backjumping goes straight back to x, well within a small step budget.
  FakeIndex idx;
  idx.add("x", "2.0", {"z>=2"});
  idx.add("x", "1.0", {"z"});
  idx.add("z", "1.0");
  std::vector<std::string> recipe = {"x"};
  for (int p = 1; p <= 8; ++p) {
    std::string name = "p" + std::to_string(p);
    for (int v = 1; v <= 5; ++v) idx.add(name, std::to_string(v) + ".0");
    recipe.push_back(name);
  }
  ResolverOptions options;
  options.max_steps = 200;
  auto out = resolve(reqs(recipe), idx, options);
  CHECK(out.back().name == "z");
  CHECK(out.back().version.to_string() == "1.0");
  CHECK(out[8].name == "x");
  CHECK(out[8].version.to_string() == "1.0");
  CHECK(out[0].version.to_string() == "5.0");  // p1 kept its newest version
}

TEST_CASE("python/resolver: the ROCm conflict is explained as a chain") {
  FakeIndex idx;
  idx.add("torch", "2.10.0a0+rocm7.10.0a20251120", {"rocm[libraries]==7.10.0a20251120", "filelock"});
  idx.add("rocm", "7.9.0");
  idx.add("rocm", "7.10.0a20251120", {"rocm-sdk-libraries==7.10.0a20251120 ; extra == 'libraries'"});
  idx.add("rocm-sdk-libraries", "7.10.0a20251120");
  idx.add("filelock", "3.16.1");
  std::string msg = failure(idx, {"torch", "rocm==7.9.0"});
  CHECK(msg.find("cannot resolve the Python packages") != std::string::npos);
  CHECK(msg.find("torch 2.10.0a0+rocm7.10.0a20251120 requires rocm[libraries]==7.10.0a20251120, but the recipe "
                 "requires rocm==7.9.0; available rocm versions: 7.10.0a20251120, 7.9.0") != std::string::npos);
  // Without the conflicting pin, the nightly (all pre-releases) resolves with the extra's packages.
  auto out = resolve(reqs({"torch"}), idx);
  CHECK(pins(out) == std::vector<std::string>{"filelock==3.16.1", "rocm==7.10.0a20251120",
                                              "rocm-sdk-libraries==7.10.0a20251120",
                                              "torch==2.10.0a0+rocm7.10.0a20251120"});
  CHECK(out[1].extras == std::vector<std::string>{"libraries"});
  CHECK(out[2].required_by == std::vector<std::string>{"rocm"});
}

TEST_CASE("python/resolver: explanation follows the chain of requirers") {
  FakeIndex idx;
  idx.add("app", "1.0", {"lib>=2"});
  idx.add("lib", "2.0", {"base<1"});
  idx.add("lib", "1.0");
  idx.add("base", "0.5");
  idx.add("base", "1.0");
  std::string msg = failure(idx, {"app", "base>=1"});
  CHECK(msg.find("app 1.0 requires lib>=2, lib 2.0 requires base<1, but the recipe requires base>=1; available base "
                 "versions: 1.0, 0.5") != std::string::npos);
  CHECK(failure(idx, {"nothere"}).find("the recipe requires nothere; no versions of nothere are available") !=
        std::string::npos);
  CHECK(failure(idx, {"base>5"}).find("the recipe requires base>5, but no version of base matches; available base "
                                      "versions: 1.0, 0.5") != std::string::npos);
  // Two recipe requirements that cannot both hold.
  CHECK(failure(idx, {"base>=1", "base<1"}).find("the recipe requires base<1, but the recipe requires base>=1") !=
        std::string::npos);
}

TEST_CASE("python/resolver: extras, also when requested after the package was chosen") {
  FakeIndex idx;
  idx.add("torch", "2.9.1", {"filelock", "rocm[libraries]==7.0.0 ; extra == 'rocm'"});
  idx.add("rocm", "7.0.0", {"rocm-sdk-core==7.0.0", "rocm-sdk-libraries==7.0.0 ; extra == \"libraries\""});
  idx.add("rocm-sdk-core", "7.0.0");
  idx.add("rocm-sdk-libraries", "7.0.0");
  idx.add("filelock", "3.16.1");
  idx.add("user", "1.0", {"torch[ROCM]"});
  CHECK(pins(resolve(reqs({"torch"}), idx)) == std::vector<std::string>{"filelock==3.16.1", "torch==2.9.1"});
  CHECK(pins(resolve(reqs({"torch[rocm]"}), idx)) ==
        std::vector<std::string>{"filelock==3.16.1", "rocm==7.0.0", "rocm-sdk-core==7.0.0", "rocm-sdk-libraries==7.0.0",
                                 "torch==2.9.1"});
  // torch is decided first without extras; user then asks for torch[rocm]: its extra dependencies join.
  auto out = resolve(reqs({"torch", "user"}), idx);
  CHECK(pins(out) == std::vector<std::string>{"filelock==3.16.1", "rocm==7.0.0", "rocm-sdk-core==7.0.0",
                                              "rocm-sdk-libraries==7.0.0", "torch==2.9.1", "user==1.0"});
  CHECK(out[4].extras == std::vector<std::string>{"rocm"});
  CHECK(out[4].requested);
  CHECK(out[4].required_by == std::vector<std::string>{"user"});
}

TEST_CASE("python/resolver: pre-release policy") {
  FakeIndex idx;
  idx.add("lib", "1.0");
  idx.add("lib", "2.0b1");
  idx.add("nightly", "7.10.0a20251119");
  idx.add("nightly", "7.10.0a20251120");
  idx.add("torch", "2.10.0a0+rocm7.10.0a20251120");
  idx.add("torch", "2.9.1");
  CHECK(pins(resolve(reqs({"lib"}), idx)) == std::vector<std::string>{"lib==1.0"});
  CHECK(pins(resolve(reqs({"lib>=1.0"}), idx)) == std::vector<std::string>{"lib==1.0"});
  CHECK(pins(resolve(reqs({"lib>=2.0b1"}), idx)) == std::vector<std::string>{"lib==2.0b1"});
  CHECK(pins(resolve(reqs({"lib>1.0"}), idx)) == std::vector<std::string>{"lib==2.0b1"});  // only a pre-release fits
  CHECK(pins(resolve(reqs({"nightly"}), idx)) == std::vector<std::string>{"nightly==7.10.0a20251120"});
  CHECK(pins(resolve(reqs({"torch"}), idx)) == std::vector<std::string>{"torch==2.9.1"});
  CHECK(pins(resolve(reqs({"torch==2.10.0a0"}), idx)) ==
        std::vector<std::string>{"torch==2.10.0a0+rocm7.10.0a20251120"});

  ResolverOptions allow;
  allow.prereleases = PrereleasePolicy::kAllow;
  CHECK(pins(resolve(reqs({"lib"}), idx, allow)) == std::vector<std::string>{"lib==2.0b1"});
  CHECK(pins(resolve(reqs({"torch"}), idx, allow)) == std::vector<std::string>{"torch==2.10.0a0+rocm7.10.0a20251120"});

  ResolverOptions disallow;
  disallow.prereleases = PrereleasePolicy::kDisallow;
  CHECK(pins(resolve(reqs({"lib", "torch"}), idx, disallow)) == std::vector<std::string>{"lib==1.0", "torch==2.9.1"});
  CHECK(failure(idx, {"lib>=2.0b1"}, disallow).find("available lib versions: 2.0b1, 1.0 (pre-releases are not allowed)") !=
        std::string::npos);
  CHECK(failure(idx, {"nightly"}, disallow).find("(pre-releases are not allowed)") != std::string::npos);
}

TEST_CASE("python/resolver: direct URL requirements are single pinned candidates") {
  FakeIndex idx;
  idx.add("foo", "1.0");
  idx.add("foo", "2.0");
  idx.add("bar", "1.0", {"foo>=1"});
  idx.add("baz", "1.0", {"foo>=2"});
  idx.add_url("https://x/foo-1.5-py3-none-any.whl", "1.5", {"dep"});
  idx.add("dep", "0.1");
  auto out = resolve(reqs({"bar", "foo @ https://x/foo-1.5-py3-none-any.whl"}), idx);
  CHECK(pins(out) == std::vector<std::string>{"bar==1.0", "dep==0.1", "foo==1.5"});
  CHECK(out[2].url == "https://x/foo-1.5-py3-none-any.whl");
  std::string msg = failure(idx, {"baz", "foo @ https://x/foo-1.5-py3-none-any.whl"});
  CAPTURE(msg);
  CHECK(msg.find("baz 1.0 requires foo>=2, but foo 1.5 (from https://x/foo-1.5-py3-none-any.whl) was already chosen "
                 "because the recipe requires foo @ https://x/foo-1.5-py3-none-any.whl") != std::string::npos);
  idx.add_url("https://y/foo-1.6-py3-none-any.whl", "1.6");
  CHECK(failure(idx, {"foo @ https://x/foo-1.5-py3-none-any.whl", "foo @ https://y/foo-1.6-py3-none-any.whl"})
            .find("two different URLs") != std::string::npos);
}

TEST_CASE("python/resolver: markers, cycles and self-references") {
  FakeIndex idx;
  idx.add("a", "1.0", {"b", "win-only ; sys_platform == 'win32'", "old ; python_version < '3.8'"});
  idx.add("b", "1.0", {"a", "b[extra]"});
  idx.add("c", "1.0", {"c[x]"});
  CHECK(pins(resolve(reqs({"a", "skipped ; os_name == 'nt'"}), idx)) == std::vector<std::string>{"a==1.0", "b==1.0"});
  auto out = resolve(reqs({"c"}), idx);
  REQUIRE(out.size() == 1);
  CHECK(out[0].extras == std::vector<std::string>{"x"});
  CHECK(out[0].required_by.empty());
  // The target environment decides: on aarch64 the x86-only dependency is not needed.
  idx.add("d", "1.0", {"x86-helper ; platform_machine == 'x86_64'"});
  ResolverOptions arm;
  arm.environment = MarkerEnvironment::for_python("3.12", "aarch64");
  CHECK(pins(resolve(reqs({"d"}), idx, arm)) == std::vector<std::string>{"d==1.0"});
  CHECK(failure(idx, {"d"}).find("d 1.0 requires x86-helper; no versions of x86-helper are available") !=
        std::string::npos);
}

TEST_CASE("python/resolver: the step budget bounds the search") {
  // Every combination fails only at the very end: z needs something that does not exist.
  FakeIndex idx;
  std::vector<std::string> recipe;
  for (int p = 1; p <= 6; ++p) {
    std::string name = "p" + std::to_string(p);
    for (int v = 1; v <= 6; ++v) idx.add(name, std::to_string(v) + ".0", {"z==" + std::to_string(v) + ".0"});
    recipe.push_back(name);
  }
  for (int v = 1; v <= 6; ++v) idx.add("z", std::to_string(v) + ".0", {"missing"});
  ResolverOptions options;
  options.max_steps = 50;
  try {
    resolve(reqs(recipe), idx, options);
    FAIL("expected an error");
  } catch (const rp::InputError& e) {
    FAIL("expected the budget to run out, got: " << e.what());
  } catch (const rp::Error& e) {
    CHECK(std::string(e.what()).find("gave up after 50 steps") != std::string::npos);
  }
}

TEST_CASE("python/resolver: backjumping finds exactly what plain backtracking finds") {
  // Random small indexes (fixed seed, so the test is deterministic). Backjumping only skips
  // subtrees that are proven to fail, so the first solution in search order must be the same as
  // with chronological backtracking, and a failure must be a failure for both.
  uint32_t seed = 12345;
  auto next = [&seed](uint32_t n) {
    seed = seed * 1664525u + 1013904223u;
    return (seed >> 8) % n;
  };
  const char* ops[] = {">=", "<", "==", "!=", "<="};
  int solved = 0, failed = 0;
  for (int round = 0; round < 300; ++round) {
    FakeIndex idx;
    const int packages = 6;
    for (int p = 0; p < packages; ++p) {
      int nversions = 1 + static_cast<int>(next(4));
      for (int v = 1; v <= nversions; ++v) {
        std::vector<std::string> deps;
        int ndeps = static_cast<int>(next(3));
        for (int d = 0; d < ndeps; ++d) {
          int target = static_cast<int>(next(packages));
          if (target == p) continue;
          std::string dep = "p" + std::to_string(target);
          if (next(4) == 0) dep += "[x]";
          dep += std::string(ops[next(5)]) + std::to_string(1 + next(4));
          if (next(5) == 0) dep += " ; extra == 'x'";
          deps.push_back(dep);
        }
        idx.add("p" + std::to_string(p), std::to_string(v), deps);
      }
    }
    std::vector<std::string> recipe = {"p0", "p" + std::to_string(1 + next(packages - 1)) + ">=" + std::to_string(1 + next(2))};
    ResolverOptions jump, plain;
    plain.backjumping = false;
    std::string a, b;
    try {
      a = "ok: ";
      for (const auto& s : pins(resolve(reqs(recipe), idx, jump))) a += s + " ";
    } catch (const rp::InputError&) {
      a = "failed";
    }
    try {
      b = "ok: ";
      for (const auto& s : pins(resolve(reqs(recipe), idx, plain))) b += s + " ";
    } catch (const rp::InputError&) {
      b = "failed";
    }
    CAPTURE(round);
    CHECK(a == b);
    (a == "failed" ? failed : solved)++;
  }
  // Both outcomes occur, so the comparison means something.
  CHECK(solved > 20);
  CHECK(failed > 20);
}

TEST_CASE("python/resolver: constraints narrow versions but install nothing themselves") {
  FakeIndex index;
  index.add("app", "1.0", {"lib>=1"});
  index.add("lib", "1.0");
  index.add("lib", "2.0");
  index.add("unused", "1.0");
  ResolverOptions options;
  options.constraints = reqs({"lib<2", "unused==1.0"});
  auto out = resolve(reqs({"app"}), index, options);
  CHECK(pins(out) == std::vector<std::string>{"app==1.0", "lib==1.0"});
  CHECK_FALSE(out[1].requested);  // a constraint is not a request

  options.constraints = reqs({"lib>=3"});
  std::string message = failure(index, {"app"}, options);
  CHECK(message.find("a constraints file requires lib>=3") != std::string::npos);
}
