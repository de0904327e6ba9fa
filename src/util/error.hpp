#pragma once
// One error type for everything a user can cause or fix. Its message says what went wrong and where;
// `hint` says what to do about it. The exit code separates bad input (2) from failures while working (1).
#include <stdexcept>
#include <string>

namespace rp {

enum class ExitCode : int {
  kOk = 0,
  kFailure = 1,       // the build could not be done: network, I/O, verification, registry
  kInvalidInput = 2,  // the recipe, the command line or a reference is wrong: fix the input
};

class Error : public std::runtime_error {
 public:
  explicit Error(std::string message, std::string hint = {}, ExitCode code = ExitCode::kFailure)
      : std::runtime_error(std::move(message)), hint_(std::move(hint)), code_(code) {}

  const std::string& hint() const { return hint_; }
  ExitCode code() const { return code_; }

 private:
  std::string hint_;
  ExitCode code_;
};

// Bad input: a recipe, a flag, a reference. Exit code 2.
class InputError : public Error {
 public:
  explicit InputError(std::string message, std::string hint = {})
      : Error(std::move(message), std::move(hint), ExitCode::kInvalidInput) {}
};

}  // namespace rp
