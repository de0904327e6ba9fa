#pragma once
// The lock file: what a build resolved, written so that a later build can use exactly those inputs
// (`rockpack lock`, `rockpack build --locked`). The model and its JSON form only; what fills it
// (lock_plan.hpp) and who reads it (the steps, through StepContext::lock) live elsewhere, and
// nothing here knows the command line.
//
// The text is stable and diff-friendly: object keys sorted, components sorted by (kind, name,
// version, url), two-space indentation, one trailing newline. A lock file is untrusted input: the
// parser checks every field's type and form (sha256 hex, sizes) and throws rp::InputError naming the
// field, never crashes (fuzz/fuzz_lock_file.cpp).
//
//   {"rockpack_lock": 1,
//    "recipe": {"name", "platform", "base", "args": {NAME: value or "<secret>"}},
//    "base": {"name", "digest"} or null (scratch),
//    "steps": {"python": {"inputs": {"requirements": [...], "indexes": [...]},
//                         "pins": {},
//                         "components": [{"kind", "name", "version", "filename", "url", "sha256",
//                                         "size", "origin", "layer", "requested"}]},
//              "rocm": {..., "pins": {"version", "layout"}}}}
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "plan/plan.hpp"

namespace rp {

inline constexpr int kLockFormatVersion = 1;

// What a lock file records for one step.
struct StepLock {
  // What the recipe asked of the step, by category ("requirements", "indexes", "rocm", ...): a locked
  // build whose recipe asks for something else is refused (the lock is stale).
  std::map<std::string, std::vector<std::string>> inputs;
  // What the step chose that is not a file: rocm's version and layout.
  std::map<std::string, std::string> pins;
  // Every file the step resolved (ResolvedComponent: kind, name, version, filename, url, sha256, ...).
  std::vector<ResolvedComponent> components;
};

struct LockFile {
  int version = kLockFormatVersion;
  std::string name;      // the recipe's name
  std::string platform;  // "linux/amd64"
  std::string base;      // the recipe's `base:` as written ("scratch" when none)
  // The recipe's args as resolved; a secret-looking one (…TOKEN, …PASSWORD, …) is "<secret>".
  std::map<std::string, std::string> args;
  std::string base_name;    // the resolved base ("docker.io/library/alpine:3.19"); empty for scratch
  std::string base_digest;  // its manifest digest for the platform; empty for scratch or a docker archive
  std::map<std::string, StepLock> steps;  // by step name ("python", "rocm", "apt")
};

// The text of `lock` (sorted, stable; see above).
std::string lock_file_text(const LockFile& lock);
// Parses a lock file's text; `where` names it in messages. Throws InputError for anything malformed.
LockFile parse_lock_file(std::string_view text, const std::string& where);
// Reads and parses `path`; a missing file is an InputError saying to run `rockpack lock`.
LockFile read_lock_file(const std::string& path);
// Writes `lock` to `path` atomically (temp file + rename).
void write_lock_file(const std::string& path, const LockFile& lock);

// How a build uses a lock (StepRunOptions::lock, StepContext::lock).
struct LockUse {
  const LockFile* lock = nullptr;  // none: resolve against the live indexes
  std::string path;                // the lock file, for messages
  // true (build --locked): only the locked files, nothing resolved; false (lock --update NAMES):
  // resolve again, but everything not in `update` keeps its locked version and file.
  bool strict = true;
  std::set<std::string> update;  // normalized package names refreshed (lock --update NAME...)

  explicit operator bool() const { return lock != nullptr; }
  // The step's lock entry, or null (no lock, or the lock has nothing for the step).
  const StepLock* step(const std::string& name) const;
  // Whether `name` (normalized) keeps its locked pin: always in a strict build; with --update, unless named.
  bool keeps(const std::string& name) const { return lock && (strict || !update.count(name)); }
};

}  // namespace rp
