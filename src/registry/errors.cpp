#include "registry/errors.hpp"

#include <nlohmann/json.hpp>

namespace rp::registry {

namespace {

std::string shorten(std::string s, size_t max = 300) {
  for (auto& c : s)
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  if (s.size() > max) s = s.substr(0, max) + "...";
  return s;
}

std::string status_text(long status) {
  switch (status) {
    case 400: return "400 Bad Request";
    case 401: return "401 Unauthorized";
    case 403: return "403 Forbidden";
    case 404: return "404 Not Found";
    case 405: return "405 Method Not Allowed";
    case 408: return "408 Request Timeout";
    case 413: return "413 Payload Too Large";
    case 416: return "416 Range Not Satisfiable";
    case 429: return "429 Too Many Requests";
    case 500: return "500 Internal Server Error";
    case 502: return "502 Bad Gateway";
    case 503: return "503 Service Unavailable";
    case 504: return "504 Gateway Timeout";
    default: return std::to_string(status);
  }
}

std::string hint_for(const std::string& code, long status, const std::string& host) {
  if (code == "UNAUTHORIZED" || (code.empty() && status == 401))
    return "log in with: rockpack login " + host + " (or check the credentials configured for it)";
  if (code == "DENIED" || (code.empty() && status == 403))
    return "the credentials for " + host + " lack permission for this repository: check its access rights";
  if (code == "NAME_UNKNOWN") return "check the repository name; on some registries it must be created first";
  if (code == "MANIFEST_UNKNOWN" || (code.empty() && status == 404))
    return "check the tag or digest: the registry does not have it";
  if (code == "TOOMANYREQUESTS" || status == 429) return "the registry is rate limiting: wait and run again";
  if (code == "DIGEST_INVALID" || code == "BLOB_UPLOAD_INVALID")
    return "the upload arrived damaged; run again (uploads resume where they stopped)";
  if (code == "MANIFEST_BLOB_UNKNOWN") return "a blob the manifest refers to is missing on the registry; run the push again";
  if (code == "UNSUPPORTED") return "the registry does not support this operation or media type";
  if (status >= 500) return "the registry failed; run again later (the push resumes without re-sending what arrived)";
  return {};
}

}  // namespace

std::vector<RegistryErrorEntry> parse_error_body(const std::string& body) {
  std::vector<RegistryErrorEntry> out;
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return out;
  auto errors = j.find("errors");
  if (errors == j.end() || !errors->is_array()) return out;
  for (const auto& e : *errors) {
    if (!e.is_object()) continue;
    RegistryErrorEntry entry;
    if (auto c = e.find("code"); c != e.end() && c->is_string()) entry.code = c->get<std::string>();
    if (auto m = e.find("message"); m != e.end() && m->is_string()) entry.message = shorten(m->get<std::string>());
    if (auto d = e.find("detail"); d != e.end() && !d->is_null())
      entry.detail = shorten(d->is_string() ? d->get<std::string>() : d->dump());
    out.push_back(std::move(entry));
  }
  return out;
}

rp::Error registry_error(const net::HttpResponse& response, const std::string& what, const std::string& host) {
  auto entries = parse_error_body(response.body);
  std::string msg = what + " failed: the registry answered " + status_text(response.status);
  std::string first_code;
  if (!entries.empty()) {
    first_code = entries.front().code;
    msg += ":";
    for (size_t i = 0; i < entries.size() && i < 5; ++i) {
      const auto& e = entries[i];
      msg += (i ? "; " : " ") + (e.code.empty() ? std::string("error") : e.code);
      if (!e.message.empty()) msg += " (" + e.message + ")";
      if (!e.detail.empty() && e.detail != "null") msg += " [" + e.detail + "]";
    }
  } else if (!response.body.empty() && response.body.size() < 300 && response.body.find('<') == std::string::npos) {
    // A short plain-text body is usually the explanation (proxies, some registries).
    msg += ": " + shorten(response.body);
  }
  return rp::Error(msg, hint_for(first_code, response.status, host));
}

}  // namespace rp::registry
