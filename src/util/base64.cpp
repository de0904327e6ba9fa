#include "util/base64.hpp"

#include <openssl/evp.h>

#include <cctype>

namespace rp {

std::string base64_encode(std::string_view data) {
  std::string out(4 * ((data.size() + 2) / 3), '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(data.data()), static_cast<int>(data.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  std::string in;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) in += c;
  if (in.empty()) return std::string();
  // Some writers drop the padding; EVP_DecodeBlock needs it.
  while (in.size() % 4) in += '=';
  std::string out(3 * in.size() / 4, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
  if (n < 0) return std::nullopt;
  // EVP_DecodeBlock counts the padding as zero bytes.
  size_t pad = 0;
  if (in.size() >= 1 && in[in.size() - 1] == '=') ++pad;
  if (in.size() >= 2 && in[in.size() - 2] == '=') ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

}  // namespace rp
