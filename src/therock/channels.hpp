#pragma once
// TheRock's published Python package streams. Every stream is served from one whl-next index
// (`https://<stream>.repo.amd.com/rocm/whl-next/`): an aggregate root whose package pages are
// routed to the product that owns them (rocm/core/whl-next, rocm/pytorch/whl-next). The older
// layouts (flat whl-multi-arch, legacy per-family) are reached by giving their URL as `index:`.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rp::therock {

struct Channel {
  std::string_view name;  // "nightly"
  std::string_view url;   // the whl-next root
  std::string_view what;  // one line for docs and messages
};

// The channel called `name`, if there is one.
std::optional<Channel> find_channel(std::string_view name);
std::vector<std::string> channel_names();
// The channel a `rocm:` section without `channel:` or `index:` uses.
constexpr std::string_view kDefaultChannel = "nightly";

// `url` with every "{family}" replaced (legacy per-family index URLs).
std::string expand_family(std::string_view url, std::string_view family);

}  // namespace rp::therock
