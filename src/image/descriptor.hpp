#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "util/platform.hpp"

namespace rp {

// An OCI content descriptor: what a blob is, its digest and its size.
struct Descriptor {
  std::string media_type;
  std::string digest;  // "sha256:<hex>"
  int64_t size = 0;
  std::map<std::string, std::string> annotations;
  std::optional<Platform> platform;

  nlohmann::json to_json() const;
  // mediaType, digest and size only, never annotations or platform: how an artifact's layers and
  // subject and the layer cache's list name a blob.
  nlohmann::json to_bare_json() const;
  // Validates the digest and size; throws rp::Error naming `where` when the JSON is malformed.
  static Descriptor from_json(const nlohmann::json& j, const std::string& where);
  // The descriptor of `bytes` stored as a blob of `media_type` (its sha256 and size).
  static Descriptor of_bytes(const std::string& media_type, const std::string& bytes);
};

// The platform an image config says it is for (os, architecture, variant; linux/amd64 when unsaid).
Platform platform_of_config(const nlohmann::json& config);

}  // namespace rp
