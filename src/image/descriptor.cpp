#include "image/descriptor.hpp"

#include "util/digest.hpp"
#include "util/error.hpp"

namespace rp {

nlohmann::json Descriptor::to_json() const {
  nlohmann::json j = {{"mediaType", media_type}, {"digest", digest}, {"size", size}};
  if (!annotations.empty()) j["annotations"] = annotations;
  if (platform) j["platform"] = platform->to_json();
  return j;
}

nlohmann::json Descriptor::to_bare_json() const {
  return {{"mediaType", media_type}, {"digest", digest}, {"size", size}};
}

Descriptor Descriptor::from_json(const nlohmann::json& j, const std::string& where) {
  if (!j.is_object()) throw Error(where + ": a descriptor is not a JSON object");
  Descriptor d;
  auto str_field = [&](const char* key, bool required) -> std::string {
    auto it = j.find(key);
    if (it == j.end()) {
      if (required) throw Error(where + ": descriptor has no \"" + std::string(key) + "\"");
      return {};
    }
    if (!it->is_string()) throw Error(where + ": descriptor field \"" + std::string(key) + "\" is not a string");
    return it->get<std::string>();
  };
  d.media_type = str_field("mediaType", false);
  d.digest = str_field("digest", true);
  if (!is_valid_digest(d.digest))
    throw Error(where + ": descriptor digest '" + d.digest.substr(0, 80) + "' is not a sha256 digest");
  auto size = j.find("size");
  if (size == j.end() || !size->is_number_integer() || size->get<int64_t>() < 0)
    throw Error(where + ": descriptor of " + d.digest + " has no valid size");
  d.size = size->get<int64_t>();
  if (auto a = j.find("annotations"); a != j.end() && a->is_object()) {
    for (auto& [k, v] : a->items())
      if (v.is_string()) d.annotations[k] = v.get<std::string>();
  }
  if (auto p = j.find("platform"); p != j.end() && p->is_object()) d.platform = Platform::from_json(*p);
  return d;
}

Descriptor Descriptor::of_bytes(const std::string& media_type, const std::string& bytes) {
  Descriptor d;
  d.media_type = media_type;
  d.digest = sha256_digest(bytes);
  d.size = static_cast<int64_t>(bytes.size());
  return d;
}

Platform platform_of_config(const nlohmann::json& config) {
  Platform p;
  p.os = config.value("os", "linux");
  p.architecture = config.value("architecture", "amd64");
  p.variant = config.value("variant", "");
  return p;
}

}  // namespace rp
