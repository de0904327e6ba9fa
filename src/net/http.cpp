#include "net/http.hpp"

#include <curl/curl.h>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <mutex>

#include "net/url.hpp"

namespace rp::net {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

void global_init() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

// One easy handle per thread, reset between requests: curl keeps the connection cache in the handle,
// so consecutive requests of a worker reuse their TCP/TLS connection.
struct ThreadHandle {
  CURL* curl = nullptr;
  ThreadHandle() {
    global_init();
    curl = curl_easy_init();
  }
  ~ThreadHandle() {
    if (curl) curl_easy_cleanup(curl);
  }
};

CURL* thread_curl() {
  static thread_local ThreadHandle handle;
  if (!handle.curl) throw rp::Error("cannot initialise libcurl");
  curl_easy_reset(handle.curl);
  return handle.curl;
}

// State of one request/response exchange, shared with the curl callbacks.
struct Exchange {
  CURL* curl = nullptr;
  const HttpRequest* request = nullptr;
  HttpResponse* response = nullptr;
  // Body source.
  int fd = -1;
  uint64_t offset = 0;
  uint64_t remaining = 0;
  const std::string* memory = nullptr;
  size_t memory_pos = 0;
  // Body sink decision is made on the first body byte, once the status is known.
  bool decided = false;
  bool to_sink = false;
  bool too_large = false;
  std::string sink_error;
};

size_t on_header(char* data, size_t size, size_t n, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  std::string_view line(data, size * n);
  // A new status line starts a new header block (100 Continue, or the final response).
  if (line.starts_with("HTTP/")) {
    ex->response->headers.clear();
    return size * n;
  }
  auto colon = line.find(':');
  if (colon != std::string_view::npos)
    ex->response->headers.emplace_back(lower(std::string(line.substr(0, colon))), trim(line.substr(colon + 1)));
  return size * n;
}

size_t on_body(char* data, size_t size, size_t n, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  size_t len = size * n;
  if (!ex->decided) {
    long status = 0;
    curl_easy_getinfo(ex->curl, CURLINFO_RESPONSE_CODE, &status);
    ex->to_sink = ex->request->sink && status >= 200 && status < 300;
    ex->decided = true;
    if (ex->to_sink && ex->request->before_sink) {
      try {
        ex->request->before_sink(status);
      } catch (const std::exception& e) {
        ex->sink_error = e.what();
        return 0;
      }
    }
  }
  if (ex->to_sink) {
    try {
      ex->request->sink->write(data, len);
    } catch (const std::exception& e) {
      ex->sink_error = e.what();
      return 0;  // aborts the transfer
    }
    return len;
  }
  if (ex->response->body.size() + len > ex->request->max_body) {
    ex->too_large = true;
    return 0;
  }
  ex->response->body.append(data, len);
  return len;
}

size_t on_read(char* buffer, size_t size, size_t n, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  size_t want = size * n;
  if (ex->memory) {
    size_t take = std::min(want, ex->memory->size() - ex->memory_pos);
    std::memcpy(buffer, ex->memory->data() + ex->memory_pos, take);
    ex->memory_pos += take;
    return take;
  }
  if (ex->remaining == 0) return 0;
  size_t take = static_cast<size_t>(std::min<uint64_t>(want, ex->remaining));
  ssize_t got;
  do {
    got = ::pread(ex->fd, buffer, take, static_cast<off_t>(ex->offset));
  } while (got < 0 && errno == EINTR);
  if (got <= 0) return CURL_READFUNC_ABORT;
  ex->offset += static_cast<uint64_t>(got);
  ex->remaining -= static_cast<uint64_t>(got);
  return static_cast<size_t>(got);
}

// Rewinds the body when curl has to send it again (e.g. after an auth negotiation on the same handle).
int on_transfer_info(void* user, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal, curl_off_t ulnow) {
  const auto& callback = *static_cast<const decltype(HttpRequest::on_progress)*>(user);
  auto u = [](curl_off_t v) { return v > 0 ? static_cast<uint64_t>(v) : 0; };
  try {
    callback(u(dlnow), u(dltotal), u(ulnow), u(ultotal));
  } catch (...) {
    return 1;  // aborts the transfer; a progress display must never crash the program
  }
  return 0;
}

int on_seek(void* user, curl_off_t off, int origin) {
  auto* ex = static_cast<Exchange*>(user);
  if (origin != SEEK_SET) return CURL_SEEKFUNC_CANTSEEK;
  if (ex->memory) {
    ex->memory_pos = static_cast<size_t>(off);
    return CURL_SEEKFUNC_OK;
  }
  const FileRange& f = *ex->request->file;
  ex->offset = f.offset + static_cast<uint64_t>(off);
  ex->remaining = f.length - static_cast<uint64_t>(off);
  return CURL_SEEKFUNC_OK;
}

bool is_tls_error(CURLcode c) {
  return c == CURLE_SSL_CONNECT_ERROR || c == CURLE_PEER_FAILED_VERIFICATION || c == CURLE_SSL_CERTPROBLEM ||
         c == CURLE_SSL_CIPHER || c == CURLE_SSL_CACERT_BADFILE || c == CURLE_SSL_ISSUER_ERROR ||
         c == CURLE_SSL_SHUTDOWN_FAILED;
}

class FileCloser {
 public:
  explicit FileCloser(int fd) : fd_(fd) {}
  ~FileCloser() {
    if (fd_ >= 0) ::close(fd_);
  }
  FileCloser(const FileCloser&) = delete;
  FileCloser& operator=(const FileCloser&) = delete;

 private:
  int fd_;
};

// One request without redirect handling.
HttpResponse perform_once(const HttpRequest& req) {
  CURL* curl = thread_curl();
  HttpResponse resp;
  Exchange ex;
  ex.curl = curl;
  ex.request = &req;
  ex.response = &resp;

  int fd = -1;
  if (req.file) {
    fd = ::open(req.file->path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw rp::Error("cannot open " + req.file->path.string() + ": " + std::strerror(errno));
    ex.fd = fd;
    ex.offset = req.file->offset;
    ex.remaining = req.file->length;
  } else {
    ex.memory = &req.body;
  }
  FileCloser closer(fd);

  curl_easy_setopt(curl, CURLOPT_URL, req.url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);  // redirects are ours to follow (see header)
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 30L);
  // A stalled transfer (less than 1 KiB/s for 60 s) is a broken connection, not a slow one.
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1024L);
  curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 60L);
  if (req.timeout_ms > 0) curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, req.timeout_ms);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, req.verify_tls ? 1L : 0L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, req.verify_tls ? 2L : 0L);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "rockpack/" ROCKPACK_VERSION);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &ex);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &ex);
  curl_easy_setopt(curl, CURLOPT_BUFFERSIZE, 512L * 1024L);
  curl_easy_setopt(curl, CURLOPT_UPLOAD_BUFFERSIZE, 2L * 1024L * 1024L);

  uint64_t body_size = req.file ? req.file->length : req.body.size();
  bool has_body = req.file.has_value() || !req.body.empty() || req.method == "PUT" || req.method == "POST" ||
                  req.method == "PATCH";
  if (req.method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (has_body) {
    curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(body_size));
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, on_read);
    curl_easy_setopt(curl, CURLOPT_READDATA, &ex);
    curl_easy_setopt(curl, CURLOPT_SEEKFUNCTION, on_seek);
    curl_easy_setopt(curl, CURLOPT_SEEKDATA, &ex);
    if (req.method != "PUT") curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, req.method.c_str());
  } else if (req.method != "GET") {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, req.method.c_str());
  }

  curl_slist* headers = nullptr;
  for (const auto& [k, v] : req.headers) headers = curl_slist_append(headers, (k + ": " + v).c_str());
  // No "Expect: 100-continue" round trip before every upload.
  headers = curl_slist_append(headers, "Expect:");
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  if (req.on_progress) {
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, on_transfer_info);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &req.on_progress);
  }

  if (spdlog::should_log(spdlog::level::debug)) {
    spdlog::debug("http: {} {}", req.method, net::redact_url(req.url));
    for (const auto& [k, v] : req.headers) spdlog::debug("http:   {}", redact_header(k, v));
  }

  CURLcode rc = curl_easy_perform(curl);
  curl_slist_free_all(headers);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &resp.status);
  resp.url = req.url;

  if (!ex.sink_error.empty()) throw rp::Error(ex.sink_error);
  if (ex.too_large)
    throw rp::Error("the response from " + net::redact_url(req.url) + " is larger than " +
                    std::to_string(req.max_body >> 20) + " MiB; refusing to read it");
  if (rc != CURLE_OK) {
    throw TransportError(std::string(curl_easy_strerror(rc)) + " (" + req.method + " " + net::redact_url(req.url) + ")",
                         is_tls_error(rc), {}, rc == CURLE_COULDNT_RESOLVE_HOST);
  }
  spdlog::debug("http: -> {}", resp.status);
  return resp;
}

}  // namespace

std::optional<std::string> HttpResponse::header(std::string_view name) const {
  std::string n = lower(std::string(name));
  for (const auto& [k, v] : headers)
    if (k == n) return v;
  return std::nullopt;
}

std::vector<std::string> HttpResponse::header_all(std::string_view name) const {
  std::string n = lower(std::string(name));
  std::vector<std::string> out;
  for (const auto& [k, v] : headers)
    if (k == n) out.push_back(v);
  return out;
}

std::string redact_header(const std::string& name, const std::string& value) {
  std::string n = lower(name);
  if (n == "authorization" || n == "proxy-authorization" || n == "cookie" || n == "set-cookie")
    return name + ": <redacted>";
  return name + ": " + value;
}

HttpResponse perform(const HttpRequest& request) {
  HttpRequest req = request;
  for (int hop = 0;; ++hop) {
    HttpResponse resp = perform_once(req);
    bool redirect = resp.status == 301 || resp.status == 302 || resp.status == 303 || resp.status == 307 ||
                    resp.status == 308;
    auto location = resp.header("location");
    if (!redirect || !location) return resp;
    if (hop >= 10) throw rp::Error("too many redirects from " + net::redact_url(request.url));
    std::string next = net::resolve_url(req.url, *location);
    if (!net::same_origin(req.url, next)) {
      // Credentials belong to the registry; storage servers authenticate with the signed URL.
      std::erase_if(req.headers, [](const auto& h) { return lower(h.first) == "authorization"; });
      // --insecure-registry covers the registry, not wherever it sends us.
      req.verify_tls = true;
    }
    if (resp.status == 303) {
      req.method = "GET";
      req.body.clear();
      req.file.reset();
    }
    req.url = next;
  }
}

}  // namespace rp::net
