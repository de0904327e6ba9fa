// accounts: the merge of requested users and groups into an image's passwd, group, shadow and
// gshadow (src/apt/accounts), over an in-memory tree; the recipe's accounts: section; and the step
// planning its layer from a base image's layer blob.
#include <doctest/doctest.h>

#include <map>

#include "apt/accounts.hpp"
#include "image/rootfs_view.hpp"
#include "plan/plan.hpp"
#include "plan/steps.hpp"
#include "image_test_support.hpp"
#include "recipe/model.hpp"
#include "test_helpers.hpp"
#include "util/byte_sink.hpp"
#include "util/error.hpp"

using rp::Entry;
using rp::EntryType;
using rp::InputError;
using rp::RootfsView;
using rp::apt::GroupRequest;
using rp::apt::plan_accounts;
using rp::apt::UserRequest;
using rp::test::dir_entry;
using rp::test::file_entry;

namespace {

// A trimmed Ubuntu 24.04 base: its `ubuntu` user holds uid 1000 and gid 1000.
const std::string kPasswd =
    "root:x:0:0:root:/root:/bin/bash\n"
    "daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
    "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
    "ubuntu:x:1000:1000:Ubuntu:/home/ubuntu:/bin/bash\n";
const std::string kGroup =
    "root:x:0:\n"
    "daemon:x:1:\n"
    "adm:x:4:syslog,ubuntu\n"
    "shadow:x:42:\n"
    "video:x:44:\n"
    "render:x:993:\n"
    "nogroup:x:65534:\n"
    "ubuntu:x:1000:\n";
const std::string kShadow =
    "root:*:19000:0:99999:7:::\n"
    "daemon:*:19000:0:99999:7:::\n"
    "nobody:*:19000:0:99999:7:::\n"
    "ubuntu:!:19000:0:99999:7:::\n";
const std::string kGshadow =
    "root:*::\n"
    "daemon:*::\n"
    "adm:*::syslog,ubuntu\n"
    "shadow:*::\n"
    "video:*::\n"
    "render:!::\n"
    "nogroup:*::\n"
    "ubuntu:!::\n";

RootfsView tree(const std::vector<Entry>& entries) {
  RootfsView v;
  v.add_entries(entries);
  return v;
}

RootfsView ubuntu() {
  return tree({dir_entry("etc"), file_entry("etc/passwd", kPasswd), file_entry("etc/group", kGroup),
               file_entry("etc/shadow", kShadow, 0640), file_entry("etc/gshadow", kGshadow, 0640), dir_entry("home"),
               dir_entry("home/ubuntu", 0750)});
}

std::string text(const Entry& e) {
  rp::StringSink s;
  e.content->write_to(s);
  return s.take();
}

// The result by path ("etc/passwd", "var/lib/jenkins").
std::map<std::string, Entry> by_path(const std::vector<Entry>& entries) {
  std::map<std::string, Entry> out;
  for (const auto& e : entries) out[e.path] = e;
  return out;
}

UserRequest jenkins(std::optional<uint32_t> uid = 1000) {
  UserRequest u;
  u.where = "recipe.yaml:5:5";
  u.name = "jenkins";
  u.uid = uid;
  u.home = "/var/lib/jenkins";
  u.shell = "/bin/bash";
  u.gecos = "Jenkins";
  return u;
}

std::string error_of(const rp::FileTree& image, const std::vector<GroupRequest>& groups,
                     const std::vector<UserRequest>& users, std::string* hint = nullptr) {
  try {
    plan_accounts(image, groups, users, 0);
  } catch (const InputError& e) {
    if (hint) *hint = e.hint();
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("accounts: the base's lines stay verbatim and in order, new ones are appended") {
  auto image = ubuntu();
  UserRequest u = jenkins(1001);
  u.groups = {"video", "render"};
  auto r = plan_accounts(image, {}, {u}, 19700);
  auto out = by_path(r.entries);
  REQUIRE(out.count("etc/passwd"));
  CHECK(text(out["etc/passwd"]) == kPasswd + "jenkins:x:1001:1001:Jenkins:/var/lib/jenkins:/bin/bash\n");
  // Its own group takes the uid as gid (free); video and render list it as a member.
  std::string group = text(out["etc/group"]);
  CHECK(group ==
        "root:x:0:\ndaemon:x:1:\nadm:x:4:syslog,ubuntu\nshadow:x:42:\nvideo:x:44:jenkins\nrender:x:993:jenkins\n"
        "nogroup:x:65534:\nubuntu:x:1000:\njenkins:x:1001:\n");
  CHECK(text(out["etc/gshadow"]) ==
        "root:*::\ndaemon:*::\nadm:*::syslog,ubuntu\nshadow:*::\nvideo:*::jenkins\nrender:!::jenkins\nnogroup:*::\n"
        "ubuntu:!::\njenkins:!::\n");
  // Locked, no password ever; the last-change day is the one given.
  CHECK(text(out["etc/shadow"]) == kShadow + "jenkins:!:19700:0:99999:7:::\n");
  // shadow and gshadow: 0640 root:shadow where the image has a shadow group.
  CHECK(out["etc/shadow"].mode == 0640);
  CHECK(out["etc/shadow"].gid == 42);
  CHECK(out["etc/gshadow"].mode == 0640);
  CHECK(out["etc/gshadow"].gid == 42);
  CHECK(out["etc/passwd"].mode == 0644);
  CHECK(out["etc/passwd"].uid == 0);
  CHECK(out["etc/passwd"].origin == "accounts");
  // The home: a directory owned by the user.
  REQUIRE(out.count("var/lib/jenkins"));
  CHECK(out["var/lib/jenkins"].type == EntryType::kDirectory);
  CHECK(out["var/lib/jenkins"].mode == 0755);
  CHECK(out["var/lib/jenkins"].uid == 1001);
  CHECK(out["var/lib/jenkins"].gid == 1001);
  // Deterministic: the same inputs give the same bytes.
  auto again = by_path(plan_accounts(image, {}, {u}, 19700).entries);
  for (const char* p : {"etc/passwd", "etc/group", "etc/shadow", "etc/gshadow"}) CHECK(text(again[p]) == text(out[p]));
}

TEST_CASE("accounts: requested groups, a user of a requested gid, automatic ids") {
  auto image = ubuntu();
  GroupRequest ci;
  ci.name = "ci";
  ci.gid = 2000;
  ci.members = {"daemon"};
  GroupRequest autog;
  autog.name = "builders";  // no gid: the lowest free from 1000 (1000 is ubuntu's)
  UserRequest u = jenkins(std::nullopt);  // no uid: 1001
  u.gid = 2000;
  u.groups = {"builders"};
  auto out = by_path(plan_accounts(image, {ci, autog}, {u}, 0).entries);
  std::string group = text(out["etc/group"]);
  CHECK(group == kGroup + "ci:x:2000:daemon\nbuilders:x:1001:jenkins\n");
  CHECK(text(out["etc/passwd"]) == kPasswd + "jenkins:x:1001:2000:Jenkins:/var/lib/jenkins:/bin/bash\n");
  CHECK(out["var/lib/jenkins"].gid == 2000);
}

TEST_CASE("accounts: Ubuntu 24.04's ubuntu user holds 1000 -- an error naming both, unless replace") {
  auto image = ubuntu();
  std::string hint;
  std::string msg = error_of(image, {}, {jenkins()}, &hint);
  CHECK(msg.find("recipe.yaml:5:5") != std::string::npos);
  CHECK(msg.find("jenkins") != std::string::npos);
  CHECK(msg.find("ubuntu") != std::string::npos);
  CHECK(msg.find("uid 1000") != std::string::npos);
  CHECK(hint.find("replace: true") != std::string::npos);
  CHECK(hint.find("another uid") != std::string::npos);

  // The group side: gid 1000 for jenkins is ubuntu's group.
  GroupRequest g;
  g.where = "recipe.yaml:3:5";
  g.name = "jenkins";
  g.gid = 1000;
  msg = error_of(image, {g}, {}, &hint);
  CHECK(msg.find("gid 1000 of the group jenkins is held by the base image's group ubuntu") != std::string::npos);
  CHECK(hint.find("replace: true") != std::string::npos);

  // A name the base has already.
  UserRequest daemon = jenkins(5000);
  daemon.name = "daemon";
  msg = error_of(image, {}, {daemon}, &hint);
  CHECK(msg.find("the user daemon exists in the base image already (uid 1)") != std::string::npos);
  CHECK(hint.find("replace: true") != std::string::npos);
}

TEST_CASE("accounts: replace takes over the line of the same name and the one holding the id") {
  auto image = ubuntu();
  GroupRequest g;
  g.name = "jenkins";
  g.gid = 1000;
  g.replace = true;
  UserRequest u = jenkins();
  u.gid = 1000;
  u.replace = true;
  auto out = by_path(plan_accounts(image, {g}, {u}, 0).entries);
  std::string passwd = text(out["etc/passwd"]);
  CHECK(passwd.find("ubuntu") == std::string::npos);
  CHECK(passwd == "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
                  "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
                  "jenkins:x:1000:1000:Jenkins:/var/lib/jenkins:/bin/bash\n");
  std::string group = text(out["etc/group"]);
  CHECK(group.find("ubuntu") == std::string::npos);  // its group replaced, its memberships gone
  CHECK(group.find("adm:x:4:syslog\n") != std::string::npos);
  CHECK(group.find("jenkins:x:1000:\n") != std::string::npos);
  CHECK(text(out["etc/shadow"]).find("ubuntu") == std::string::npos);
  CHECK(text(out["etc/gshadow"]).find("ubuntu") == std::string::npos);
  CHECK(text(out["etc/gshadow"]).find("adm:*::syslog\n") != std::string::npos);

  // Replacing a user of the same name keeps its place in the file.
  UserRequest d = jenkins(1);
  d.name = "daemon";
  d.gid = 1;
  d.replace = true;
  d.create_home = false;
  passwd = text(by_path(plan_accounts(image, {}, {d}, 0).entries)["etc/passwd"]);
  CHECK(passwd == "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:Jenkins:/var/lib/jenkins:/bin/bash\n"
                  "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
                  "ubuntu:x:1000:1000:Ubuntu:/home/ubuntu:/bin/bash\n");
}

TEST_CASE("accounts: scratch -- root first, shadow 0600 root, the home made") {
  auto image = tree({});
  GroupRequest g;
  g.name = "jenkins";
  g.gid = 1000;
  UserRequest u = jenkins();
  u.gid = 1000;
  auto out = by_path(plan_accounts(image, {g}, {u}, 7).entries);
  CHECK(text(out["etc/passwd"]) == "root:x:0:0:root:/root:/bin/sh\njenkins:x:1000:1000:Jenkins:/var/lib/jenkins:/bin/bash\n");
  CHECK(text(out["etc/group"]) == "root:x:0:\njenkins:x:1000:\n");
  CHECK(text(out["etc/shadow"]) == "root:*:7:0:99999:7:::\njenkins:!:7:0:99999:7:::\n");
  CHECK(text(out["etc/gshadow"]) == "root:*::\njenkins:!::\n");
  CHECK(out["etc/shadow"].mode == 0600);
  CHECK(out["etc/shadow"].gid == 0);
  CHECK(out["etc/gshadow"].mode == 0600);
  CHECK(out["var/lib/jenkins"].uid == 1000);
  CHECK(out["var/lib/jenkins"].gid == 1000);
}

TEST_CASE("accounts: a missing trailing newline is added, an existing home keeps its attributes") {
  auto image = tree({dir_entry("etc"), file_entry("etc/passwd", "root:x:0:0:root:/root:/bin/sh"),
                     file_entry("etc/group", "root:x:0:\n# a comment stays\nusers:x:100:"), dir_entry("var"),
                     dir_entry("var/lib"), dir_entry("var/lib/jenkins", 0700)});
  UserRequest u = jenkins();
  u.gid = 100;
  auto out = by_path(plan_accounts(image, {}, {u}, 0).entries);
  CHECK(text(out["etc/passwd"]) == "root:x:0:0:root:/root:/bin/sh\njenkins:x:1000:100:Jenkins:/var/lib/jenkins:/bin/bash\n");
  CHECK(text(out["etc/group"]) == "root:x:0:\n# a comment stays\nusers:x:100:\n");
  CHECK(out.count("var/lib/jenkins") == 0);
  // A shadow file the base lacks (passwd without shadow) holds only the new entries.
  CHECK(text(out["etc/shadow"]) == "jenkins:!:0:0:99999:7:::\n");
}

TEST_CASE("accounts: a gid naming no group and a missing supplementary group are errors") {
  auto image = ubuntu();
  UserRequest u = jenkins(1001);
  u.gid = 4242;
  std::string hint;
  std::string msg = error_of(image, {}, {u}, &hint);
  CHECK(msg.find("the user jenkins's gid 4242 names no group") != std::string::npos);
  CHECK(hint.find("accounts.groups") != std::string::npos);

  u.gid.reset();
  u.groups = {"docker"};
  msg = error_of(image, {}, {u}, &hint);
  CHECK(msg.find("the user jenkins's group docker does not exist") != std::string::npos);

  // A requested group satisfies both.
  GroupRequest docker;
  docker.name = "docker";
  docker.gid = 4242;
  u.gid = 4242;
  CHECK(error_of(image, {docker}, {u}) == "");
}

TEST_CASE("accounts: a passwd that is not a regular file is refused, not overwritten") {
  auto image = tree({dir_entry("etc"), file_entry("etc/passwd.real", kPasswd), rp::test::symlink_entry("etc/passwd", "passwd.real")});
  std::string msg = error_of(image, {}, {jenkins(1001)});
  CHECK(msg.find("/etc/passwd is a symlink") != std::string::npos);
}

// --- the recipe's accounts: section ---------------------------------------------------------------

namespace {
std::string accounts_load_error(const rp::test::TempDir& dir, const std::string& text) {
  auto path = dir.write("recipe.yaml", text);
  try {
    rp::recipe::load_recipe(path, {});
    return "";
  } catch (const rp::recipe::RecipeError& e) {
    return e.what();
  }
}
}  // namespace

TEST_CASE("recipe accounts: a complete section loads, fragments append") {
  rp::test::TempDir dir;
  dir.write("layers/ci.yaml", "accounts:\n  groups: [{name: ci, gid: 3000}]\n");
  auto path = dir.write("recipe.yaml", R"(name: a
include: [ci]
accounts:
  groups: [{name: jenkins, gid: 1000, members: [daemon], replace: true}]
  users:
    - {name: jenkins, uid: 1000, gid: 1000, home: /var/lib/jenkins, shell: /bin/bash, groups: [video, render], gecos: "Jenkins CI", create_home: false}
    - {name: svc$}
)");
  auto r = rp::recipe::load_recipe(path, {});
  REQUIRE(r.accounts);
  REQUIRE(r.accounts->groups.size() == 2);
  CHECK(r.accounts->groups[0].name == "ci");
  CHECK(r.accounts->groups[1].name == "jenkins");
  CHECK(r.accounts->groups[1].gid == 1000u);
  CHECK(r.accounts->groups[1].members == std::vector<std::string>{"daemon"});
  CHECK(r.accounts->groups[1].replace);
  REQUIRE(r.accounts->users.size() == 2);
  const auto& u = r.accounts->users[0];
  CHECK(u.uid == 1000u);
  CHECK(u.gid == 1000u);
  CHECK(u.home == "/var/lib/jenkins");
  CHECK(u.shell == "/bin/bash");
  CHECK(u.groups == std::vector<std::string>{"video", "render"});
  CHECK(u.gecos == "Jenkins CI");
  CHECK_FALSE(u.create_home);
  CHECK_FALSE(u.replace);
  CHECK(r.accounts->users[1].shell == "/bin/sh");
  CHECK(r.accounts->users[1].home.empty());
  CHECK(r.accounts->users[1].create_home);
}

TEST_CASE("recipe accounts: mistakes at file:line:column") {
  rp::test::TempDir dir;
  struct Case {
    std::string section;  // after "name: x\naccounts:\n"
    std::string expected;
  };
  const std::vector<Case> cases = {
      {"  users: [{name: Jenkins}]\n", "recipe.yaml:3:18: 'Jenkins' is not a valid user name"},
      {"  users: [{name: 1abc}]\n", "'1abc' is not a valid user name"},
      {"  users: [{name: " + std::string(33, 'a') + "}]\n", "is not a valid user name"},
      {"  groups: [{name: 'a:b'}]\n", "is not a valid group name"},
      {"  users: [{name: a, groups: ['x,y']}]\n", "'x,y' in 'groups' is not a valid group name"},
      {"  groups: [{name: a, members: [Bob]}]\n", "'Bob' in 'members' is not a valid user name"},
      {"  users: [{name: a, uid: 2147483648}]\n", "recipe.yaml:3:26"},
      {"  groups: [{name: a, gid: -1}]\n", "recipe.yaml:3:27"},
      {"  users: [{name: a}, {name: a}]\n", "the user a is listed twice (first at "},
      {"  groups: [{name: a, gid: 5}, {name: b, gid: 5}]\n", "gid 5 is given to a and b"},
      {"  users: [{name: a, uid: 5}, {name: b, uid: 5}]\n", "uid 5 is given to a and b"},
      {"  users: [{name: a, home: var/lib/a}]\n", "recipe.yaml:3:27: 'home' must be an absolute path"},
      {"  users: [{name: a, home: /var/..}]\n", "'home' must be an absolute path without '..'"},
      {"  users: [{name: a, shell: bash}]\n", "'shell' must be an absolute path"},
      {"  users: [{name: a, gecos: 'a:b'}]\n", "gecos must not contain ':'"},
      {"  users: [{name: a, replace: maybe}]\n", "recipe.yaml:3:30"},
      {"  users: [{name: a, shel: /bin/sh}]\n", "did you mean 'shell'?"},
      {"  user: [{name: a}]\n", "did you mean 'users'?"},
      {"  users: {name: a}\n", "'users' must be a list"},
      {"  - a\n", "'accounts' must be a mapping"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.section);
    std::string msg = accounts_load_error(dir, "name: x\naccounts:\n" + c.section);
    CHECK(msg.find(c.expected) != std::string::npos);
    if (msg.find(c.expected) == std::string::npos) MESSAGE(msg);
  }
}

TEST_CASE("recipe accounts: a name listed in a fragment and again in the recipe is an error") {
  rp::test::TempDir dir;
  dir.write("layers/ci.yaml", "accounts:\n  users: [{name: jenkins}]\n");
  std::string msg = accounts_load_error(dir, "name: x\ninclude: [ci]\naccounts:\n  users: [{name: jenkins}]\n");
  CHECK(msg.find("the user jenkins is listed twice") != std::string::npos);
}

// --- the step: the base's files read from its layer blob, one "accounts" layer ---------------------

namespace {
rp::BaseImage ubuntu_base(rp::ContentStore& store) {
  std::vector<Entry> entries = {dir_entry("etc"), file_entry("etc/passwd", kPasswd), file_entry("etc/group", kGroup),
                                file_entry("etc/shadow", kShadow, 0640), file_entry("etc/gshadow", kGshadow, 0640),
                                file_entry("etc/hostname", "base\n"), dir_entry("home"), dir_entry("home/ubuntu", 0750)};
  rp::BaseImage base;
  rp::ImageLayer layer;
  layer.blob = rp::test::store_layer(store, entries);
  layer.diff_id = "sha256:" + std::string(64, '0');
  base.image.layers.push_back(layer);
  base.image.config = {{"config", {{"Env", {"PATH=/usr/bin:/bin"}}}},
                       {"rootfs", {{"type", "layers"}, {"diff_ids", {layer.diff_id}}}}};
  base.name = "fake:ubuntu";
  base.digest = "sha256:" + std::string(64, '1');
  return base;
}

rp::BuildPlan plan_with(rp::test::TempDir& dir, rp::ContentStore& store, const std::string& body, rp::StepMode mode) {
  auto r = rp::recipe::load_recipe(dir.write("recipe.yaml", "name: t\nbase: fake:ubuntu\n" + body), {});
  rp::PlanOptions options;
  options.base = ubuntu_base(store);
  rp::BuildPlan p = rp::make_plan(r, options);
  rp::StepRunOptions steps;
  steps.mode = mode;
  steps.store = mode == rp::StepMode::kOffline ? nullptr : &store;
  rp::run_steps(p, r, steps);
  return p;
}
}  // namespace

TEST_CASE("accounts step: reads the base's files from its layer and plans one accounts layer") {
  rp::test::TempDir dir;
  rp::ContentStore store{dir.path / "store"};
  const std::string body = "accounts:\n  users: [{name: jenkins, uid: 1001, home: /var/lib/jenkins, groups: [video]}]\n";
  auto p = plan_with(dir, store, body, rp::StepMode::kBuild);
  REQUIRE(p.layers.size() == 1);
  CHECK(p.layers[0].name == "accounts");
  CHECK(p.layers[0].step == "accounts");
  auto out = by_path(p.layers[0].entries);
  CHECK(text(out["etc/passwd"]) == kPasswd + "jenkins:x:1001:1001::/var/lib/jenkins:/bin/sh\n");
  CHECK(text(out["etc/group"]).find("video:x:44:jenkins\n") != std::string::npos);
  CHECK(out["etc/shadow"].gid == 42);
  CHECK(out.count("var/lib/jenkins") == 1);
  CHECK(out.count("etc/hostname") == 0);

  // plan / --dry-run: the layer is listed without content; validate: nothing read, no layer.
  auto resolved = plan_with(dir, store, body, rp::StepMode::kResolve);
  REQUIRE(resolved.layers.size() == 1);
  CHECK(resolved.layers[0].entries.empty());
  CHECK(plan_with(dir, store, body, rp::StepMode::kOffline).layers.empty());

  // The clash with the base's ubuntu user is found while planning (exit 2).
  const std::string clash = "accounts:\n  users: [{name: jenkins, uid: 1000}]\n";
  for (auto mode : {rp::StepMode::kBuild, rp::StepMode::kResolve}) {
    try {
      plan_with(dir, store, clash, mode);
      FAIL("no error");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find("held by the base image's user ubuntu") != std::string::npos);
      CHECK(e.code() == rp::ExitCode::kInvalidInput);
    }
  }
}
