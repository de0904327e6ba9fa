#pragma once
// Docker credential helpers: programs named docker-credential-<name> speaking a tiny protocol on
// stdin/stdout ("get": server URL in, {"ServerURL","Username","Secret"} out; "store": that JSON in).
#include <string>

namespace rp::registry {

struct HelperResult {
  int exit_code = 0;
  std::string output;  // stdout; may hold a secret: never put it in a message unless exit_code != 0
};

// Runs `docker-credential-<helper> <action>` (found on PATH) with `input` on stdin.
// Throws rp::Error when the program cannot be started.
HelperResult run_credential_helper(const std::string& helper, const std::string& action, const std::string& input);

}  // namespace rp::registry
