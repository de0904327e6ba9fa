#pragma once
// One HTTP request for an index (Python simple pages, apt Release and Packages files), retried on what is worth retrying (no connection,
// 408/429/5xx) with the registry client's backoff rules. Anything else goes back to the caller,
// which knows what a 404 means for its request.
#include "net/http.hpp"
#include "net/retry.hpp"

namespace rp::net {

// Performs `request` up to policy.max_attempts times. Returns the last response (whatever its
// status) and, when `attempts` is given, how many times it was sent; throws net::TransportError when
// the last attempt got no response at all (its message then ends with attempts_note).
HttpResponse perform_with_retry(const HttpRequest& request, const RetryPolicy& policy, int* attempts = nullptr);

// ", after N attempts" when a request was sent more than once, else "": what error messages append,
// so that a failure after retries says so (issue 15, the flaky-network drill).
std::string attempts_note(int attempts);

}  // namespace rp::net
