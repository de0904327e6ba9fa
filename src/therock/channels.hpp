#pragma once
// TheRock's published Python indexes (docs/packaging/versioning.md in TheRock): each release channel
// has per-family indexes (one complete set of ROCm and torch wheels per GPU family, the layout
// PyTorch's CI uses) and a multi-arch index (arch-neutral libraries plus one device package per
// GPU target).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rp::therock {

struct Channel {
  std::string_view name;             // "nightly"
  std::string_view per_family_url;   // with "{family}"
  std::string_view multi_arch_url;
};

// The channel called `name`, if there is one.
std::optional<Channel> find_channel(std::string_view name);
std::vector<std::string> channel_names();

// `url` with every "{family}" replaced.
std::string expand_family(std::string_view url, std::string_view family);

}  // namespace rp::therock
