#include "apt/signature.hpp"

#include <rnp/rnp.h>
#include <rnp/rnp_err.h>

#include <memory>

#include "util/error.hpp"

namespace rp::apt {

namespace {

// Owners of RNP's handles and buffers.
struct FfiDeleter {
  void operator()(rnp_ffi_st* p) const { rnp_ffi_destroy(p); }
};
struct InputDeleter {
  void operator()(rnp_input_st* p) const { rnp_input_destroy(p); }
};
struct OutputDeleter {
  void operator()(rnp_output_st* p) const { rnp_output_destroy(p); }
};
struct VerifyDeleter {
  void operator()(rnp_op_verify_st* p) const { rnp_op_verify_destroy(p); }
};
struct KeyDeleter {
  void operator()(rnp_key_handle_st* p) const { rnp_key_handle_destroy(p); }
};
struct SignatureDeleter {
  void operator()(rnp_signature_handle_st* p) const { rnp_signature_handle_destroy(p); }
};
using Ffi = std::unique_ptr<rnp_ffi_st, FfiDeleter>;
using Input = std::unique_ptr<rnp_input_st, InputDeleter>;
using Output = std::unique_ptr<rnp_output_st, OutputDeleter>;
using VerifyOp = std::unique_ptr<rnp_op_verify_st, VerifyDeleter>;
using Key = std::unique_ptr<rnp_key_handle_st, KeyDeleter>;
using SignatureHandle = std::unique_ptr<rnp_signature_handle_st, SignatureDeleter>;

// An RNP-allocated string, copied and freed.
std::string take(char* s) {
  std::string out = s ? s : "";
  rnp_buffer_destroy(s);
  return out;
}

Input memory_input(std::string_view bytes) {
  rnp_input_t in = nullptr;
  if (rnp_input_from_memory(&in, reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), false) != RNP_SUCCESS)
    throw Error("OpenPGP: cannot create an input buffer");
  return Input(in);
}

// A key store holding exactly the keys of `keys`.
Ffi load_keyring(const Keyring& keys, const std::string& what) {
  rnp_ffi_t raw = nullptr;
  if (rnp_ffi_create(&raw, "GPG", "GPG") != RNP_SUCCESS) throw Error("OpenPGP: cannot initialise RNP");
  Ffi ffi(raw);
  if (keys.files.empty())
    throw Error(what + ": no key to verify its signature with",
                "give the source a key (signed_by:), or opt out of verification with trusted: true");
  for (const auto& file : keys.files) {
    size_t before = 0, after = 0;
    rnp_get_public_key_count(ffi.get(), &before);
    Input in = memory_input(file.bytes);
    char* results = nullptr;
    rnp_result_t rc = rnp_import_keys(ffi.get(), in.get(), RNP_LOAD_SAVE_PUBLIC_KEYS | RNP_LOAD_SAVE_PERMISSIVE, &results);
    rnp_buffer_destroy(results);
    rnp_get_public_key_count(ffi.get(), &after);
    if (rc != RNP_SUCCESS || after == before)
      throw Error(what + ": the key file " + file.name + " holds no OpenPGP public key RNP can read" +
                      (rc != RNP_SUCCESS ? std::string(" (") + rnp_result_to_string(rc) + ")" : std::string()),
                  "signed_by takes a binary keyring (.gpg) or an ASCII-armored key (.asc), not a keybox (.kbx)");
  }
  return ffi;
}

struct SignatureReport {
  int good = 0;
  int bad = 0;
  std::vector<std::string> problems;  // one line per signature that did not count
  std::string fingerprint, user_id;
};

SignatureReport examine(rnp_op_verify_t op) {
  SignatureReport report;
  size_t count = 0;
  rnp_op_verify_get_signature_count(op, &count);
  for (size_t i = 0; i < count; ++i) {
    rnp_op_verify_signature_t sig = nullptr;
    if (rnp_op_verify_get_signature_at(op, i, &sig) != RNP_SUCCESS) continue;
    rnp_result_t status = rnp_op_verify_signature_get_status(sig);
    std::string keyid;
    rnp_signature_handle_t handle_raw = nullptr;
    if (rnp_op_verify_signature_get_handle(sig, &handle_raw) == RNP_SUCCESS) {
      SignatureHandle handle(handle_raw);
      char* id = nullptr;
      if (rnp_signature_get_keyid(handle.get(), &id) == RNP_SUCCESS) keyid = take(id);
    }
    if (status == RNP_SUCCESS) {
      ++report.good;
      rnp_key_handle_t key_raw = nullptr;
      if (report.fingerprint.empty() && rnp_op_verify_signature_get_key(sig, &key_raw) == RNP_SUCCESS && key_raw) {
        Key key(key_raw);
        char* fpr = nullptr;
        bool primary = false;
        rnp_key_is_primary(key.get(), &primary);
        if ((primary ? rnp_key_get_fprint(key.get(), &fpr) : rnp_key_get_primary_fprint(key.get(), &fpr)) == RNP_SUCCESS)
          report.fingerprint = take(fpr);
      }
      continue;
    }
    std::string who = keyid.empty() ? "a signature" : "the signature by key " + keyid;
    switch (status) {
      case RNP_ERROR_SIGNATURE_INVALID:
        ++report.bad;
        report.problems.push_back(who + " is BAD: the signed text was changed after signing");
        break;
      case RNP_ERROR_KEY_NOT_FOUND:
        report.problems.push_back(who + " was made with a key that is not in the keyring");
        break;
      case RNP_ERROR_SIGNATURE_EXPIRED:
        report.problems.push_back(who + " has expired (or its key had expired or was revoked when it was made)");
        break;
      default:
        report.problems.push_back(who + " could not be checked: " + rnp_result_to_string(status));
    }
  }
  return report;
}

VerifiedText finish(Ffi& ffi, rnp_op_verify_t op, rnp_result_t executed, std::string text, const Keyring& keys,
                    const std::string& what) {
  SignatureReport report = examine(op);
  std::string reasons;
  for (const auto& p : report.problems) reasons += "\n  " + p;
  if (report.bad > 0 || report.good == 0 || executed != RNP_SUCCESS) {
    if (report.problems.empty() && report.good == 0) reasons = "\n  no OpenPGP signature was found";
    if (report.good > 0 && report.bad == 0) reasons += std::string("\n  ") + rnp_result_to_string(executed);
    throw Error(what + ": signature verification failed with the keyring " + keys.describe() + ":" + reasons,
                "nothing from this repository was used; check the source's signed_by key, or that the mirror is "
                "not serving tampered or stale files");
  }
  VerifiedText out;
  out.text = std::move(text);
  out.fingerprint = report.fingerprint;
  if (!report.fingerprint.empty()) {
    rnp_key_handle_t key_raw = nullptr;
    if (rnp_locate_key(ffi.get(), "fingerprint", report.fingerprint.c_str(), &key_raw) == RNP_SUCCESS && key_raw) {
      Key key(key_raw);
      char* uid = nullptr;
      if (rnp_key_get_primary_uid(key.get(), &uid) == RNP_SUCCESS) out.user_id = take(uid);
    }
  }
  return out;
}

bool only_blank(std::string_view s) {
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return false;
  return true;
}

}  // namespace

std::string Keyring::describe() const {
  std::string s;
  for (const auto& f : files) s += (s.empty() ? "" : ", ") + f.name;
  return s.empty() ? "(none)" : s;
}

VerifiedText verify_inrelease(std::string_view inrelease, const Keyring& keys, const std::string& what) {
  // Only a file that is one signed message and nothing else: text before the header or after the
  // signature would be read by some parsers and not covered by the signature.
  constexpr std::string_view kBegin = "-----BEGIN PGP SIGNED MESSAGE-----";
  constexpr std::string_view kEnd = "-----END PGP SIGNATURE-----";
  size_t begin = inrelease.find(kBegin);
  if (begin == std::string_view::npos)
    throw Error(what + ": InRelease is not signed (no '" + std::string(kBegin) + "')",
                "the repository must sign its Release file; if it really publishes unsigned indexes, set trusted: true "
                "on the source (its packages are then installed unverified)");
  size_t end = inrelease.rfind(kEnd);
  if (!only_blank(inrelease.substr(0, begin)) || end == std::string_view::npos ||
      !only_blank(inrelease.substr(end + kEnd.size())) || inrelease.find(kBegin, begin + 1) != std::string_view::npos)
    throw Error(what + ": InRelease has text outside its signed message",
                "a valid InRelease is one clearsigned message; the file was tampered with or is damaged");
  Ffi ffi = load_keyring(keys, what);
  Input in = memory_input(inrelease);
  rnp_output_t out_raw = nullptr;
  if (rnp_output_to_memory(&out_raw, 64u << 20) != RNP_SUCCESS) throw Error("OpenPGP: cannot create an output buffer");
  Output out(out_raw);
  rnp_op_verify_t op_raw = nullptr;
  if (rnp_op_verify_create(&op_raw, ffi.get(), in.get(), out.get()) != RNP_SUCCESS)
    throw Error(what + ": InRelease cannot be read as an OpenPGP message");
  VerifyOp op(op_raw);
  rnp_result_t executed = rnp_op_verify_execute(op.get());
  uint8_t* buf = nullptr;
  size_t len = 0;
  std::string text;
  if (rnp_output_memory_get_buf(out.get(), &buf, &len, false) == RNP_SUCCESS && buf) text.assign(reinterpret_cast<char*>(buf), len);
  return finish(ffi, op.get(), executed, std::move(text), keys, what);
}

VerifiedText verify_detached(std::string_view release, std::string_view signature, const Keyring& keys,
                             const std::string& what) {
  Ffi ffi = load_keyring(keys, what);
  Input data = memory_input(release);
  Input sig = memory_input(signature);
  rnp_op_verify_t op_raw = nullptr;
  if (rnp_op_verify_detached_create(&op_raw, ffi.get(), data.get(), sig.get()) != RNP_SUCCESS)
    throw Error(what + ": Release.gpg cannot be read as an OpenPGP signature");
  VerifyOp op(op_raw);
  rnp_result_t executed = rnp_op_verify_execute(op.get());
  return finish(ffi, op.get(), executed, std::string(release), keys, what);
}

std::string unverified_cleartext(std::string_view inrelease, const std::string& what) {
  constexpr std::string_view kBegin = "-----BEGIN PGP SIGNED MESSAGE-----";
  constexpr std::string_view kSignature = "-----BEGIN PGP SIGNATURE-----";
  size_t begin = inrelease.find(kBegin);
  size_t sig = inrelease.find(kSignature);
  if (begin == std::string_view::npos || sig == std::string_view::npos || sig < begin)
    throw Error(what + ": InRelease is not a clearsigned message");
  // Armor headers ("Hash: SHA512") end at the first empty line.
  size_t body = inrelease.find("\n\n", begin);
  if (body == std::string_view::npos || body > sig) throw Error(what + ": InRelease has no message body");
  std::string_view text = inrelease.substr(body + 2, sig - body - 2);
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    if (line.rfind("- ", 0) == 0) line.remove_prefix(2);  // dash-escaped (RFC 4880, 7.1)
    out.append(line);
    out.push_back('\n');
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  // The newline before the signature armor belongs to the armor.
  if (!out.empty()) out.pop_back();
  return out;
}

std::vector<std::string> key_fingerprints(const Keyring& keys) {
  Ffi ffi = load_keyring(keys, "the keyring");
  std::vector<std::string> out;
  rnp_identifier_iterator_t it = nullptr;
  if (rnp_identifier_iterator_create(ffi.get(), &it, "fingerprint") != RNP_SUCCESS) return out;
  const char* id = nullptr;
  while (rnp_identifier_iterator_next(it, &id) == RNP_SUCCESS && id) {
    rnp_key_handle_t key_raw = nullptr;
    if (rnp_locate_key(ffi.get(), "fingerprint", id, &key_raw) != RNP_SUCCESS || !key_raw) continue;
    Key key(key_raw);
    bool primary = false;
    rnp_key_is_primary(key.get(), &primary);
    if (primary) out.emplace_back(id);
  }
  rnp_identifier_iterator_destroy(it);
  return out;
}

}  // namespace rp::apt
