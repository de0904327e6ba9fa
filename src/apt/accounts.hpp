#pragma once
// Users and groups written natively, as useradd and groupadd would write them, into the image's
// /etc/passwd, /etc/group, /etc/shadow and /etc/gshadow, plus the users' home directories.
//
// The base's files are kept line for line (order, comments, unknown lines); new entries are
// appended. A name or id the base already uses for someone else is an error naming both, unless the
// request says `replace` (then the base's line is replaced). Passwords are never set: shadow
// entries are locked ("!"), as `useradd` leaves an account without a password, and the
// last-change day is fixed (SOURCE_DATE_EPOCH's day, else 0) so the files are reproducible.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "entries/entry.hpp"
#include "entries/file_tree.hpp"

namespace rp::apt {

struct GroupRequest {
  std::string where;  // for messages: "recipe.yaml:12:5"
  std::string name;
  std::optional<uint32_t> gid;  // nullopt: the lowest free id from 1000
  std::vector<std::string> members;
  bool replace = false;
};

struct UserRequest {
  std::string where;
  std::string name;
  std::optional<uint32_t> uid;  // nullopt: the lowest free id from 1000
  std::optional<uint32_t> gid;  // nullopt: a group named like the user (made when missing)
  std::vector<std::string> groups;  // supplementary groups, by name
  std::string home;                 // "" = /home/<name>
  std::string shell = "/bin/sh";
  std::string gecos;
  bool create_home = true;
  bool replace = false;
};

struct AccountsResult {
  std::vector<Entry> entries;     // the four files (those that changed) and new home directories
  std::vector<std::string> done;  // "user jenkins 1000:1000 /var/lib/jenkins"
};

// Throws rp::InputError naming the request and the clashing base entry.
AccountsResult plan_accounts(const FileTree& image, const std::vector<GroupRequest>& groups,
                             const std::vector<UserRequest>& users, int64_t days_since_epoch);

}  // namespace rp::apt
