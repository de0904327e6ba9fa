// The ordered list of wheel tags a target supports, and choosing among wheels by tag.
#include <algorithm>
#include <set>

#include "python/text.hpp"
#include "python/wheel_filename.hpp"
#include "util/error.hpp"

namespace rp::python {

namespace {

// The pre-PEP 600 names of some manylinux_2_Y tags, per architecture.
std::optional<std::string> legacy_alias(int glibc_minor, const std::string& arch) {
  static const std::set<std::string> k2014 = {"x86_64", "i686", "aarch64", "armv7l", "ppc64", "ppc64le", "s390x"};
  bool x86 = arch == "x86_64" || arch == "i686";
  if (glibc_minor == 17 && k2014.count(arch)) return "manylinux2014_" + arch;
  if (glibc_minor == 12 && x86) return "manylinux2010_" + arch;
  if (glibc_minor == 5 && x86) return "manylinux1_" + arch;
  return std::nullopt;
}

int parse_small_int(std::string_view s) {
  if (s.empty() || s.size() > 4) return -1;
  int n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return -1;
    n = n * 10 + (c - '0');
  }
  return n;
}

// "3.11" -> {3, 11}; {-1, -1} when malformed.
std::pair<int, int> major_minor(std::string_view s) {
  auto parts = split(trim(s), '.');
  if (parts.size() != 2) return {-1, -1};
  return {parse_small_int(parts[0]), parse_small_int(parts[1])};
}

}  // namespace

TagPolicy::TagPolicy(std::string implementation, int python_major, int python_minor, int glibc_major,
                     int glibc_minor, std::string machine) {
  // Platforms, best first. manylinux wheels built for an older glibc run on a newer one, so every
  // manylinux_2_Y with Y <= the target's glibc is accepted, newest first. PEP 600 puts the floor
  // at glibc 2.5 for x86 and 2.17 for the architectures manylinux2014 introduced.
  if (glibc_major == 2) {
    int floor = (machine == "x86_64" || machine == "i686") ? 5 : 17;
    for (int y = glibc_minor; y >= floor; --y) {
      platforms_.push_back("manylinux_2_" + std::to_string(y) + "_" + machine);
      if (auto alias = legacy_alias(y, machine)) platforms_.push_back(*alias);
    }
  }
  // Plain linux_<arch> wheels promise nothing about glibc; TheRock and the PyTorch ROCm wheels use
  // it, so it is accepted, but last.
  platforms_.push_back("linux_" + machine);

  const std::string major = std::to_string(python_major);
  const std::string own = implementation + major + std::to_string(python_minor);
  const bool cpython = implementation == "cp";
  // py3X, py3, py3(X-1) ... py30: the generic Python tags, own minor version first.
  std::vector<std::string> generic = {"py" + major + std::to_string(python_minor), "py" + major};
  for (int m = python_minor - 1; m >= 0; --m) generic.push_back("py" + major + std::to_string(m));

  for (const auto& p : platforms_) {
    if (cpython) {
      tags_.push_back({own, own, p});
      tags_.push_back({own, "abi3", p});
    }
    tags_.push_back({own, "none", p});
    // The stable ABI: a cp3Y-abi3 wheel runs on any CPython >= 3.Y (abi3 starts at 3.2).
    if (cpython) {
      for (int m = python_minor - 1; m >= 2; --m) tags_.push_back({"cp" + major + std::to_string(m), "abi3", p});
    }
    for (const auto& g : generic) tags_.push_back({g, "none", p});
  }
  tags_.push_back({own, "none", "any"});
  for (const auto& g : generic) tags_.push_back({g, "none", "any"});

  for (size_t i = 0; i < tags_.size(); ++i) index_.emplace(tags_[i].to_string(), i);
}

TagPolicy TagPolicy::for_target(std::string_view python_version, std::string_view glibc_version,
                                std::string_view machine) {
  auto [py_major, py_minor] = major_minor(python_version);
  if (py_major != 3 || py_minor < 0) {
    throw InputError("invalid Python version '" + printable(python_version) + "' for wheel tags",
                     "give the target interpreter as 3.X, e.g. 3.11");
  }
  auto [libc_major, libc_minor] = major_minor(glibc_version);
  if (libc_major != 2 || libc_minor < 0) {
    throw InputError("invalid glibc version '" + printable(glibc_version) + "'", "give it as 2.Y, e.g. 2.35");
  }
  std::string arch(trim(machine));
  if (arch.empty() || !std::all_of(arch.begin(), arch.end(), [](char c) { return is_alnum(c) || c == '_'; })) {
    throw InputError("invalid machine '" + printable(machine) + "'", "use the uname -m name, e.g. x86_64 or aarch64");
  }
  return TagPolicy("cp", py_major, py_minor, libc_major, libc_minor, arch);
}

std::optional<size_t> TagPolicy::priority(const WheelTag& tag) const {
  auto it = index_.find(tag.to_string());
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

std::optional<size_t> TagPolicy::best_priority(const WheelFilename& wheel) const {
  std::optional<size_t> best;
  for (const auto& t : wheel.tags()) {
    auto p = priority(t);
    if (p && (!best || *p < *best)) best = p;
  }
  return best;
}

std::optional<size_t> choose_wheel(const std::vector<WheelFilename>& wheels, const TagPolicy& policy) {
  std::optional<size_t> chosen;
  size_t chosen_priority = 0;
  for (size_t i = 0; i < wheels.size(); ++i) {
    auto p = policy.best_priority(wheels[i]);
    if (!p) continue;
    bool better = !chosen || *p < chosen_priority;
    if (chosen && *p == chosen_priority) {
      // Same tag: the higher build tag wins; no build tag is lowest.
      const auto& a = wheels[i].build;
      const auto& b = wheels[*chosen].build;
      better = a && (!b || *a > *b);
    }
    if (better) {
      chosen = i;
      chosen_priority = *p;
    }
  }
  return chosen;
}

}  // namespace rp::python
