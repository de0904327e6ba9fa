#pragma once
// Small JSON records by kind and key that outlive a build: caches of what is slow to learn again
// (a wheel's metadata by its sha256, a layer by its content key). The content store keeps them; code
// that must not know the store (python, therock) sees only this.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace rp {

class RecordCache {
 public:
  virtual ~RecordCache() = default;
  // nullopt when there is no record (or it cannot be read: a cache miss, never an error).
  virtual std::optional<nlohmann::json> get_record(const std::string& kind, const std::string& key) const = 0;
  virtual void put_record(const std::string& kind, const std::string& key, const nlohmann::json& value) const = 0;
};

}  // namespace rp
