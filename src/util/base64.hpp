#pragma once
// Standard base64 (with padding), as docker's config.json stores "user:password".
#include <optional>
#include <string>
#include <string_view>

namespace rp {

std::string base64_encode(std::string_view data);
// nullopt when `text` is not valid base64.
std::optional<std::string> base64_decode(std::string_view text);

}  // namespace rp
