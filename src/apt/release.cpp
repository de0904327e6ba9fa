#include "apt/release.hpp"

#include <ctime>

#include "util/deb822.hpp"
#include "util/error.hpp"
#include "util/strings.hpp"
#include "util/digest.hpp"

namespace rp::apt {

namespace {

std::optional<uint64_t> to_u64(std::string_view s) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

std::optional<int> number(std::string_view s, size_t min_len, size_t max_len) {
  if (s.size() < min_len || s.size() > max_len) return std::nullopt;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
const char* kDays[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};

}  // namespace

const IndexFile* Release::find(const std::string& path) const {
  auto it = files.find(path);
  return it == files.end() ? nullptr : &it->second;
}

Release parse_release(std::string_view text, const std::string& what) {
  Deb822Options options;
  options.max_fields_per_stanza = 200;
  Deb822Stanza s = parse_one_deb822(text, what, options);
  Release r;
  r.origin = s.value("Origin");
  r.label = s.value("Label");
  r.suite = s.value("Suite");
  r.codename = s.value("Codename");
  r.version = s.value("Version");
  r.architectures = split_words(s.value("Architectures"));
  r.components = split_words(s.value("Components"));
  r.acquire_by_hash = s.value("Acquire-By-Hash") == "yes";
  r.not_automatic = s.value("NotAutomatic") == "yes";
  r.but_automatic_upgrades = s.value("ButAutomaticUpgrades") == "yes";
  r.all_in_arch_indexes = s.value("No-Support-for-Architecture-all") == "Packages";
  auto date_field = [&](const char* name) -> std::optional<int64_t> {
    auto v = s.get(name);
    if (!v) return std::nullopt;
    auto t = parse_release_date(*v);
    if (!t)
      throw Error(what + ":" + std::to_string(s.line_of(name)) + ": " + name + " '" + std::string(*v) +
                      "' is not a date", "the repository's Release file is malformed; tell its maintainers");
    return t;
  };
  r.date = date_field("Date");
  r.valid_until = date_field("Valid-Until");
  auto sums = s.get("SHA256");
  if (!sums)
    throw Error(what + " has no SHA256 list of its indexes, so nothing it lists can be verified",
                "use a repository whose Release file carries SHA256 sums (every current apt repository does)");
  size_t first_line = s.line_of("SHA256");
  auto lines = deb822_value_lines(*sums);
  for (size_t k = 0; k < lines.size(); ++k) {
    std::string_view l = lines[k];
    if (l.empty()) continue;
    auto w = split_words(l);
    auto size = w.size() == 3 ? to_u64(w[1]) : std::nullopt;
    if (w.size() != 3 || !is_sha256_hex(w[0]) || !size)
      throw Error(what + ":" + std::to_string(first_line + k) + ": malformed SHA256 entry '" +
                      std::string(l.substr(0, 100)) + "'",
                  "each entry is '<sha256> <size> <path>'");
    r.files[w[2]] = IndexFile{w[2], *size, w[0]};
  }
  return r;
}

void check_release_dates(const Release& release, int64_t now, const std::string& what) {
  if (release.valid_until && *release.valid_until < now)
    throw Error(what + " expired: its Valid-Until is " + format_release_date(*release.valid_until) + ", now is " +
                    format_release_date(now),
                "the mirror serves an outdated Release file (or the clock is wrong); use an up-to-date mirror, or a "
                "snapshot source with trusted: true if an old state is really wanted");
}

std::optional<IndexFile> packages_index(const Release& release, const std::string& component, const std::string& arch) {
  std::string dir = component.empty() ? "" : component + "/binary-" + arch + "/";
  for (const char* ext : {".xz", ".gz", ""}) {
    if (const IndexFile* f = release.find(dir + "Packages" + ext)) return *f;
  }
  return std::nullopt;
}

std::string index_fetch_path(const Release& release, const IndexFile& file) {
  if (!release.acquire_by_hash) return file.path;
  size_t slash = file.path.rfind('/');
  std::string dir = slash == std::string::npos ? "" : file.path.substr(0, slash + 1);
  return dir + "by-hash/SHA256/" + file.sha256;
}

std::optional<int64_t> parse_release_date(std::string_view text) {
  auto w = split_words(text);
  size_t i = 0;
  if (!w.empty() && !w[0].empty() && w[0].back() == ',') ++i;  // the weekday
  if (w.size() != i + 5 && w.size() != i + 4) return std::nullopt;
  auto day = number(w[i], 1, 2);
  int month = -1;
  for (int m = 0; m < 12; ++m)
    if (w[i + 1] == kMonths[m]) month = m;
  auto year = number(w[i + 2], 4, 4);
  const std::string& hms = w[i + 3];
  if (!day || month < 0 || !year || hms.size() != 8 || hms[2] != ':' || hms[5] != ':') return std::nullopt;
  auto hh = number(hms.substr(0, 2), 2, 2), mm = number(hms.substr(3, 2), 2, 2), ss = number(hms.substr(6, 2), 2, 2);
  if (!hh || !mm || !ss || *hh > 23 || *mm > 59 || *ss > 60 || *day < 1 || *day > 31) return std::nullopt;
  int64_t offset = 0;
  if (w.size() == i + 5) {
    const std::string& zone = w[i + 4];
    if (zone == "UTC" || zone == "GMT" || zone == "Z" || zone == "UT") {
      offset = 0;
    } else if (zone.size() == 5 && (zone[0] == '+' || zone[0] == '-')) {
      auto zh = number(zone.substr(1, 2), 2, 2), zm = number(zone.substr(3, 2), 2, 2);
      if (!zh || !zm) return std::nullopt;
      offset = (zone[0] == '-' ? -1 : 1) * (*zh * 3600 + *zm * 60);
    } else {
      return std::nullopt;
    }
  }
  std::tm tm{};
  tm.tm_year = *year - 1900;
  tm.tm_mon = month;
  tm.tm_mday = *day;
  tm.tm_hour = *hh;
  tm.tm_min = *mm;
  tm.tm_sec = *ss;
  return static_cast<int64_t>(timegm(&tm)) - offset;
}

std::string format_release_date(int64_t epoch_seconds) {
  std::time_t t = static_cast<std::time_t>(epoch_seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::snprintf(buf, sizeof buf, "%s, %02d %s %04d %02d:%02d:%02d UTC", kDays[tm.tm_wday], tm.tm_mday, kMonths[tm.tm_mon],
                tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

}  // namespace rp::apt
