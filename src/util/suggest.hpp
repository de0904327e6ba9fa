#pragma once
// "Did you mean …?" for names a user typed: recipe keys, build args, requirements-file options.
#include <string>
#include <vector>

namespace rp {

// The closest of `candidates` to `word` when it is close enough to be a likely typo, else "".
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);
// "did you mean 'x'?" or "" when nothing is close.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace rp
