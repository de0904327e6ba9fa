#include "therock/channels.hpp"

namespace rp::therock {

namespace {

// TheRock's streams (build_tools/_therock_utils/s3_buckets.py, get_release_package_index_url):
// each is one whl-next index. Keep this the only place their URLs are written.
constexpr Channel kChannels[] = {
    {"nightly", "https://nightly.repo.amd.com/rocm/whl-next/", "scheduled builds of the development branch, X.Y.ZaYYYYMMDD"},
    {"dev", "https://dev.repo.amd.com/rocm/whl-next/", "builds of individual commits, X.Y.Z.dev0+<sha>"},
    {"rc", "https://rc.repo.amd.com/rocm/whl-next/", "release candidates, X.Y.ZrcN"},
    {"bkc", "https://bkc.repo.amd.com/rocm/whl-next/", "nightlies that passed the best-known-configuration tests"},
    {"stable", "https://stable.repo.amd.com/rocm/whl-next/", "releases"},
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
