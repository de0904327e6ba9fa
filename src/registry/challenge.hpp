#pragma once
// WWW-Authenticate challenges (RFC 7235): `Bearer realm="https://auth.example/token",service="reg",
// scope="repository:app:pull"`. Schemes are case-insensitive, parameters may be quoted strings (with
// backslash escapes and commas inside) or bare tokens, and one header may carry several challenges.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace rp::registry {

struct Challenge {
  std::string scheme;                         // lowercased: "bearer", "basic"
  std::map<std::string, std::string> params;  // names lowercased

  std::string param(const std::string& name) const {
    auto it = params.find(name);
    return it == params.end() ? std::string() : it->second;
  }
};

std::vector<Challenge> parse_challenges(std::string_view header);

}  // namespace rp::registry
