#pragma once
// The check of a wheel's members against the sha256 its RECORD lists, made while each member streams
// into the layer (ZipMemberContent::write_to hashes the bytes on their way to the tar writer): the
// member is read once, for the layer, never a second time for the check. pip refuses a wheel whose
// member does not match its RECORD row; a build warns, once per wheel, and keeps the wheel's bytes,
// or with `rockpack build --strict` fails. One RecordCheck per wheel, shared by its members' content
// sources; members may be written from several threads.
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

namespace rp::python {

class RecordCheck {
 public:
  // Told the message of the first mismatch of a wheel (not in strict mode), from the thread that
  // found it: the build remembers it in the store, so that a warm build, whose layer comes from the
  // cache and streams nothing, still warns or refuses (plan/python_step.cpp).
  using MismatchHook = std::function<void(const std::string& message)>;

  // `wheel` is the wheel's file name, for messages. `strict`: a mismatch throws instead of warning.
  // `already_reported`: the build has warned about this wheel already (a mismatch it remembered).
  RecordCheck(std::string wheel, bool strict, MismatchHook on_mismatch = {}, bool already_reported = false)
      : wheel_(std::move(wheel)), strict_(strict), on_mismatch_(std::move(on_mismatch)),
        mismatches_(already_reported ? 1 : 0) {}

  // Compares what `member`'s bytes hashed to (`actual_hash` in RECORD's "sha256=<urlsafe b64>" form,
  // `actual_size` bytes) with its RECORD row (`expected_hash`, and `expected_size` unless empty). A
  // mismatch is a warning the first time for this wheel (later ones are counted, not logged), or
  // with `strict` the error of refuse_record_mismatch.
  void check(const std::string& member, const std::string& expected_hash, const std::string& expected_size,
             const std::string& actual_hash, uint64_t actual_size);

  // Whether a RECORD row's hash is one this check can verify (sha256; RECORD may name another
  // hashlib algorithm, which is left unchecked).
  static bool checkable(const std::string& record_hash) { return record_hash.rfind("sha256=", 0) == 0; }

  size_t mismatches() const;

 private:
  std::string wheel_;
  bool strict_;
  MismatchHook on_mismatch_;
  mutable std::mutex mutex_;
  size_t mismatches_ = 0;
};

// The --strict refusal of a mismatch described by `message` ("<wheel>: '<member>' does not match its
// RECORD row (...)"): an rp::Error (exit 1, as for any download whose bytes do not match their hash)
// with what to do.
[[noreturn]] void refuse_record_mismatch(const std::string& message);
// The warning for it, which says what the build did and how to refuse such a wheel.
void warn_record_mismatch(const std::string& message);

}  // namespace rp::python
