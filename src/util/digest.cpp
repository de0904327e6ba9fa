#include "util/digest.hpp"

#include <openssl/evp.h>

#include "util/error.hpp"

namespace rp {

struct Sha256::Impl {
  EVP_MD_CTX* ctx = nullptr;
};

Sha256::Sha256() : impl_(std::make_unique<Impl>()) {
  impl_->ctx = EVP_MD_CTX_new();
  if (!impl_->ctx || EVP_DigestInit_ex(impl_->ctx, EVP_sha256(), nullptr) != 1)
    throw Error("OpenSSL could not initialise SHA-256");
}

Sha256::~Sha256() { EVP_MD_CTX_free(impl_->ctx); }

void Sha256::update(const void* data, size_t size) {
  if (size) EVP_DigestUpdate(impl_->ctx, data, size);
}

std::string Sha256::finish_raw() {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(impl_->ctx, md, &len);
  EVP_DigestInit_ex(impl_->ctx, EVP_sha256(), nullptr);
  return std::string(reinterpret_cast<char*>(md), len);
}

std::string Sha256::finish_digest() { return "sha256:" + to_hex(finish_raw()); }

std::string to_hex(std::string_view raw) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(raw.size() * 2);
  for (unsigned char c : raw) {
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

std::string sha256_digest(std::string_view data) {
  Sha256 h;
  h.update(data);
  return h.finish_digest();
}

std::string sha256_hex(std::string_view data) { return sha256_digest(data).substr(7); }

bool is_sha256_hex(std::string_view hex) {
  if (hex.size() != 64) return false;
  for (char c : hex)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

bool is_valid_digest(std::string_view digest) {
  return digest.size() == 7 + 64 && digest.substr(0, 7) == "sha256:" && is_sha256_hex(digest.substr(7));
}

std::string digest_hex(std::string_view digest) {
  if (!is_valid_digest(digest))
    throw InputError("not a valid sha256 digest: '" + std::string(digest.substr(0, 80)) + "'",
                     "a digest looks like sha256:<64 lowercase hex digits>");
  return std::string(digest.substr(7));
}

void HashingSink::write(const void* data, size_t size) {
  sha256_.update(data, size);
  count_ += size;
  if (next_) next_->write(data, size);
}

}  // namespace rp
