#pragma once
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace rp {

// os/architecture[/variant], as in "linux/amd64" or "linux/arm64/v8".
struct Platform {
  std::string os = "linux";
  std::string architecture = "amd64";
  std::string variant;

  static Platform parse(std::string_view text);  // throws InputError
  std::string str() const;
  nlohmann::json to_json() const;
  static Platform from_json(const nlohmann::json& j);
  // True when an index entry for `other` can run here (variant compared only when both have one,
  // arm64 treats a missing variant as v8).
  bool matches(const Platform& other) const;
  bool operator==(const Platform&) const = default;
};

}  // namespace rp
