#include "apt/accounts.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "util/error.hpp"
#include "util/strings.hpp"

namespace rp::apt {

namespace {

constexpr const char* kAccountsOrigin = "accounts";

// One colon-separated database (passwd, group, shadow, gshadow): its lines as written.
struct Table {
  std::string path;
  bool existed = false;
  std::string original;  // the base's bytes
  std::vector<std::string> lines;

  static Table read(const FileTree& image, const std::string& path) {
    Table t;
    t.path = path;
    auto node = image.lstat(path);
    if (!node) return t;
    std::optional<std::string> text;
    if (node->type == EntryType::kFile) text = image.read(path, 16u << 20);
    if (!text) {
      // There but not a regular file we can read (a symlink, a directory, too large): replacing
      // it would drop or detach the base's accounts, so refuse.
      std::string what = node->type == EntryType::kSymlink     ? "a symlink (to " + node->link_target + ")"
                         : node->type == EntryType::kDirectory ? std::string("a directory")
                         : node->type == EntryType::kFile      ? std::string("not readable (larger than 16 MiB?)")
                                                               : std::string("not a regular file");
      throw InputError("accounts: the image's " + path + " is " + what + "; its entries cannot be merged",
                       "make " + path + " a regular file before the accounts: step");
    }
    t.existed = true;
    t.original = *text;
    for (auto l : split(*text, '\n')) t.lines.emplace_back(l);
    while (!t.lines.empty() && t.lines.back().empty()) t.lines.pop_back();
    return t;
  }
  static std::vector<std::string> fields(const std::string& line) {
    std::vector<std::string> out;
    for (auto f : split(line, ':')) out.emplace_back(f);
    return out;
  }
  // The index of the line for `name`, or -1.
  int find(const std::string& name) const {
    for (size_t i = 0; i < lines.size(); ++i)
      if (!lines[i].empty() && lines[i][0] != '#' && fields(lines[i])[0] == name) return static_cast<int>(i);
    return -1;
  }
  // The name of the entry holding `id` in field 2 (passwd, group), or "".
  std::string holder_of(uint32_t id) const {
    for (const auto& l : lines) {
      auto f = fields(l);
      if (f.size() > 2 && !f[0].empty() && f[0][0] != '#' && f[2] == std::to_string(id)) return f[0];
    }
    return "";
  }
  std::optional<uint32_t> id_of(const std::string& name) const {
    int i = find(name);
    if (i < 0) return std::nullopt;
    auto f = fields(lines[static_cast<size_t>(i)]);
    if (f.size() < 3 || f[2].empty() || f[2].size() > 10 || f[2].find_first_not_of("0123456789") != std::string::npos)
      return std::nullopt;
    return static_cast<uint32_t>(std::stoul(f[2]));
  }
  void set(const std::string& name, const std::string& line) {
    int i = find(name);
    if (i >= 0) lines[static_cast<size_t>(i)] = line;
    else lines.push_back(line);
  }
  void remove(const std::string& name) {
    int i = find(name);
    if (i >= 0) lines.erase(lines.begin() + i);
  }
  // Drops `user` from the comma-separated member lists in fields `from`.. (group: 3; gshadow: 2
  // administrators and 3 members).
  void drop_member(const std::string& user, size_t from) {
    for (auto& l : lines) {
      if (l.empty() || l[0] == '#') continue;
      auto f = fields(l);
      bool changed = false;
      for (size_t k = from; k < f.size() && k < 4; ++k) {
        std::vector<std::string> kept;
        bool found = false;
        for (auto m : split(f[k], ',')) {
          if (m == user) found = true;
          else kept.emplace_back(m);
        }
        if (found) {  // other lines stay verbatim
          f[k] = join(kept, ",");
          changed = true;
        }
      }
      if (changed) l = join(f, ":");
    }
  }
  std::string text() const { return lines.empty() ? "" : join(lines, "\n") + "\n"; }
  // Whether the file must be written: it changed, or it is new and has lines.
  bool changed() const { return existed ? text() != original : !lines.empty(); }
};

uint32_t next_free(const Table& t, uint32_t from) {
  uint32_t id = from;
  while (!t.holder_of(id).empty()) ++id;
  return id;
}

Entry file(const std::string& path, std::string text, uint32_t mode, uint32_t gid) {
  Entry e;
  e.path = path.substr(1);
  e.type = EntryType::kFile;
  e.mode = mode;
  e.gid = gid;
  e.content = std::make_shared<InlineContent>(std::move(text));
  e.origin = kAccountsOrigin;
  return e;
}

// Whether `text` can be one ':'-separated field of a passwd line: no ':' and no control byte.
bool one_field(const std::string& text) {
  return std::none_of(text.begin(), text.end(),
                      [](char c) { return c == ':' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
}

}  // namespace

AccountsResult plan_accounts(const FileTree& image, const std::vector<GroupRequest>& groups,
                             const std::vector<UserRequest>& users, int64_t days_since_epoch) {
  Table passwd = Table::read(image, "/etc/passwd");
  Table group = Table::read(image, "/etc/group");
  Table shadow = Table::read(image, "/etc/shadow");
  Table gshadow = Table::read(image, "/etc/gshadow");
  // An empty root: root's own entries first, as every system has them.
  if (!passwd.existed) passwd.lines.push_back("root:x:0:0:root:/root:/bin/sh");
  if (!group.existed) group.lines.push_back("root:x:0:");
  if (!shadow.existed && !passwd.existed) shadow.lines.push_back("root:*:" + std::to_string(days_since_epoch) + ":0:99999:7:::");
  if (!gshadow.existed && !group.existed) gshadow.lines.push_back("root:*::");
  AccountsResult out;

  for (const auto& g : groups) {
    uint32_t gid = g.gid ? *g.gid : next_free(group, 1000);
    std::string holder = group.holder_of(gid);
    bool exists = group.find(g.name) >= 0;
    if (!g.replace) {
      if (exists)
        throw InputError(g.where + ": the group " + g.name + " exists in the base image already (gid " +
                             std::to_string(group.id_of(g.name).value_or(0)) + ")",
                         "use another name, or set replace: true to replace the base's entry");
      if (!holder.empty())
        throw InputError(g.where + ": gid " + std::to_string(gid) + " of the group " + g.name +
                             " is held by the base image's group " + holder,
                         "choose another gid, or set replace: true to replace " + holder);
    } else if (!holder.empty() && holder != g.name) {
      group.remove(holder);
      gshadow.remove(holder);
    }
    group.set(g.name, g.name + ":x:" + std::to_string(gid) + ":" + join(g.members, ","));
    gshadow.set(g.name, g.name + ":!::" + join(g.members, ","));
    out.done.push_back("group " + g.name + " " + std::to_string(gid));
  }

  for (const auto& u : users) {
    // The recipe reader refuses these already; this module writes the lines, so it checks itself.
    for (const std::string* field : {&u.name, &u.gecos, &u.home, &u.shell})
      if (!one_field(*field))
        throw InputError(u.where + ": the user " + printable(u.name) + " has a field with ':' or a control character ('" +
                             printable(*field) + "'), which would break /etc/passwd",
                         "remove it from the recipe's accounts: entry");
    uint32_t uid = u.uid ? *u.uid : next_free(passwd, 1000);
    std::string holder = passwd.holder_of(uid);
    bool exists = passwd.find(u.name) >= 0;
    if (!u.replace) {
      if (exists)
        throw InputError(u.where + ": the user " + u.name + " exists in the base image already (uid " +
                             std::to_string(passwd.id_of(u.name).value_or(0)) + ")",
                         "use another name, or set replace: true to replace the base's entry");
      if (!holder.empty())
        throw InputError(u.where + ": uid " + std::to_string(uid) + " of the user " + u.name +
                             " is held by the base image's user " + holder +
                             (holder == "ubuntu" ? " (Ubuntu 24.04 images have it)" : ""),
                         "choose another uid, or set replace: true to replace " + holder);
    } else if (!holder.empty() && holder != u.name) {
      // The replaced user goes everywhere: its lines and its memberships (grpck would flag them).
      passwd.remove(holder);
      shadow.remove(holder);
      group.drop_member(holder, 3);
      gshadow.drop_member(holder, 2);
    }
    uint32_t gid = 0;
    if (u.gid) {
      gid = *u.gid;
      if (group.holder_of(gid).empty())
        throw InputError(u.where + ": the user " + u.name + "'s gid " + std::to_string(gid) + " names no group",
                         "add the group under accounts.groups, or leave gid out to get a group named " + u.name);
    } else if (auto existing = group.id_of(u.name)) {
      gid = *existing;
    } else {
      // The user's own group, like useradd's USERGROUPS_ENAB: the uid as gid when free.
      gid = group.holder_of(uid).empty() ? uid : next_free(group, 1000);
      group.set(u.name, u.name + ":x:" + std::to_string(gid) + ":");
      gshadow.set(u.name, u.name + ":!::");
    }
    for (const auto& extra : u.groups) {
      int i = group.find(extra);
      if (i < 0)
        throw InputError(u.where + ": the user " + u.name + "'s group " + extra + " does not exist",
                         "add it under accounts.groups (or install the package that makes it first)");
      std::string& line = group.lines[static_cast<size_t>(i)];
      auto f = Table::fields(line);
      std::vector<std::string> members;
      if (f.size() > 3 && !f[3].empty())
        for (auto m : split(f[3], ',')) members.emplace_back(m);
      if (std::find(members.begin(), members.end(), u.name) == members.end()) members.push_back(u.name);
      while (f.size() < 4) f.emplace_back();
      f[3] = join(members, ",");
      line = join(f, ":");
      if (int j = gshadow.find(extra); j >= 0) {
        auto gf = Table::fields(gshadow.lines[static_cast<size_t>(j)]);
        while (gf.size() < 4) gf.emplace_back();
        gf[3] = f[3];
        gshadow.lines[static_cast<size_t>(j)] = join(gf, ":");
      }
    }
    std::string home = u.home.empty() ? "/home/" + u.name : u.home;
    passwd.set(u.name, u.name + ":x:" + std::to_string(uid) + ":" + std::to_string(gid) + ":" + u.gecos + ":" + home + ":" +
                           u.shell);
    shadow.set(u.name, u.name + ":!:" + std::to_string(days_since_epoch) + ":0:99999:7:::");
    if (u.create_home && !image.lstat(home)) {
      Entry dir;
      dir.path = home.substr(1);
      dir.type = EntryType::kDirectory;
      dir.mode = 0755;  // useradd -m with Debian's UMASK 022
      dir.uid = uid;
      dir.gid = gid;
      dir.origin = kAccountsOrigin;
      out.entries.push_back(std::move(dir));
    }
    out.done.push_back("user " + u.name + " " + std::to_string(uid) + ":" + std::to_string(gid) + " " + home);
  }

  // shadow and gshadow are readable by group shadow where the image has one (Debian, Ubuntu).
  uint32_t shadow_gid = group.id_of("shadow").value_or(0);
  uint32_t secret_mode = shadow_gid ? 0640 : 0600;
  // Only the files that change (a base's untouched gshadow stays in its layer as it was).
  if (passwd.changed()) out.entries.push_back(file("/etc/passwd", passwd.text(), 0644, 0));
  if (group.changed()) out.entries.push_back(file("/etc/group", group.text(), 0644, 0));
  if (shadow.changed()) out.entries.push_back(file("/etc/shadow", shadow.text(), secret_mode, shadow_gid));
  if (gshadow.changed()) out.entries.push_back(file("/etc/gshadow", gshadow.text(), secret_mode, shadow_gid));
  return out;
}

}  // namespace rp::apt
