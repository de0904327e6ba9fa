// The `accounts:` section.
#include "recipe/accounts_section.hpp"

#include <algorithm>
#include <regex>

#include "util/strings.hpp"

namespace rp::recipe {

namespace {

const std::vector<std::string> kAccountsKeys = {"groups", "users"};
const std::vector<std::string> kGroupKeys = {"name", "gid", "members", "replace"};
const std::vector<std::string> kUserKeys = {"name", "uid", "gid", "groups", "home", "shell", "gecos", "create_home", "replace"};
constexpr uint32_t kMaxId = 0x7fffffff;

class AccountsSectionReader {
 public:
  AccountsSectionReader(const DocumentReader& in, AccountsSection& section) : in_(in), s_(section) {}

  void read(const YAML::Node& node) {
    if (!node.IsMap()) {
      in_.error(node, "'accounts' must be a mapping (groups:, users:)");
      return;
    }
    s_.where = in_.at(node);
    if (!in_.check_keys(node, kAccountsKeys, "accounts")) return;
    if (auto n = node["groups"]) {
      if (!n.IsSequence()) in_.error(n, "'groups' must be a list of {name:, gid:} items");
      else for (const auto& item : n) group(item);
    }
    if (auto n = node["users"]) {
      if (!n.IsSequence()) in_.error(n, "'users' must be a list of {name:, uid:, home:, shell:} items");
      else for (const auto& item : n) user(item);
    }
  }

 private:
  // POSIX-portable names as useradd accepts them by default (NAME_REGEX of adduser).
  std::optional<std::string> name(const YAML::Node& node, const std::string& what) {
    auto n = node["name"];
    if (!n) {
      in_.error(node, "a " + what + " needs a name:");
      return std::nullopt;
    }
    auto t = in_.text(n, "name");
    if (!t) return std::nullopt;
    if (!valid_name(*t)) {
      in_.error(n, "'" + *t + "' is not a valid " + what + " name",
                "use lowercase letters, digits, '_' and '-', starting with a letter or '_', at most 32 characters");
      return std::nullopt;
    }
    return t;
  }

  // A byte below 0x20 or DEL: /etc/passwd is a line per account, and a NUL or newline in a field
  // would end it early or forge another.
  static bool has_control(const std::string& t) {
    return std::any_of(t.begin(), t.end(), [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; });
  }

  static bool valid_name(const std::string& t) {
    static const std::regex kName("[a-z_][a-z0-9_-]*[$]?");
    return t.size() <= 32 && std::regex_match(t, kName);
  }

  // A list of group or user names (members:, groups:), each a valid name.
  std::vector<std::string> names(const YAML::Node& n, const std::string& key, const std::string& what) {
    auto list = in_.string_list(n, key);
    if (!list) return {};
    for (const auto& x : *list)
      if (!valid_name(x)) {
        in_.error(n, "'" + x + "' in '" + key + "' is not a valid " + what + " name",
                  "use lowercase letters, digits, '_' and '-', starting with a letter or '_', at most 32 characters");
        return {};
      }
    return *list;
  }

  std::optional<std::string> absolute(const YAML::Node& n, const std::string& key) {
    auto t = in_.text(n, key);
    bool dotdot = false;
    if (t)
      for (size_t start = 0; start <= t->size();) {
        size_t end = t->find('/', start);
        if (end == std::string::npos) end = t->size();
        if (t->compare(start, end - start, "..") == 0) dotdot = true;
        start = end + 1;
      }
    if (t && (t->empty() || (*t)[0] != '/' || dotdot || t->find(':') != std::string::npos || has_control(*t))) {
      in_.error(n, "'" + key + "' must be an absolute path without '..', ':' or control characters, got '" + printable(*t) + "'");
      return std::nullopt;
    }
    return t;
  }

  void group(const YAML::Node& node) {
    if (!node.IsMap()) {
      in_.error(node, "a group must be a mapping {name:, gid:}");
      return;
    }
    if (!in_.check_keys(node, kGroupKeys, "group")) return;
    AccountGroup g;
    g.where = in_.at(node);
    auto n = name(node, "group");
    if (!n) return;
    g.name = *n;
    if (auto x = node["gid"]) g.gid = in_.number(x, "gid", 10, kMaxId);
    if (auto x = node["members"]) g.members = names(x, "members", "user");
    if (auto x = node["replace"]) g.replace = in_.boolean(x, "replace").value_or(false);
    for (const auto& other : s_.groups) {
      if (other.name == g.name) in_.error(node, "the group " + g.name + " is listed twice (first at " + other.where.str() + ")");
      else if (g.gid && other.gid == g.gid)
        in_.error(node, "gid " + std::to_string(*g.gid) + " is given to " + other.name + " and " + g.name);
    }
    s_.groups.push_back(std::move(g));
  }

  void user(const YAML::Node& node) {
    if (!node.IsMap()) {
      in_.error(node, "a user must be a mapping {name:, uid:, home:, shell:}");
      return;
    }
    if (!in_.check_keys(node, kUserKeys, "user")) return;
    AccountUser u;
    u.where = in_.at(node);
    auto n = name(node, "user");
    if (!n) return;
    u.name = *n;
    if (auto x = node["uid"]) u.uid = in_.number(x, "uid", 10, kMaxId);
    if (auto x = node["gid"]) u.gid = in_.number(x, "gid", 10, kMaxId);
    if (auto x = node["groups"]) u.groups = names(x, "groups", "group");
    if (auto x = node["home"]) u.home = absolute(x, "home").value_or("");
    if (auto x = node["shell"]) u.shell = absolute(x, "shell").value_or(u.shell);
    if (auto x = node["gecos"]) {
      auto t = in_.text(x, "gecos");
      if (t && (t->find(':') != std::string::npos || has_control(*t)))
        in_.error(x, "gecos must not contain ':' or a control character (newline, NUL, ...): it is one field of a line "
                     "of /etc/passwd");
      else if (t) u.gecos = *t;
    }
    if (auto x = node["create_home"]) u.create_home = in_.boolean(x, "create_home").value_or(true);
    if (auto x = node["replace"]) u.replace = in_.boolean(x, "replace").value_or(false);
    for (const auto& other : s_.users) {
      if (other.name == u.name) in_.error(node, "the user " + u.name + " is listed twice (first at " + other.where.str() + ")");
      else if (u.uid && other.uid == u.uid)
        in_.error(node, "uid " + std::to_string(*u.uid) + " is given to " + other.name + " and " + u.name);
    }
    s_.users.push_back(std::move(u));
  }

  const DocumentReader& in_;
  AccountsSection& s_;
};

}  // namespace

void merge_accounts_section(const DocumentReader& in, const YAML::Node& node, std::optional<AccountsSection>& section) {
  if (!section) section.emplace();
  AccountsSectionReader(in, *section).read(node);
}

}  // namespace rp::recipe
