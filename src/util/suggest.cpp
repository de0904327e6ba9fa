#include "util/suggest.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace rp {

namespace {
// Damerau-Levenshtein (optimal string alignment): a swapped pair of letters, the commonest typo,
// counts as one edit.
size_t edit_distance(const std::string& a, const std::string& b) {
  auto eq = [](char x, char y) { return std::tolower(x) == std::tolower(y); };
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (eq(a[i - 1], b[j - 1]) ? 0 : 1)});
      if (i > 1 && j > 1 && eq(a[i - 1], b[j - 2]) && eq(a[i - 2], b[j - 1]))
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}
}  // namespace

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = SIZE_MAX;
  for (const auto& c : candidates) {
    // The distance is at least the difference in length, and a typo is at most 3 edits: a longer
    // word (a hostile 8 MB key) is no typo, and measuring it would take gigabytes.
    size_t length_gap = word.size() > c.size() ? word.size() - c.size() : c.size() - word.size();
    if (length_gap > 3) continue;
    size_t d = edit_distance(word, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  // Close enough to be a typo: up to a third of the word, at least one and at most three edits.
  size_t limit = std::clamp<size_t>(word.size() / 3, 1, 3);
  return best_distance <= limit ? best : std::string();
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  std::string m = closest_match(word, candidates);
  return m.empty() ? std::string() : "did you mean '" + m + "'?";
}

}  // namespace rp
