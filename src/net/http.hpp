#pragma once
// A small HTTP client over libcurl: one request in, status + headers + body out. It knows nothing of
// registries; retries, auth and error messages live a layer above (transport.hpp).
//
// Redirects are followed here, by hand, so that an Authorization header is dropped whenever the
// redirect leaves the original host (registries redirect blob downloads to storage servers, which must
// never see the registry credentials). Response bodies of successful requests can stream into a
// ByteSink (blob downloads never sit in memory); other bodies are kept, bounded, for error messages.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "util/byte_sink.hpp"
#include "util/error.hpp"

namespace rp::net {

using Headers = std::vector<std::pair<std::string, std::string>>;

// A request body read from a byte range of a file: how blobs are uploaded without loading them.
struct FileRange {
  std::filesystem::path path;
  uint64_t offset = 0;
  uint64_t length = 0;
};

struct HttpRequest {
  std::string method = "GET";
  std::string url;
  Headers headers;
  std::string body;                     // sent when `file` is not set
  std::optional<FileRange> file;        // body from a file range
  ByteSink* sink = nullptr;             // a 2xx body is streamed here instead of into response.body
  // Called with the status of a 2xx response before its first body byte reaches `sink`
  // (a resumed download learns whether the server honoured its Range).
  std::function<void(long status)> before_sink;
  // Called while bytes move (a few times a second at most): body bytes received and expected
  // (Content-Length; 0 when unknown), request body bytes sent and to send.
  std::function<void(uint64_t down, uint64_t down_total, uint64_t up, uint64_t up_total)> on_progress;
  bool verify_tls = true;
  size_t max_body = 8u << 20;           // bodies kept in memory larger than this are an error
  long timeout_ms = 0;                  // for the whole exchange; 0 = none (stalls are caught anyway)
};

struct HttpResponse {
  long status = 0;
  Headers headers;  // names lowercased, in order received (of the final response after redirects)
  std::string body;
  std::string url;  // the URL that answered (after redirects)

  std::optional<std::string> header(std::string_view name) const;  // first one, case-insensitive
  std::vector<std::string> header_all(std::string_view name) const;
  bool ok() const { return status >= 200 && status < 300; }
};

// The connection failed (refused, reset, timed out, TLS): no HTTP status to look at. Retryable.
class TransportError : public rp::Error {
 public:
  TransportError(std::string message, bool tls, std::string hint = {}, bool name_unresolved = false)
      : rp::Error(std::move(message), std::move(hint)), tls_(tls), name_unresolved_(name_unresolved) {}
  bool tls_failure() const { return tls_; }
  // The host name did not resolve (DNS): no scheme or port would help.
  bool name_unresolved() const { return name_unresolved_; }

 private:
  bool tls_;
  bool name_unresolved_;
};

// Performs the request, following up to 10 redirects. Throws TransportError when no response came.
// Thread-safe: every thread keeps its own curl handle (and with it its connection cache).
HttpResponse perform(const HttpRequest& request);

// "Authorization: Bearer abc" -> "Authorization: <redacted>". Used for every header that is logged.
std::string redact_header(const std::string& name, const std::string& value);

}  // namespace rp::net
