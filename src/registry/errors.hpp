#pragma once
// Turns a registry's error response into an rp::Error a person can act on: what rockpack was doing
// (which blob or manifest of which repository), what the registry said (the codes and messages of its
// {"errors":[{code,message,detail}]} body), and a hint for the common cases. Nothing from the request
// itself is echoed: no headers, no tokens, no query strings.
#include <string>
#include <vector>

#include "net/http.hpp"
#include "util/error.hpp"

namespace rp::registry {

struct RegistryErrorEntry {
  std::string code;     // "BLOB_UNKNOWN", "UNAUTHORIZED", ...
  std::string message;
  std::string detail;   // flattened to text, shortened
};

std::vector<RegistryErrorEntry> parse_error_body(const std::string& body);

// `what`: "push of blob sha256:... to localhost:5000/app"; `host`: the registry, for the login hint.
rp::Error registry_error(const net::HttpResponse& response, const std::string& what, const std::string& host);

}  // namespace rp::registry
