#pragma once
// How the assemble stage reports what it is doing. The CLI draws it (live on a terminal, plain lines
// otherwise); tests and library users can ignore it.
#include <cstdint>
#include <string>

namespace rp {

class BuildProgress {
 public:
  virtual ~BuildProgress() = default;
  virtual void layer_started(const std::string& /*name*/, uint64_t /*expected_bytes*/) {}
  // Called from the thread writing the layer, every few MiB.
  virtual void layer_advanced(const std::string& /*name*/, uint64_t /*bytes_in*/, uint64_t /*bytes_out*/) {}
  virtual void layer_finished(const std::string& /*name*/, uint64_t /*bytes_in*/, uint64_t /*bytes_out*/,
                              bool /*from_cache*/) {}
};

}  // namespace rp
