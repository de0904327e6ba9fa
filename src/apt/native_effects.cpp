#include "apt/native_effects.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

#include "util/strings.hpp"

namespace rp::apt {

namespace {

constexpr const char* kEffectsOrigin = "apt (maintainer-script effects)";

Entry directory(const std::string& path) {
  Entry e;
  e.path = path;
  e.type = EntryType::kDirectory;
  e.mode = 0755;
  e.origin = kEffectsOrigin;
  return e;
}

Entry symlink(const std::string& path, const std::string& target) {
  Entry e;
  e.path = path;
  e.type = EntryType::kSymlink;
  e.mode = 0777;
  e.link_target = target;
  e.origin = kEffectsOrigin;
  return e;
}

Entry file(const std::string& path, std::string bytes, uint32_t mode = 0644) {
  Entry e;
  e.path = path;
  e.type = EntryType::kFile;
  e.mode = mode;
  e.content = std::make_shared<InlineContent>(std::move(bytes));
  e.origin = kEffectsOrigin;
  return e;
}

std::string rel(const std::string& absolute) { return absolute.empty() || absolute[0] != '/' ? absolute : absolute.substr(1); }

bool exists(const FileTree& image, const std::string& path) { return image.realpath(path).has_value(); }

// Shell words of one logical line (backslash-newline already joined): quotes removed, a word
// starting with '#' ends the line.
std::vector<std::string> shell_words(std::string_view line) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
      else cur.push_back(c);
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
      continue;
    }
    if (c == ' ' || c == '\t' || c == ';' || c == '&' || c == '|') {
      if (in_word) out.push_back(cur);
      cur.clear();
      in_word = false;
      if (c != ' ' && c != '\t') out.emplace_back(1, c);
      continue;
    }
    if (c == '#' && !in_word) break;
    cur.push_back(c);
    in_word = true;
  }
  if (in_word) out.push_back(cur);
  return out;
}

// One alternative group as dpkg's record holds it.
struct Group {
  std::string link;
  std::vector<std::pair<std::string, std::string>> slaves;  // name, link
  struct Choice {
    std::string path;
    int priority = 0;
    std::map<std::string, std::string> slave_paths;  // slave name -> path
  };
  std::vector<Choice> choices;
};

// /var/lib/dpkg/alternatives/NAME: "auto|manual\nLINK\n(SLAVE\nSLAVELINK\n)*\n(PATH\nPRIO\n(SLAVEPATH\n)*)*\n".
std::optional<Group> parse_record(const std::string& text) {
  auto lines = split(text, '\n');
  size_t i = 0;
  auto next = [&]() -> std::optional<std::string> {
    if (i >= lines.size()) return std::nullopt;
    return std::string(lines[i++]);
  };
  Group g;
  auto mode = next();
  auto link = next();
  if (!mode || !link) return std::nullopt;
  g.link = *link;
  for (;;) {
    auto name = next();
    if (!name) return std::nullopt;
    if (name->empty()) break;
    auto slave_link = next();
    if (!slave_link) return std::nullopt;
    g.slaves.emplace_back(*name, *slave_link);
  }
  for (;;) {
    auto path = next();
    if (!path || path->empty()) break;
    auto prio = next();
    if (!prio) return std::nullopt;
    Group::Choice c;
    c.path = *path;
    try {
      c.priority = std::stoi(*prio);
    } catch (const std::exception&) {
      return std::nullopt;
    }
    for (const auto& s : g.slaves) {
      auto p = next();
      if (!p) return std::nullopt;
      if (!p->empty()) c.slave_paths[s.first] = *p;
    }
    g.choices.push_back(std::move(c));
  }
  return g;
}

std::string write_record(const Group& g) {
  std::string out = "auto\n" + g.link + "\n";
  for (const auto& [name, link] : g.slaves) out += name + "\n" + link + "\n";
  out += "\n";
  std::vector<Group::Choice> choices = g.choices;
  std::sort(choices.begin(), choices.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
  for (const auto& c : choices) {
    out += c.path + "\n" + std::to_string(c.priority) + "\n";
    for (const auto& s : g.slaves) {
      auto it = c.slave_paths.find(s.first);
      out += (it == c.slave_paths.end() ? "" : it->second) + "\n";
    }
  }
  out += "\n";
  return out;
}

void alternatives(const FileTree& image, const std::vector<UnpackedPackage>& added, NativeEffects& out) {
  std::map<std::string, Group> groups;
  for (const auto& p : added) {
    auto it = p.control_files.find("postinst");
    if (it == p.control_files.end()) continue;
    for (const auto& call : alternative_calls(it->second)) {
      if (!exists(image, call.path)) continue;  // the script would fail too; nothing to point at
      auto g = groups.find(call.name);
      if (g == groups.end()) {
        Group fresh;
        if (auto old = image.read("/var/lib/dpkg/alternatives/" + call.name, 1u << 20))
          if (auto parsed = parse_record(*old)) fresh = *parsed;
        fresh.link = call.link;
        g = groups.emplace(call.name, std::move(fresh)).first;
      }
      Group& group = g->second;
      for (const auto& s : call.slaves)
        if (std::none_of(group.slaves.begin(), group.slaves.end(), [&](const auto& x) { return x.first == s.name; }))
          group.slaves.emplace_back(s.name, s.link);
      Group::Choice choice{call.path, call.priority, {}};
      for (const auto& s : call.slaves) choice.slave_paths[s.name] = s.path;
      std::erase_if(group.choices, [&](const auto& c) { return c.path == call.path; });
      group.choices.push_back(std::move(choice));
    }
  }
  for (const auto& [name, group] : groups) {
    if (group.choices.empty()) continue;
    // Auto mode: the highest priority; the first registered wins a tie (update-alternatives keeps
    // the current one).
    const Group::Choice* best = &group.choices.front();
    for (const auto& c : group.choices)
      if (c.priority > best->priority) best = &c;
    auto link_node = image.lstat(group.link);
    if (link_node && link_node->type != EntryType::kSymlink) {
      out.done.push_back("alternative " + name + " not linked: " + group.link + " is a real file in the image");
      continue;
    }
    out.entries.push_back(symlink(rel("/etc/alternatives/" + name), best->path));
    out.entries.push_back(symlink(rel(group.link), "/etc/alternatives/" + name));
    for (const auto& [slave, slave_link] : group.slaves) {
      auto it = best->slave_paths.find(slave);
      if (it == best->slave_paths.end() || !exists(image, it->second)) continue;
      auto node = image.lstat(slave_link);
      if (node && node->type != EntryType::kSymlink) continue;
      out.entries.push_back(symlink(rel("/etc/alternatives/" + slave), it->second));
      out.entries.push_back(symlink(rel(slave_link), "/etc/alternatives/" + slave));
    }
    out.entries.push_back(file(rel("/var/lib/dpkg/alternatives/" + name), write_record(group)));
    out.done.push_back("alternative " + name + ": " + group.link + " -> " + best->path);
  }
}

void base_passwd(const FileTree& image, NativeEffects& out) {
  for (const auto& [target, master] : {std::pair<std::string, std::string>{"/etc/passwd", "/usr/share/base-passwd/passwd.master"},
                                       {"/etc/group", "/usr/share/base-passwd/group.master"}}) {
    if (image.lstat(target)) continue;
    auto text = image.read(master, 1u << 20);
    if (!text) continue;
    out.entries.push_back(file(rel(target), *text));
    out.done.push_back(target + " from " + master + " (base-passwd)");
  }
}

void ca_certificates(const FileTree& image, NativeEffects& out) {
  if (!image.lstat("/usr/sbin/update-ca-certificates")) return;
  // The certificates, as update-ca-certificates names them: relative to /usr/share/ca-certificates.
  std::vector<std::string> certs;
  std::vector<std::string> todo = {""};
  while (!todo.empty()) {
    std::string dir = todo.back();
    todo.pop_back();
    for (const auto& name : image.list("/usr/share/ca-certificates/" + dir)) {
      std::string relpath = dir.empty() ? name : dir + "/" + name;
      auto node = image.lstat("/usr/share/ca-certificates/" + relpath);
      if (!node) continue;
      if (node->type == EntryType::kDirectory) todo.push_back(relpath);
      else if (name.size() > 4 && name.compare(name.size() - 4, 4, ".crt") == 0) certs.push_back(relpath);
    }
  }
  std::sort(certs.begin(), certs.end());
  if (certs.empty()) return;
  std::set<std::string> enabled;
  if (auto existing = image.read("/etc/ca-certificates.conf")) {
    for (auto line : split(*existing, '\n')) {
      auto l = trim(line);
      if (l.empty() || l[0] == '#' || l[0] == '!') continue;
      enabled.insert(std::string(l));
    }
  } else {
    // The postinst on a new system enables every certificate the package ships.
    std::string conf =
        "# This file lists certificates that you wish to use or to ignore to be\n"
        "# installed in /etc/ssl/certs.\n"
        "# update-ca-certificates(8) will update /etc/ssl/certs by reading this file.\n#\n"
        "# This is autogenerated by ca-certificates.config.\n"
        "# Lines of the form '!path' deselect a certificate.\n";
    for (const auto& c : certs) {
      conf += c + "\n";
      enabled.insert(c);
    }
    out.entries.push_back(file("etc/ca-certificates.conf", conf));
  }
  std::string bundle;
  size_t count = 0;
  for (const auto& c : certs) {
    if (!enabled.count(c)) continue;
    auto pem = image.read("/usr/share/ca-certificates/" + c, 1u << 20);
    if (!pem) continue;
    bundle += *pem;
    if (!bundle.empty() && bundle.back() != '\n') bundle.push_back('\n');
    std::string base = c.substr(c.rfind('/') + 1);
    base = base.substr(0, base.size() - 4) + ".pem";
    if (!image.lstat("/etc/ssl/certs/" + base))
      out.entries.push_back(symlink("etc/ssl/certs/" + base, "/usr/share/ca-certificates/" + c));
    ++count;
  }
  out.entries.push_back(file("etc/ssl/certs/ca-certificates.crt", bundle));
  out.done.push_back("/etc/ssl/certs/ca-certificates.crt with " + std::to_string(count) + " certificates (ca-certificates)");
}

// Copies of a default file, as base-files', libc-bin's and tzdata's postinst make on a new system.
void copy_if_missing(const FileTree& image, const std::string& from, const std::string& to, const std::string& why,
                     NativeEffects& out) {
  if (image.lstat(to)) return;
  auto text = image.read(from, 4u << 20);
  if (!text) return;
  out.entries.push_back(file(rel(to), *text));
  out.done.push_back(to + " from " + from + " (" + why + ")");
}

void base_files(const FileTree& image, NativeEffects& out) {
  const std::string dir = "/usr/share/base-files/";
  if (!image.lstat(dir)) return;
  copy_if_missing(image, dir + "profile", "/etc/profile", "base-files", out);
  copy_if_missing(image, dir + "motd", "/etc/motd", "base-files", out);
  copy_if_missing(image, dir + "info.dir", "/usr/share/info/dir", "base-files", out);
  copy_if_missing(image, dir + "dot.profile", "/root/.profile", "base-files", out);
  copy_if_missing(image, dir + "dot.bashrc", "/root/.bashrc", "base-files", out);
  for (const char* d : {"usr/local", "usr/local/share", "usr/local/share/man", "usr/local/bin", "usr/local/games",
                        "usr/local/lib", "usr/local/include", "usr/local/sbin", "usr/local/src", "usr/local/etc"})
    if (!image.lstat(d)) out.entries.push_back(directory(d));
}

// debianutils' update-shells: the packaged list, every package's shells.d/ entries, and the /usr
// spelling of each /bin one on a merged-/usr system.
void shells(const FileTree& image, NativeEffects& out) {
  if (image.lstat("/etc/shells")) return;
  auto base = image.read("/usr/share/debianutils/shells");
  if (!base) return;
  std::vector<std::string> lines;
  std::set<std::string> seen;
  auto add = [&](std::string_view l) {
    std::string line(trim(l));
    if (line.empty()) return;
    if (line[0] == '#') {
      lines.push_back(line);
      return;
    }
    if (!seen.insert(line).second) return;
    lines.push_back(line);
  };
  for (auto l : split(*base, '\n')) add(l);
  for (const auto& name : image.list("/usr/share/debianutils/shells.d"))
    if (auto more = image.read("/usr/share/debianutils/shells.d/" + name))
      for (auto l : split(*more, '\n')) add(l);
  auto bin = image.lstat("/bin");
  bool merged = bin && bin->type == EntryType::kSymlink;
  std::vector<std::string> with_usr;
  for (const auto& l : lines) {
    with_usr.push_back(l);
    if (merged && l.rfind("/bin/", 0) == 0 && !seen.count("/usr" + l)) with_usr.push_back("/usr" + l);
  }
  out.entries.push_back(file("etc/shells", join(with_usr, "\n") + "\n"));
  out.done.push_back("/etc/shells (update-shells)");
}

void timezone(const FileTree& image, NativeEffects& out) {
  if (!image.lstat("/usr/share/zoneinfo/Etc/UTC") || image.lstat("/etc/localtime")) return;
  out.entries.push_back(symlink("etc/localtime", "/usr/share/zoneinfo/Etc/UTC"));
  if (!image.lstat("/etc/timezone")) out.entries.push_back(file("etc/timezone", "Etc/UTC\n"));
  out.done.push_back("/etc/localtime -> Etc/UTC (tzdata)");
}

}  // namespace

std::vector<AlternativeCall> alternative_calls(const std::string& script) {
  // Join continuation lines, then read each logical line's words.
  std::string joined;
  joined.reserve(script.size());
  for (size_t i = 0; i < script.size(); ++i) {
    if (script[i] == '\\' && i + 1 < script.size() && script[i + 1] == '\n') {
      joined.push_back(' ');
      ++i;
      continue;
    }
    joined.push_back(script[i]);
  }
  std::vector<AlternativeCall> out;
  for (auto line : split(joined, '\n')) {
    auto words = shell_words(line);
    for (size_t i = 0; i < words.size(); ++i) {
      if (words[i] != "update-alternatives") continue;
      size_t k = i + 1;
      while (k < words.size() && words[k].rfind("--", 0) == 0 && words[k] != "--install") ++k;  // --quiet, --force
      if (k + 4 >= words.size() || words[k] != "--install") break;
      AlternativeCall call;
      call.link = words[k + 1];
      call.name = words[k + 2];
      call.path = words[k + 3];
      const std::string& prio = words[k + 4];
      bool literal = true;
      for (const auto& w : {call.link, call.name, call.path, prio})
        if (w.find('$') != std::string::npos || w.find('`') != std::string::npos) literal = false;
      // A priority is an int: "--", "1-2" or one past INT_MAX is no literal call (std::stoi threw).
      auto [prio_end, prio_error] = std::from_chars(prio.data(), prio.data() + prio.size(), call.priority);
      if (!literal || prio_error != std::errc() || prio_end != prio.data() + prio.size()) break;
      size_t j = k + 5;
      while (j + 3 < words.size() && words[j] == "--slave") {
        AlternativeCall::Slave s{words[j + 1], words[j + 2], words[j + 3]};
        j += 4;
        if (s.link.find('$') != std::string::npos || s.path.find('$') != std::string::npos) continue;
        call.slaves.push_back(std::move(s));
      }
      if (call.link.empty() || call.link[0] != '/' || call.path.empty() || call.path[0] != '/') break;
      out.push_back(std::move(call));
      break;
    }
  }
  return out;
}

std::vector<Entry> merged_usr_entries(const FileTree& image, const std::string& arch) {
  std::vector<Entry> out;
  if (image.lstat("/bin") || image.lstat("/sbin") || image.lstat("/lib")) return out;
  std::vector<std::string> dirs = {"bin", "sbin", "lib"};
  if (arch == "amd64") dirs.push_back("lib64");
  out.push_back(directory("usr"));
  for (const auto& d : dirs) {
    out.push_back(directory("usr/" + d));
    out.push_back(symlink(d, "usr/" + d));
  }
  return out;
}

NativeEffects native_effects(const FileTree& image, const std::vector<UnpackedPackage>& added) {
  NativeEffects out;
  base_passwd(image, out);
  base_files(image, out);
  copy_if_missing(image, "/usr/share/libc-bin/nsswitch.conf", "/etc/nsswitch.conf", "libc-bin", out);
  shells(image, out);
  timezone(image, out);
  alternatives(image, added, out);
  ca_certificates(image, out);
  // A path under a symlinked directory goes where the link leads, as dpkg's files do: /lib/cpp is
  // usr/lib/cpp on a merged-/usr image. (A layer entry "lib/cpp" next to "lib -> usr/lib" would have
  // readers replace the link with a directory.)
  for (auto& e : out.entries) {
    size_t slash = e.path.rfind('/');
    if (slash == std::string::npos) continue;
    if (auto parent = image.realpath("/" + e.path.substr(0, slash)); parent && *parent != "/" + e.path.substr(0, slash))
      e.path = rel(*parent) + e.path.substr(slash);
  }
  return out;
}

std::vector<std::string> scripts_not_run(const std::vector<UnpackedPackage>& added) {
  std::vector<std::string> out;
  for (const auto& p : added) {
    std::vector<std::string> scripts;
    for (const char* s : {"preinst", "postinst"})
      if (p.control_files.count(s)) scripts.emplace_back(s);
    if (!scripts.empty()) out.push_back(p.name + ": " + join(scripts, ", "));
  }
  return out;
}

}  // namespace rp::apt
