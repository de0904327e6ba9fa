#include "plan/lock_plan.hpp"

#include <algorithm>
#include <cctype>
#include <set>

#include "net/url.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace rp {

namespace {

const char* kSecretValue = "<secret>";

bool looks_secret(const std::string& name) {
  std::string upper;
  for (char c : name) upper += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  for (const char* word : {"TOKEN", "PASSWORD", "PASSWD", "SECRET", "KEY", "CREDENTIAL", "AUTH"})
    if (upper.find(word) != std::string::npos) return true;
  return false;
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

// "added 'a', 'b'; removed 'c'" between two lists (as sets: order does not matter).
std::string list_difference(const std::vector<std::string>& locked, const std::vector<std::string>& now) {
  std::set<std::string> a(locked.begin(), locked.end()), b(now.begin(), now.end());
  std::vector<std::string> added, removed;
  for (const auto& x : b)
    if (!a.count(x)) added.push_back(quoted(x));
  for (const auto& x : a)
    if (!b.count(x)) removed.push_back(quoted(x));
  std::vector<std::string> parts;
  if (!added.empty()) parts.push_back("added " + join(added, ", "));
  if (!removed.empty()) parts.push_back("removed " + join(removed, ", "));
  return join(parts, "; ");
}

[[noreturn]] void stale(const LockUse& use, const recipe::Recipe& recipe, const std::vector<std::string>& differences) {
  std::string recipe_name = recipe.file.filename().string();
  // A variant of a matrix: has a lock of its own: the hint locks that variant.
  const std::string lock_command = "rockpack lock " + recipe_name + (recipe.variant ? " --variant " + recipe.variant->name : "");
  throw InputError("the lock file " + use.path + " does not match " + recipe_name +
                       (recipe.variant ? " (variant " + recipe.variant->name + ")" : "") + ": " + join(differences, "; "),
                   "run `" + lock_command + "` to lock the recipe as it is now (or build without --locked)");
}

}  // namespace

std::map<std::string, std::string> lockable_args(const std::map<std::string, std::string>& args) {
  std::map<std::string, std::string> out;
  for (const auto& [k, v] : args) out[k] = looks_secret(k) ? kSecretValue : net::redact_credentials(v);
  return out;
}

LockFile lock_from_plan(const BuildPlan& plan, const recipe::Recipe& recipe) {
  LockFile lock;
  lock.name = recipe.name;
  lock.platform = recipe.platform.str();
  lock.base = recipe.base;
  lock.args = lockable_args(recipe.args);
  lock.base_name = plan.base_name;
  lock.base_digest = plan.base_digest;
  for (const auto& [step, inputs] : plan.lock_inputs) lock.steps[step].inputs = inputs;
  for (const auto& [step, pins] : plan.lock_pins) lock.steps[step].pins = pins;
  for (const auto& [step, c] : plan.components) {
    if (c.sha256.empty())
      throw Error("cannot lock " + c.name + " " + c.version + " (" + c.url + "): its sha256 is not known",
                  "a lock must be able to check every file; use an index that publishes hashes, or give the file's "
                  "sha256 in the recipe");
    lock.steps[step].components.push_back(c);
  }
  return lock;
}

void check_lock_fits_recipe(const LockUse& use, const recipe::Recipe& recipe, const std::vector<std::string>& steps) {
  if (!use.lock || !use.strict) return;
  const LockFile& lock = *use.lock;
  std::vector<std::string> differences;
  if (lock.name != recipe.name) differences.push_back("name is " + quoted(recipe.name) + ", locked " + quoted(lock.name));
  if (lock.platform != recipe.platform.str())
    differences.push_back("platform is " + recipe.platform.str() + ", locked " + lock.platform);
  if (lock.base != recipe.base) differences.push_back("base is " + quoted(recipe.base) + ", locked " + quoted(lock.base));
  std::map<std::string, std::string> args = lockable_args(recipe.args);
  for (const auto& [k, v] : args) {
    auto it = lock.args.find(k);
    if (it == lock.args.end())
      differences.push_back("arg " + k + " is new");
    else if (it->second != v)
      differences.push_back("arg " + k + " is " + quoted(v) + ", locked " + quoted(it->second));
  }
  for (const auto& [k, v] : lock.args)
    if (!args.count(k)) differences.push_back("arg " + k + " is gone");
  for (const auto& s : steps)
    if (!lock.steps.count(s)) differences.push_back("the recipe has a " + s + " section the lock has nothing for");
  for (const auto& [s, entry] : lock.steps)
    if (std::find(steps.begin(), steps.end(), s) == steps.end())
      differences.push_back("the lock has a " + s + " section the recipe no longer has");
  if (!differences.empty()) stale(use, recipe, differences);
}

void check_locked_base(const LockUse& use, const BuildPlan& plan) {
  if (!use.lock || !use.strict || use.lock->base_digest.empty()) return;
  if (plan.base_digest == use.lock->base_digest) return;
  throw Error("the base " + plan.base_name + " is " + (plan.base_digest.empty() ? "without a digest" : plan.base_digest) +
                  ", but " + use.path + " locked " + use.lock->base_digest,
              "the base image changed under the lock; restore it, or run `rockpack lock` to lock the new one");
}

void check_locked_inputs(const LockUse& use, const std::string& step, const std::string& category,
                         const std::vector<std::string>& now) {
  if (!use.lock || !use.strict) return;
  const StepLock* locked = use.step(step);
  std::vector<std::string> was;
  if (locked) {
    auto it = locked->inputs.find(category);
    if (it != locked->inputs.end()) was = it->second;
  }
  std::string difference = list_difference(was, now);
  if (difference.empty()) return;
  throw InputError("the lock file " + use.path + " does not match the recipe: " + step + " " + category + ": " + difference,
                   "run `rockpack lock RECIPE` to lock the recipe as it is now (or build without --locked)");
}

}  // namespace rp
