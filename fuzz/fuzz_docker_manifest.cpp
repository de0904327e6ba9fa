// Fuzzes the reading of a docker archive's manifest.json and config (docker_image_from_members), on
// its own: the whole-archive target (fuzz_image_archive) rarely gets past the tar checksums to the
// JSON. The input is split at lines holding only "#": the first part is manifest.json, each other
// part is a member whose first line is its name and the rest its content; a name "A -> B" makes A a
// link to B instead. Only rp::Error may come out. Checked: every layer is a member of the archive
// (links followed) with the size the archive gives, and a layer digest is a well-formed digest.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "output/image_reader.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

namespace {

std::vector<std::string_view> split_parts(std::string_view input) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  for (;;) {
    size_t at = input.find("\n#\n", start);
    if (at == std::string_view::npos) break;
    parts.push_back(input.substr(start, at - start));
    start = at + 3;
  }
  parts.push_back(input.substr(start));
  return parts;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  auto parts = split_parts(input);
  rp::DockerArchiveMembers members;
  members.small_json["manifest.json"] = std::string(parts[0]);
  members.sizes["manifest.json"] = parts[0].size();
  for (size_t i = 1; i < parts.size(); ++i) {
    std::string_view part = parts[i];
    size_t newline = part.find('\n');
    std::string name(part.substr(0, newline));
    std::string_view content = newline == std::string_view::npos ? std::string_view() : part.substr(newline + 1);
    size_t arrow = name.find(" -> ");
    if (arrow != std::string::npos) {
      members.links[name.substr(0, arrow)] = name.substr(arrow + 4);
      continue;
    }
    members.sizes[name] = content.size();
    members.small_json[name] = std::string(content);
  }
  const auto sizes = members.sizes;
  try {
    rp::LocalImage img = rp::docker_image_from_members("fuzz.tar", std::move(members));
    for (const auto& layer : img.layers) {
      auto it = sizes.find(layer.path);
      if (it == sizes.end() || it->second != layer.size) __builtin_trap();
      if (!layer.digest.empty() && !rp::is_valid_digest(layer.digest)) __builtin_trap();
    }
  } catch (const rp::Error&) {
  }
  return 0;
}
