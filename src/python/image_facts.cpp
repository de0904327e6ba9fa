#include "python/image_facts.hpp"

#include <charconv>
#include <vector>

#include "python/text.hpp"
#include "util/deb822.hpp"
#include "util/strings.hpp"

namespace rp::python {

namespace {


// "2.36" at the start of `s` (digits '.' digits); returns its length, 0 if none.
size_t dotted_number_length(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && is_digit(s[i])) ++i;
  if (i == 0 || i >= s.size() || s[i] != '.') return 0;
  size_t j = i + 1;
  while (j < s.size() && is_digit(s[j])) ++j;
  return j == i + 1 ? 0 : j;
}

int to_int(std::string_view s) {
  int v = -1;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc() && end == s.data() + s.size() ? v : -1;
}

// "libc-2.31.so" / "ld-2.31.so" -> "2.31".
std::optional<std::string> version_from_old_glibc_name(std::string_view name) {
  for (std::string_view prefix : {"libc-", "ld-"}) {
    if (name.substr(0, prefix.size()) != prefix || name.size() < prefix.size() + 3) continue;
    std::string_view rest = name.substr(prefix.size());
    if (rest.substr(rest.size() - 3) != ".so") continue;
    rest.remove_suffix(3);
    if (dotted_number_length(rest) == rest.size() && rest.substr(0, 2) == "2.") return std::string(rest);
  }
  return std::nullopt;
}

// Debian's version "1:3.11.2-6+deb12u6" -> upstream "3.11.2"; "3.12.0~rc1-1" -> "3.12.0rc1".
std::string debian_upstream(std::string_view v) {
  size_t colon = v.find(':');
  if (colon != std::string_view::npos && colon < v.size()) v.remove_prefix(colon + 1);
  size_t dash = v.rfind('-');
  if (dash != std::string_view::npos) v = v.substr(0, dash);
  std::string out;
  for (char c : v)
    if (c != '~') out.push_back(c);
  return out;
}

bool same_minor_version(std::string_view version, int major, int minor) {
  std::string prefix = std::to_string(major) + "." + std::to_string(minor);
  if (version.substr(0, prefix.size()) != prefix) return false;
  return version.size() == prefix.size() || version[prefix.size()] == '.';
}

// Calls `fn(stanza)` for each stanza of a package database read from the image: dpkg's status, or
// apk's installed database ("K:value" lines, the same shape). Read leniently, as the image's own
// tools would: what cannot be parsed is skipped.
template <typename Fn>
void for_each_stanza(std::string_view text, Fn fn) {
  Deb822Options options;
  options.strict = false;
  Deb822Reader reader(text, "the image's package database", options);
  while (auto stanza = reader.next()) fn(*stanza);
}

}  // namespace

std::string multiarch_triplet(std::string_view machine) {
  if (machine == "x86_64") return "x86_64-linux-gnu";
  if (machine == "aarch64") return "aarch64-linux-gnu";
  if (machine == "i686" || machine == "i386") return "i386-linux-gnu";
  if (machine == "armv7l" || machine == "armv6l") return "arm-linux-gnueabihf";
  if (machine == "ppc64le") return "powerpc64le-linux-gnu";
  if (machine == "s390x") return "s390x-linux-gnu";
  if (machine == "riscv64") return "riscv64-linux-gnu";
  return std::string(machine) + "-linux-gnu";
}

std::optional<std::string> glibc_version_from_library(std::string_view bytes) {
  // The banner __libc_print_version prints: "GNU C Library (Debian GLIBC 2.36-9) stable release version 2.36."
  for (size_t at = bytes.find("GNU C Library"); at != std::string_view::npos;
       at = bytes.find("GNU C Library", at + 1)) {
    std::string_view window = bytes.substr(at, 300);
    size_t nul = window.find('\0');
    if (nul != std::string_view::npos) window = window.substr(0, nul);
    size_t v = window.find("version ");
    if (v == std::string_view::npos) continue;
    std::string_view rest = window.substr(v + 8);
    size_t len = dotted_number_length(rest);
    if (len > 0) return std::string(rest.substr(0, len));
  }
  // Every glibc release that adds symbols defines a GLIBC_2.NN version node for them.
  int best = -1;
  for (size_t at = bytes.find("GLIBC_2."); at != std::string_view::npos; at = bytes.find("GLIBC_2.", at + 1)) {
    std::string_view rest = bytes.substr(at + 8);
    size_t n = 0;
    while (n < rest.size() && n < 4 && is_digit(rest[n])) ++n;
    if (n == 0 || (n < rest.size() && (is_digit(rest[n]) || rest[n] == '.'))) continue;  // GLIBC_2.2.5 is older
    best = std::max(best, to_int(rest.substr(0, n)));
  }
  if (best >= 0) return "2." + std::to_string(best);
  return std::nullopt;
}

std::optional<LibcInfo> find_libc(const FileTree& fs, std::string_view machine, bool musl_first) {
  std::string triplet = multiarch_triplet(machine);
  std::vector<std::string> dirs = {"/lib/" + triplet, "/usr/lib/" + triplet, "/lib64", "/usr/lib64", "/lib", "/usr/lib"};

  auto find_glibc = [&]() -> std::optional<LibcInfo> {
    for (const auto& dir : dirs) {
      std::string path = dir + "/libc.so.6";
      auto node = fs.lstat(path);
      if (!node) continue;
      if (auto real = fs.realpath(path)) {
        std::string base = real->substr(real->rfind('/') + 1);
        if (auto v = version_from_old_glibc_name(base)) return LibcInfo{"glibc", *v, path};
      }
      if (auto bytes = fs.read(path))
        if (auto v = glibc_version_from_library(*bytes)) return LibcInfo{"glibc", *v, path};
    }
    for (const auto& dir : dirs)  // a libc.so.6 we could not read: the dynamic loader's old name may tell
      for (const auto& name : fs.list(dir))
        if (auto v = version_from_old_glibc_name(name)) return LibcInfo{"glibc", *v, dir + "/" + name};
    return std::nullopt;
  };
  auto find_musl = [&]() -> std::optional<LibcInfo> {
    for (const auto& dir : dirs)
      for (const auto& name : fs.list(dir))
        if (name.rfind("ld-musl-", 0) == 0 && name.size() > 5 && name.substr(name.size() - 5) == ".so.1") {
          LibcInfo info{"musl", "", dir + "/" + name};
          if (auto db = fs.read("/lib/apk/db/installed"))
            if (auto v = musl_version_from_apk_installed(*db)) info.version = *v;
          return info;
        }
    return std::nullopt;
  };
  if (musl_first) {
    if (auto m = find_musl()) return m;
    return find_glibc();
  }
  if (auto g = find_glibc()) return g;
  return find_musl();
}

std::optional<std::string> version_from_patchlevel(std::string_view header) {
  for (auto line : split(header, '\n')) {
    line = trim(line);
    if (line.substr(0, 1) != "#") continue;
    line = trim(line.substr(1));
    if (line.substr(0, 6) != "define") continue;
    line = trim(line.substr(6));
    if (line.substr(0, 10) != "PY_VERSION" || line.size() < 11 || !is_space(line[10])) continue;
    line = trim(line.substr(10));
    if (line.size() < 2 || line[0] != '"') continue;
    size_t close = line.find('"', 1);
    if (close == std::string_view::npos) continue;
    std::string_view v = line.substr(1, close - 1);
    if (dotted_number_length(v) == 0) return std::nullopt;
    return std::string(v);
  }
  return std::nullopt;
}

std::optional<std::string> version_from_dpkg_status(std::string_view status, int major, int minor) {
  std::string mm = std::to_string(major) + "." + std::to_string(minor);
  std::optional<std::string> found;
  for_each_stanza(status, [&](const Deb822Stanza& fields) {
    if (found) return;
    std::string package = fields.value("Package");
    if (package != "python" + mm + "-minimal" && package != "libpython" + mm + "-minimal" && package != "python" + mm)
      return;
    std::string state = fields.value("Status");
    // "install ok installed"; distroless' status.d files have no Status at all.
    if (!state.empty() && (state.size() < 10 || state.substr(state.size() - 10) != " installed")) return;
    std::string v = debian_upstream(fields.value("Version"));
    if (same_minor_version(v, major, minor)) found = v;
  });
  return found;
}

std::optional<std::string> version_from_apk_installed(std::string_view db, int major, int minor) {
  std::optional<std::string> found;
  for_each_stanza(db, [&](const Deb822Stanza& fields) {
    if (found || fields.value("P") != "python3") return;
    std::string v = fields.value("V");
    size_t r = v.rfind("-r");
    std::string version(r == std::string_view::npos ? v : v.substr(0, r));
    if (same_minor_version(version, major, minor)) found = version;
  });
  return found;
}

std::optional<std::string> musl_version_from_apk_installed(std::string_view db) {
  std::optional<std::string> found;
  for_each_stanza(db, [&](const Deb822Stanza& fields) {
    if (found || fields.value("P") != "musl") return;
    std::string v = fields.value("V");
    size_t r = v.rfind("-r");
    std::string version(r == std::string_view::npos ? v : v.substr(0, r));
    if (!version.empty()) found = version;
  });
  return found;
}

}  // namespace rp::python
