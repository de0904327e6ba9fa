#pragma once
// Reading one member (the .dist-info/METADATA) out of a wheel that is still on a server, with HTTP
// Range requests: the tail of the file (end-of-central-directory record, zip64 records, usually the
// whole central directory), then the one member's local header and data. Resolving against a 1 GB
// ROCm wheel without a PEP 658 metadata file then costs tens of kilobytes instead of a gigabyte.
//
// The parsing half works on byte buffers and is separate from the fetching half, so it can be
// fuzzed and tested on in-memory zips. Everything read is untrusted: every offset and length is
// bounds-checked, sizes are capped, and the member's CRC-32 is verified.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "net/http.hpp"
#include "python/wheel_archive.hpp"
#include "python/zip_format.hpp"
#include "net/retry.hpp"

namespace rp::python {

// ---- Parsing (pure functions over bytes) ----

// The "<dist>.dist-info/METADATA" member at the top of the archive. With several .dist-info
// directories, the one whose name matches `project` (normalized) is taken. nullptr when none.
const ZipMember* find_metadata_member(const std::vector<ZipMember>& members, std::string_view project);

// The member's uncompressed bytes from `bytes`, which start at its local header. Checks the local
// header, the size and the CRC-32. Returns nullopt when `bytes` is too short, with `*need` set to
// the length required (local header + name + extra + data). Throws rp::InputError when the member
// is bigger than `max_size`, uses an unsupported method or fails a check.
std::optional<std::string> extract_member(const ZipMember& member, std::string_view bytes, uint64_t max_size,
                                          std::string_view display_name, uint64_t* need);

// ---- Fetching ----

// Counts what range reads cost, so tests and benchmarks can assert it.
struct RangeStats {
  uint64_t requests = 0;
  uint64_t bytes = 0;  // response body bytes received
};

// Byte ranges of one remote file.
class RangeSource {
 public:
  virtual ~RangeSource() = default;
  // The last `length` bytes (all of them when the file is smaller) and the file's total size.
  virtual std::string read_tail(uint64_t length, uint64_t* file_size) = 0;
  // Exactly `length` bytes at `offset` (the caller keeps within the file size it was told).
  virtual std::string read_range(uint64_t offset, uint64_t length) = 0;
};

// The server can only give the whole wheel (no Range, no PEP 658), and it is larger than
// max_full_download: a caller with somewhere to put it downloads it whole (the wheel is about to be
// installed anyway) and reads its metadata there.
class WholeWheelNeeded : public Error {
 public:
  using Error::Error;
};

struct RemoteReadOptions {
  uint64_t tail_size = 64 * 1024;                // first suffix request
  uint64_t max_directory_size = 64ull << 20;     // a larger central directory is refused
  uint64_t max_member_size = 16ull << 20;        // METADATA larger than this is refused
  uint64_t max_full_download = 8ull << 20;       // a server ignoring Range: take the whole file up to this
  bool verify_tls = true;
  net::RetryPolicy retry{3, std::chrono::milliseconds(300), std::chrono::milliseconds(3000),
                              std::chrono::seconds(30)};
};

// A file on an HTTP(S) server. `headers` go with every request (credentials for the index host; the
// HTTP layer drops Authorization when a redirect leaves that host). A server that ignores Range
// (answers 200) or refuses it (416) gets one plain GET, kept in memory when the file is at most
// `max_full_download` bytes and otherwise cut off early with an error. Transient failures are retried.
class HttpRangeSource final : public RangeSource {
 public:
  HttpRangeSource(std::string url, net::Headers headers, RangeStats* stats, RemoteReadOptions options = {});
  std::string read_tail(uint64_t length, uint64_t* file_size) override;
  std::string read_range(uint64_t offset, uint64_t length) override;

 private:
  void download_whole_file(const std::string& why);

  std::string url_;
  net::Headers headers_;
  RangeStats* stats_;
  RemoteReadOptions options_;
  std::optional<std::string> whole_file_;  // set once the server made us download everything
};

// The text of the wheel's METADATA, read through `source`. `display_name` names the wheel in
// messages (a file name or a redacted URL); `project` is the expected (normalized) project name.
// Throws rp::InputError for a bad archive, rp::Error for transfer failures.
std::string read_remote_metadata(RangeSource& source, std::string_view display_name, std::string_view project,
                                 const RemoteReadOptions& options = {});

}  // namespace rp::python
