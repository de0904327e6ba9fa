#include <doctest/doctest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "sandbox/sandbox.hpp"
#include "sandbox/tree_diff.hpp"
#include "test_helpers.hpp"
#include "util/error.hpp"

using namespace rp;
using namespace rp::test;
namespace fs = std::filesystem;

namespace {
// Gives every path of `root` to the sandbox's root (what materialize_layer with sandbox_ids() does).
void give_to_sandbox(const fs::path& root) {
  IdMapping ids = sandbox_ids();
  if (::geteuid() != 0) return;
  ::lchown(root.c_str(), ids.uids.to_host(0), ids.gids.to_host(0));
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it)
    ::lchown(it->path().c_str(), ids.uids.to_host(0), ids.gids.to_host(0));
}

// A one-binary root filesystem: busybox-static (tools/install-deps.sh installs it).
bool make_busybox_root(const fs::path& root) {
  if (!fs::exists("/bin/busybox") || geteuid() != 0) return false;
  fs::create_directories(root / "bin");
  fs::create_directories(root / "etc");
  fs::copy_file("/bin/busybox", root / "bin/busybox");
  fs::create_symlink("busybox", root / "bin/sh");
  give_to_sandbox(root);
  // Inside an unprivileged container no runtime can make a container (docs/run.md): nothing to test.
  try {
    SandboxCommand probe;
    probe.name = "probe";
    probe.argv = {"/bin/sh", "-c", "true"};
    run_in_sandbox(root, probe, [](const std::string&) {});
  } catch (const Error& e) {
    MESSAGE("sandbox not possible here: " << e.what());
    return false;
  }
  return true;
}

SandboxResult run(const fs::path& root, const std::string& script, std::vector<std::string>* lines = nullptr,
                  bool network = false, int timeout = 0) {
  SandboxCommand command;
  command.name = "test";
  command.argv = {"/bin/sh", "-c", script};
  command.env = {"PATH=/bin"};
  command.network = network;
  command.timeout_seconds = timeout;
  return run_in_sandbox(root, command, [&](const std::string& line) {
    if (lines) lines->push_back(line);
  });
}

bool saw_line(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}
}  // namespace

TEST_CASE("sandbox: the command's writes become the diff -- it sees its own /proc, /dev and hostname") {
  TempDir dir;
  fs::path root = dir.path / "root";
  if (!make_busybox_root(root)) {
    MESSAGE("skipped: needs root, /bin/busybox and a container runtime");
    return;
  }
  dir.write("root/etc/old", "old");
  dir.write("root/tmp/from-image", "seen\n");
  give_to_sandbox(root);
  prepare_sandbox_rootfs(root, sandbox_ids());
  auto before = snapshot_tree(root);
  std::vector<std::string> lines;
  auto result = run(root, "echo made > /etc/new; rm /etc/old; echo scratch > /tmp/t; hostname; cat /tmp/from-image; "
                          "cat /proc/1/cmdline >/dev/null && echo proc-ok; ls /dev; exit 7", &lines);
  CHECK(result.exit_code == 7);
  CHECK_FALSE(result.timed_out);
  CHECK(result.setup_error.empty());
  CHECK(saw_line(lines, "rockpack"));
  CHECK(saw_line(lines, "proc-ok"));
  CHECK(saw_line(lines, "urandom"));
  CHECK(saw_line(lines, "seen"));  // the image's /tmp, not an empty tmpfs

  auto entries = diff_trees(root, before, snapshot_tree(root), {});
  std::vector<std::string> paths;
  for (const auto& e : entries) paths.push_back(e.path);
  CHECK(paths == std::vector<std::string>{"etc", "etc/.wh.old", "etc/new"});  // /tmp's change is litter
}

TEST_CASE("sandbox: a timeout kills the whole container, also when the command closed its output -- no network unless asked for") {
  TempDir dir;
  fs::path root = dir.path / "root";
  if (!make_busybox_root(root)) {
    MESSAGE("skipped: needs root, /bin/busybox and a container runtime");
    return;
  }
  auto slow = run(root, "sleep 30 & sleep 30", nullptr, false, 1);
  CHECK(slow.timed_out);
  CHECK(slow.exit_code == 128 + 9);

  auto started = std::chrono::steady_clock::now();
  auto closed = run(root, "exec >/dev/null 2>&1; sleep 30", nullptr, false, 2);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  CHECK(closed.timed_out);
  CHECK(seconds < 10);

  std::vector<std::string> isolated, shared;
  run(root, "cat /proc/net/dev", &isolated);
  run(root, "cat /proc/net/dev", &shared, true);
  // The isolated step's namespace holds lo only: two header lines and one interface.
  CHECK(isolated.size() == 3);
  CHECK(isolated.back().find("lo:") != std::string::npos);
  CHECK(shared.size() >= isolated.size());
}

TEST_CASE("sandbox: unprivileged user namespace, dropped capabilities, no inherited descriptors, no terminal") {
  TempDir dir;
  fs::path root = dir.path / "root";
  if (!make_busybox_root(root)) {
    MESSAGE("skipped: needs root, /bin/busybox and a container runtime");
    return;
  }
  // A descriptor rockpack inherited without O_CLOEXEC must not reach the command.
  int leaked = ::open("/etc/hostname", O_RDONLY);
  REQUIRE(leaked >= 0);
  std::vector<std::string> lines;
  auto result = run(root,
                    "cat /proc/self/uid_map; grep -E '^Cap(Eff|Bnd)|^NoNewPrivs|^Seccomp:' /proc/self/status; "
                    "ls /proc/self/fd | tr '\\n' ' '; echo; (echo x > /dev/tty) 2>/dev/null && echo tty-open || echo no-tty; "
                    "mount -t tmpfs none /tmp 2>/dev/null && echo mounted || echo no-mount; "
                    "mknod /dev/sda2 b 8 2 2>/dev/null && echo mknod || echo no-mknod; "
                    "(echo x > /proc/sys/kernel/core_pattern) 2>/dev/null && echo core || echo no-core",
                    &lines);
  ::close(leaked);
  CHECK(result.exit_code == 0);
  REQUIRE(lines.size() >= 9);
  // Container root is host id kSandboxHostIdBase: nothing the command holds is a host capability.
  CHECK(lines[0].find(std::to_string(kSandboxHostIdBase)) != std::string::npos);
  CHECK(saw_line(lines, "CapEff:\t00000000800405fb"));
  CHECK(saw_line(lines, "CapBnd:\t00000000800405fb"));
  CHECK(saw_line(lines, "NoNewPrivs:\t1"));
  CHECK(saw_line(lines, "Seccomp:\t2"));
  CHECK(saw_line(lines, "0 1 2 3 "));  // ls's own directory descriptor is 3; nothing else
  CHECK(saw_line(lines, "no-tty"));
  CHECK(saw_line(lines, "no-mount"));
  CHECK(saw_line(lines, "no-mknod"));
  CHECK(saw_line(lines, "no-core"));
}

TEST_CASE("sandbox: a command that cannot start says why, not an exit code -- long lines come in bounded pieces") {
  TempDir dir;
  fs::path root = dir.path / "root";
  if (!make_busybox_root(root)) {
    MESSAGE("skipped: needs root, /bin/busybox and a container runtime");
    return;
  }
  SandboxCommand missing;
  missing.name = "missing";
  missing.argv = {"/no/such/tool"};
  missing.env = {"PATH=/bin"};
  auto result = run_in_sandbox(root, missing, [](const std::string&) {});
  CHECK_FALSE(result.setup_error.empty());
  CHECK(result.setup_error.find("/no/such/tool") != std::string::npos);

  std::vector<std::string> lines;
  run(root, "head -c 100000 /dev/zero | tr '\\000' a; echo; echo end", &lines);
  REQUIRE(lines.size() == 8);  // 6 pieces of 16 KiB, the rest, "end"
  CHECK(lines[0].size() == 16 * 1024);
  CHECK(lines[6].size() == 100000 - 6 * 16 * 1024);
  CHECK(lines[7] == "end");
}

TEST_CASE("sandbox: the probe starts a real container -- no runtime means no sandbox, never an unconfined run") {
  TempDir dir;
  fs::path root = dir.path / "root";
  if (!make_busybox_root(root)) {
    MESSAGE("skipped: needs root, /bin/busybox and a container runtime");
    return;
  }
  auto why = sandbox_unavailable();
  CHECK_FALSE(why.has_value());
  if (why) MESSAGE(*why);
  ::setenv("ROCKPACK_SANDBOX_RUNTIME", "none-such", 1);
  auto none = sandbox_unavailable();
  REQUIRE(none.has_value());
  CHECK(none->find("no container runtime") != std::string::npos);
  CHECK_THROWS_AS(run(root, "true"), Error);
  ::unsetenv("ROCKPACK_SANDBOX_RUNTIME");
}
