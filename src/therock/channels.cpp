#include "therock/channels.hpp"

namespace rp::therock {

namespace {

// The stable channel is promoted from prereleases; nightlies come from TheRock's scheduled builds.
constexpr Channel kChannels[] = {
    {"nightly", "https://rocm.nightlies.amd.com/v2/{family}/", "https://rocm.nightlies.amd.com/whl-multi-arch/"},
    {"prerelease", "https://rocm.prereleases.amd.com/v2/{family}/", "https://rocm.prereleases.amd.com/whl-multi-arch/"},
    {"release", "https://repo.amd.com/rocm/whl/{family}/", "https://repo.amd.com/rocm/whl-multi-arch/"},
};

}  // namespace

std::optional<Channel> find_channel(std::string_view name) {
  for (const auto& c : kChannels)
    if (c.name == name) return c;
  return std::nullopt;
}

std::vector<std::string> channel_names() {
  std::vector<std::string> out;
  for (const auto& c : kChannels) out.emplace_back(c.name);
  return out;
}

std::string expand_family(std::string_view url, std::string_view family) {
  std::string out(url);
  const std::string_view placeholder = "{family}";
  for (size_t at = out.find(placeholder); at != std::string::npos; at = out.find(placeholder, at + family.size()))
    out.replace(at, placeholder.size(), family);
  return out;
}

}  // namespace rp::therock
