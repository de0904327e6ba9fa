#include "python/index_client.hpp"

#include <fnmatch.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "net/url.hpp"
#include "net/http_retry.hpp"
#include "python/text.hpp"
#include "net/url.hpp"
#include "python/wheel_filename.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"

namespace rp::python {

namespace {

std::string with_trailing_slash(std::string url) {
  if (url.empty() || url.back() != '/') url += '/';
  return url;
}

bool is_http_url(std::string_view s) { return s.starts_with("http://") || s.starts_with("https://"); }

// Page bodies are parsed by their declared type; the HTML parser also takes find-links pages.
ProjectPage parse_page(const net::HttpResponse& response, const std::string& page_url) {
  std::string type = ascii_lower(response.header("content-type").value_or("text/html"));
  if (type.find("application/vnd.pypi.simple.v1+json") != std::string::npos)
    return parse_project_json(response.body, page_url);
  return parse_project_html(response.body, page_url);
}

std::string status_hint(long status, const std::string& credential_source) {
  if (status == 401 || status == 403)
    return credential_source.empty() ? "the index wants credentials: give them in the index URL, by netrc or by "
                                       "environment variables"
                                     : "check the credentials from " + credential_source;
  if (status >= 500 || status == 429 || status == 408)
    return "the index kept failing; try again later (a rerun fetches only what is missing)";
  return "check the index URL";
}

}  // namespace

bool matches_package_globs(const std::vector<std::string>& globs, const std::string& normalized_name) {
  for (const auto& glob : globs) {
    std::string pattern = normalize_name(glob);
    if (::fnmatch(pattern.c_str(), normalized_name.c_str(), 0) == 0) return true;
  }
  return false;
}

std::string distribution_project(std::string_view filename) {
  if (auto wheel = WheelFilename::try_parse(filename)) return wheel->normalized_name();
  for (std::string_view ext : {".tar.gz", ".zip", ".tar.bz2", ".tgz", ".tar.xz"}) {
    if (filename.size() > ext.size() && filename.ends_with(ext)) {
      std::string_view stem = filename.substr(0, filename.size() - ext.size());
      size_t dash = stem.rfind('-');
      if (dash == std::string_view::npos || dash == 0) return {};
      return normalize_name(stem.substr(0, dash));
    }
  }
  return {};
}

// ---- IndexClient ----

IndexClient::IndexClient(IndexSource source, IndexClientOptions options)
    : source_(std::move(source)), options_(options) {
  base_url_ = with_trailing_slash(net::redact_credentials(source_.url));
  display_url_ = net::redact_url(source_.url);
  if (!is_http_url(base_url_))
    throw InputError("index URL " + display_url_ + " is not an http:// or https:// URL",
                     "give the simple API root, e.g. https://host/simple/; local wheel directories go in find-links");
  credential_ = resolve_index_credential(source_);
}

bool IndexClient::pins(const std::string& normalized_name) const {
  return !source_.packages.empty() && matches_package_globs(source_.packages, normalized_name);
}

net::Headers IndexClient::auth_headers_for(const std::string& url) const {
  if (!credential_ || !net::same_origin(base_url_, net::redact_credentials(url))) return {};
  return {{"Authorization", basic_authorization(*credential_)}};
}

net::HttpResponse IndexClient::get(const std::string& url, size_t max_body) const {
  net::HttpRequest request;
  request.url = net::redact_credentials(url);
  request.headers = auth_headers_for(url);
  request.verify_tls = options_.verify_tls;
  request.max_body = max_body;
  return net::perform_with_retry(request, options_.retry);
}

std::optional<std::vector<DistFile>> IndexClient::project_files(const std::string& normalized_name) {
  {
    std::lock_guard lock(mu_);
    if (auto it = pages_.find(normalized_name); it != pages_.end()) return it->second;
  }
  const std::string page_url = base_url_ + normalized_name + "/";
  net::HttpRequest request;
  request.url = page_url;
  request.headers = auth_headers_for(page_url);
  request.headers.emplace_back("Accept", std::string(kSimpleApiAccept));
  request.verify_tls = options_.verify_tls;
  request.max_body = 64u << 20;  // pages of projects with thousands of nightlies are large
  net::HttpResponse response;
  int attempts = 1;
  try {
    response = net::perform_with_retry(request, options_.retry, &attempts);
  } catch (const net::TransportError& e) {
    throw Error("cannot reach package index " + display_url_ + " for project '" + normalized_name + "': " + e.what(),
                "check the index URL and the network, then run the build again (what was fetched is kept)");
  }
  std::optional<std::vector<DistFile>> files;
  if (response.status == 404 || response.status == 410) {
    spdlog::debug("index: {} does not know '{}'", display_url_, normalized_name);
  } else if (!response.ok()) {
    throw Error("package index " + display_url_ + " answered HTTP " + std::to_string(response.status) +
                    " for project '" + normalized_name + "' (" + net::redact_url(page_url) + ")" +
                    net::attempts_note(attempts),
                status_hint(response.status, credential_ ? credential_->source : ""));
  } else {
    // Relative links resolve against the URL that answered (after redirects), without credentials.
    files = parse_page(response, net::redact_credentials(response.url.empty() ? page_url : response.url)).files;
  }
  std::lock_guard lock(mu_);
  ++stats_.page_requests;
  stats_.page_bytes += response.body.size();
  return pages_.emplace(normalized_name, std::move(files)).first->second;
}

IndexStats IndexClient::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

void IndexClient::add_metadata_stats(uint64_t requests, uint64_t bytes) {
  std::lock_guard lock(mu_);
  stats_.metadata_requests += requests;
  stats_.metadata_bytes += bytes;
}

// ---- FindLinks ----

FindLinks::FindLinks(std::string location, IndexClientOptions options)
    : location_(std::move(location)), options_(options) {}

std::string FindLinks::display() const {
  return "find-links:" + (is_http_url(location_) ? net::redact_url(location_) : location_);
}

void FindLinks::load() {
  if (is_http_url(location_)) {
    IndexSource source;
    source.url = location_;
    IndexClient client(source, options_);  // for its credential handling and retries
    net::HttpResponse response;
    try {
      response = client.get(location_, 64u << 20);
    } catch (const net::TransportError& e) {
      throw Error("cannot read find-links page " + client.display_url() + ": " + e.what(),
                  "check the URL and the network");
    }
    if (!response.ok())
      throw Error("find-links page " + client.display_url() + " answered HTTP " + std::to_string(response.status),
                  status_hint(response.status, ""));
    files_ = parse_project_html(response.body, net::redact_credentials(response.url.empty() ? location_ : response.url)).files;
    return;
  }
  fs::path dir = location_.starts_with("file://") ? fs::path(net::percent_decode(location_.substr(7))) : fs::path(location_);
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError("find-links location " + location_ + " is not a directory or an http(s) URL",
                     "give a directory of wheels or the URL of a page linking to them");
  std::vector<fs::path> paths;
  for (const auto& entry : fs::directory_iterator(dir, ec))
    if (entry.is_regular_file()) paths.push_back(entry.path());
  if (ec) throw Error("cannot list find-links directory " + location_ + ": " + ec.message());
  std::sort(paths.begin(), paths.end());
  for (const auto& p : paths) {
    DistFile f;
    f.filename = p.filename().string();
    if (distribution_project(f.filename).empty()) continue;
    f.url = "file://" + fs::absolute(p).lexically_normal().string();
    std::error_code size_ec;
    auto size = fs::file_size(p, size_ec);
    if (!size_ec) f.size = size;
    files_.push_back(std::move(f));
  }
}

std::vector<DistFile> FindLinks::project_files(const std::string& normalized_name) {
  std::lock_guard lock(mu_);
  if (!loaded_) {
    load();
    loaded_ = true;
  }
  std::vector<DistFile> out;
  for (const auto& f : files_)
    if (distribution_project(f.filename) == normalized_name) out.push_back(f);
  return out;
}

}  // namespace rp::python
