#include "util/platform.hpp"

#include "util/error.hpp"

namespace rp {

Platform Platform::parse(std::string_view text) {
  Platform p;
  std::string s(text);
  auto slash = s.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == s.size())
    throw InputError("invalid platform '" + s + "'", "write it as os/architecture, e.g. linux/amd64 or linux/arm64/v8");
  p.os = s.substr(0, slash);
  std::string rest = s.substr(slash + 1);
  auto slash2 = rest.find('/');
  if (slash2 != std::string::npos) {
    p.variant = rest.substr(slash2 + 1);
    rest = rest.substr(0, slash2);
    if (p.variant.empty() || p.variant.find('/') != std::string::npos)
      throw InputError("invalid platform '" + s + "'", "write it as os/architecture[/variant]");
  }
  p.architecture = rest;
  return p;
}

std::string Platform::str() const {
  return os + "/" + architecture + (variant.empty() ? "" : "/" + variant);
}

nlohmann::json Platform::to_json() const {
  nlohmann::json j = {{"architecture", architecture}, {"os", os}};
  if (!variant.empty()) j["variant"] = variant;
  return j;
}

Platform Platform::from_json(const nlohmann::json& j) {
  Platform p;
  p.os = j.value("os", "");
  p.architecture = j.value("architecture", "");
  p.variant = j.value("variant", "");
  return p;
}

bool Platform::matches(const Platform& other) const {
  if (os != other.os || architecture != other.architecture) return false;
  auto norm = [&](const std::string& v) { return (v.empty() && architecture == "arm64") ? std::string("v8") : v; };
  std::string a = norm(variant), b = norm(other.variant);
  return a.empty() || b.empty() || a == b;
}

}  // namespace rp
