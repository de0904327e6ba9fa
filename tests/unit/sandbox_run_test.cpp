#include <doctest/doctest.h>
#include <unistd.h>

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
// A one-binary root filesystem: busybox-static (tools/install-deps.sh installs it).
bool make_busybox_root(const fs::path& root) {
  if (!fs::exists("/bin/busybox") || geteuid() != 0) return false;
  fs::create_directories(root / "bin");
  fs::copy_file("/bin/busybox", root / "bin/busybox");
  fs::create_symlink("busybox", root / "bin/sh");
  // Inside an unprivileged container the namespaces are not allowed (docs/run.md): nothing to test.
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
}  // namespace

TEST_CASE("sandbox: the command's writes become the diff -- it sees its own /proc, /dev and hostname") {
  TempDir dir;
  fs::path root = dir.path / "root";
  if (!make_busybox_root(root)) {
    MESSAGE("skipped: needs root, /bin/busybox and namespaces");
    return;
  }
  dir.write("root/etc/old", "old");
  prepare_sandbox_rootfs(root);
  auto before = snapshot_tree(root);
  std::vector<std::string> lines;
  auto result = run(root, "echo made > /etc/new; rm /etc/old; echo scratch > /tmp/t; hostname; "
                          "cat /proc/1/cmdline >/dev/null && echo proc-ok; ls /dev; exit 7", &lines);
  CHECK(result.exit_code == 7);
  CHECK_FALSE(result.timed_out);
  CHECK(std::find(lines.begin(), lines.end(), "rockpack") != lines.end());
  CHECK(std::find(lines.begin(), lines.end(), "proc-ok") != lines.end());
  CHECK(std::find(lines.begin(), lines.end(), "urandom") != lines.end());

  auto entries = diff_trees(root, before, snapshot_tree(root), {});
  std::vector<std::string> paths;
  for (const auto& e : entries) paths.push_back(e.path);
  CHECK(paths == std::vector<std::string>{"etc", "etc/.wh.old", "etc/new"});
}

TEST_CASE("sandbox: a timeout kills the whole pid namespace -- no network unless asked for") {
  TempDir dir;
  fs::path root = dir.path / "root";
  if (!make_busybox_root(root)) {
    MESSAGE("skipped: needs root, /bin/busybox and namespaces");
    return;
  }
  auto slow = run(root, "sleep 30 & sleep 30", nullptr, false, 1);
  CHECK(slow.timed_out);
  CHECK(slow.exit_code == 128 + 9);

  std::vector<std::string> isolated, shared;
  run(root, "cat /proc/net/dev", &isolated);
  run(root, "cat /proc/net/dev", &shared, true);
  // The isolated step's namespace holds lo only: two header lines and one interface.
  CHECK(isolated.size() == 3);
  CHECK(isolated.back().find("lo:") != std::string::npos);
  CHECK(shared.size() >= isolated.size());
}
