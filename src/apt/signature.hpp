#pragma once
// OpenPGP verification of a repository's Release file, through RNP (librnp; no OpenPGP is written
// here): InRelease (cleartext-signed) or Release + Release.gpg (detached), against the keys the
// source is configured with and nothing else.
//
// A file passes when at least one signature is valid and made by one of the given keys, and no
// signature is bad (a bad one means the bytes were changed). Signatures by keys not in the keyring
// are ignored, as apt's gpgv does (Debian signs with several keys at once). For InRelease, only
// the signed text is returned: text outside the signed part is refused, not read.
#include <string>
#include <string_view>
#include <vector>

namespace rp::apt {

// Keys as they are stored: binary OpenPGP keyrings (.gpg) or ASCII-armored (.asc) blocks, any
// number of keys per file.
struct Keyring {
  struct KeyFile {
    std::string name;   // for messages: "/usr/share/keyrings/debian-archive-keyring.gpg", "signed_by (inline)"
    std::string bytes;
  };
  std::vector<KeyFile> files;

  // "a.gpg, b.asc"
  std::string describe() const;
};

struct VerifiedText {
  std::string text;          // the signed content (InRelease: without the armor; Release: as given)
  std::string fingerprint;   // of the key that made the valid signature (primary key, uppercase hex)
  std::string user_id;       // its primary user id, when it has one
};

// Throws rp::Error when no key can be read from `keys` (naming the file) or when verification fails:
// the message names `what` (the source), the keyring and what failed (no signature, bad signature,
// unknown key with its id, expired key or signature).
VerifiedText verify_inrelease(std::string_view inrelease, const Keyring& keys, const std::string& what);
VerifiedText verify_detached(std::string_view release, std::string_view signature, const Keyring& keys,
                             const std::string& what);

// The signed text of a clearsigned InRelease WITHOUT checking its signature: only for a source the
// recipe marked `trusted: true` (dash-escaped lines unescaped, the armor headers dropped). Throws
// rp::Error naming `what` when the text is no clearsigned message.
std::string unverified_cleartext(std::string_view inrelease, const std::string& what);

// The fingerprints of the primary keys in `keys` (for messages and the image label). Throws rp::Error
// when a file holds no readable key.
std::vector<std::string> key_fingerprints(const Keyring& keys);

}  // namespace rp::apt
