// PEP 440 version parsing, normalization and ordering.
#include "python/pep440.hpp"

#include <algorithm>

#include "python/text.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"

namespace rp::python {

namespace {

bool is_sep(char c) { return c == '.' || c == '-' || c == '_'; }

}  // namespace

// A hand-written scanner that follows the spec's (and packaging's) regular expression part by part.
// Each optional part is tried at the current position; a part that does not match consumes nothing.
class VersionParser {
 public:
  explicit VersionParser(std::string_view text) : original_(text), s_(ascii_lower(trim(text))) {}

  std::optional<Version> run() {
    Version v;
    v.release_.clear();
    if (at('v')) ++pos_;
    // Epoch: digits followed by '!'.
    size_t save = pos_;
    if (auto n = number(); n && at('!')) {
      v.epoch_ = *n;
      ++pos_;
    } else {
      pos_ = save;
    }
    auto first = number();
    if (!first) return std::nullopt;
    v.release_.push_back(*first);
    while (at('.') && pos_ + 1 < s_.size() && is_digit(s_[pos_ + 1])) {
      ++pos_;
      v.release_.push_back(*number());
    }
    v.pre_ = pre();
    v.post_ = post();
    v.dev_ = labelled({"dev"});
    if (at('+')) {
      ++pos_;
      if (!local(v.local_)) return std::nullopt;
    }
    if (pos_ != s_.size() || overflow_) return std::nullopt;
    return v;
  }

 private:
  bool at(char c) const { return pos_ < s_.size() && s_[pos_] == c; }

  // Unsigned decimal at pos_; nullopt (consuming nothing) if there is none.
  std::optional<uint64_t> number() {
    if (pos_ >= s_.size() || !is_digit(s_[pos_])) return std::nullopt;
    uint64_t n = 0;
    while (pos_ < s_.size() && is_digit(s_[pos_])) {
      uint64_t d = static_cast<uint64_t>(s_[pos_] - '0');
      if (n > (UINT64_MAX - d) / 10) overflow_ = true;  // reported as invalid by run()
      n = n * 10 + d;
      ++pos_;
    }
    return n;
  }

  // Matches `label` at pos_ exactly; returns its length or 0.
  size_t match_word(std::string_view label) const {
    return std::string_view(s_).substr(pos_).starts_with(label) ? label.size() : 0;
  }

  // `[-_.]? <one of labels> [-_.]? <digits>?` with an implicit number 0. Returns the index of the
  // matched label through `which`. The labels must be listed longest-first where one is a prefix of
  // another ("alpha" before "a").
  std::optional<uint64_t> labelled(std::initializer_list<std::string_view> labels, size_t* which = nullptr) {
    size_t save = pos_;
    if (pos_ < s_.size() && is_sep(s_[pos_])) ++pos_;
    size_t i = 0;
    for (std::string_view label : labels) {
      if (size_t len = match_word(label)) {
        pos_ += len;
        if (which) *which = i;
        if (pos_ < s_.size() && is_sep(s_[pos_])) ++pos_;
        return number().value_or(0);
      }
      ++i;
    }
    pos_ = save;
    return std::nullopt;
  }

  std::optional<Version::Pre> pre() {
    size_t which = 0;
    auto n = labelled({"alpha", "a", "beta", "b", "preview", "pre", "rc", "c"}, &which);
    if (!n) return std::nullopt;
    static constexpr Version::PreKind kKinds[] = {Version::PreKind::kAlpha, Version::PreKind::kAlpha,
                                                  Version::PreKind::kBeta,  Version::PreKind::kBeta,
                                                  Version::PreKind::kRc,    Version::PreKind::kRc,
                                                  Version::PreKind::kRc,    Version::PreKind::kRc};
    return Version::Pre{kKinds[which], *n};
  }

  std::optional<uint64_t> post() {
    // The implicit form "1.0-1" means 1.0.post1.
    if (at('-') && pos_ + 1 < s_.size() && is_digit(s_[pos_ + 1])) {
      ++pos_;
      return number();
    }
    return labelled({"post", "rev", "r"});
  }

  bool local(std::vector<std::string>& out) {
    while (true) {
      size_t start = pos_;
      while (pos_ < s_.size() && (is_digit(s_[pos_]) || (s_[pos_] >= 'a' && s_[pos_] <= 'z'))) ++pos_;
      if (pos_ == start) return false;
      std::string seg = s_.substr(start, pos_ - start);
      if (std::all_of(seg.begin(), seg.end(), is_digit)) {
        // Numeric segments compare as integers, so "007" and "7" are the same segment.
        size_t nz = seg.find_first_not_of('0');
        seg = nz == std::string::npos ? "0" : seg.substr(nz);
      }
      out.push_back(std::move(seg));
      if (pos_ < s_.size() && is_sep(s_[pos_]) && pos_ + 1 < s_.size() && s_[pos_ + 1] != '.' &&
          s_[pos_ + 1] != '-' && s_[pos_ + 1] != '_') {
        ++pos_;
        continue;
      }
      return true;
    }
  }

  std::string_view original_;
  std::string s_;
  size_t pos_ = 0;
  bool overflow_ = false;
};

Version Version::parse(std::string_view text) {
  if (auto v = try_parse(text)) return *v;
  throw InputError("invalid version '" + printable(text) + "'",
                   "versions follow PEP 440, e.g. 1.2.3, 2.0rc1, 1.0.post1, 2.10.0a0+rocm7.0");
}

std::optional<Version> Version::try_parse(std::string_view text) {
  if (text.size() > 1024) return std::nullopt;  // no real version is this long
  return VersionParser(text).run();
}

std::string Version::public_string() const {
  std::string out;
  if (epoch_ != 0) out += std::to_string(epoch_) + "!";
  for (size_t i = 0; i < release_.size(); ++i) {
    if (i) out += '.';
    out += std::to_string(release_[i]);
  }
  if (pre_) {
    static constexpr const char* kNames[] = {"a", "b", "rc"};
    out += kNames[static_cast<int>(pre_->kind)];
    out += std::to_string(pre_->number);
  }
  if (post_) out += ".post" + std::to_string(*post_);
  if (dev_) out += ".dev" + std::to_string(*dev_);
  return out;
}

std::string Version::to_string() const {
  std::string out = public_string();
  for (size_t i = 0; i < local_.size(); ++i) out += (i ? "." : "+") + local_[i];
  return out;
}

std::string Version::base_string() const { return base().to_string(); }

Version Version::without_local() const {
  Version v = *this;
  v.local_.clear();
  return v;
}

Version Version::base() const {
  Version v;
  v.epoch_ = epoch_;
  v.release_ = release_;
  return v;
}

std::strong_ordering compare_numeric_strings(std::string_view a, std::string_view b) {
  auto strip = [](std::string_view s) {
    size_t nz = s.find_first_not_of('0');
    return nz == std::string_view::npos ? std::string_view() : s.substr(nz);
  };
  a = strip(a);
  b = strip(b);
  if (a.size() != b.size()) return a.size() <=> b.size();
  int c = a.compare(b);
  return c < 0 ? std::strong_ordering::less : c > 0 ? std::strong_ordering::greater : std::strong_ordering::equal;
}

namespace {

// The ordering of the spec as packaging's _cmpkey: a missing pre sorts after any pre-release, except
// that a bare dev release (1.0.dev0) sorts before all pre-releases of the same release.
int pre_rank(const Version& v, uint64_t* number, int* kind) {
  *number = 0;
  *kind = 0;
  if (v.pre()) {
    *kind = static_cast<int>(v.pre()->kind);
    *number = v.pre()->number;
    return 1;
  }
  if (!v.post() && v.dev()) return 0;  // 1.0.dev0 < 1.0a0
  return 2;                            // final or post release
}

bool is_numeric(const std::string& s) { return !s.empty() && std::all_of(s.begin(), s.end(), is_digit); }

// Local segments: numeric ones compare as integers and beat text; text compares as (lowercased)
// strings; a label that extends another one is greater.
std::strong_ordering compare_local(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  size_t n = std::min(a.size(), b.size());
  for (size_t i = 0; i < n; ++i) {
    bool an = is_numeric(a[i]), bn = is_numeric(b[i]);
    if (an != bn) return an ? std::strong_ordering::greater : std::strong_ordering::less;
    std::strong_ordering c = an ? compare_numeric_strings(a[i], b[i]) : a[i].compare(b[i]) <=> 0;
    if (c != 0) return c;
  }
  return a.size() <=> b.size();
}

}  // namespace

std::strong_ordering Version::operator<=>(const Version& o) const {
  if (auto c = epoch_ <=> o.epoch_; c != 0) return c;
  size_t n = std::max(release_.size(), o.release_.size());
  for (size_t i = 0; i < n; ++i) {
    uint64_t a = i < release_.size() ? release_[i] : 0;
    uint64_t b = i < o.release_.size() ? o.release_[i] : 0;
    if (auto c = a <=> b; c != 0) return c;
  }
  uint64_t pn_a, pn_b;
  int pk_a, pk_b;
  if (auto c = pre_rank(*this, &pn_a, &pk_a) <=> pre_rank(o, &pn_b, &pk_b); c != 0) return c;
  if (auto c = pk_a <=> pk_b; c != 0) return c;
  if (auto c = pn_a <=> pn_b; c != 0) return c;
  // No post release sorts before any post release.
  if (auto c = post_.has_value() <=> o.post_.has_value(); c != 0) return c;
  if (auto c = post_.value_or(0) <=> o.post_.value_or(0); c != 0) return c;
  // No dev release sorts after any dev release.
  if (auto c = o.dev_.has_value() <=> dev_.has_value(); c != 0) return c;
  if (auto c = dev_.value_or(0) <=> o.dev_.value_or(0); c != 0) return c;
  return compare_local(local_, o.local_);
}

}  // namespace rp::python
