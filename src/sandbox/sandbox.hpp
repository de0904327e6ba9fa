#pragma once
// Runs one command on a root filesystem directory in fresh mount, pid, ipc and uts namespaces (and a
// user namespace when rockpack is not root), chrooted there, with a minimal /dev, a new /proc, a tmpfs
// /tmp and, unless the step asks for the network, a network namespace holding only `lo`.
// Everything is done with raw clone/mount/chroot syscalls: no container runtime is involved.
//
// The command is pid 1 of its pid namespace: killing it on timeout kills every process it started.
// Mounts live in the command's mount namespace and disappear with it, so `rootfs` is left holding
// only what the command wrote (which tree_diff turns into a layer).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace rp {

struct SandboxCommand {
  std::string name;                // the step's name: log prefix and error messages
  std::vector<std::string> argv;   // argv[0] is looked up in the command's PATH
  std::vector<std::string> env;    // "KEY=VALUE"
  uint32_t uid = 0;
  uint32_t gid = 0;
  std::string workdir = "/";
  bool network = false;     // true: share the host's network namespace
  int timeout_seconds = 0;  // 0: no limit
};

struct SandboxResult {
  int exit_code = 0;       // the command's exit status, 128+N when killed by signal N
  bool timed_out = false;
  std::vector<std::string> last_lines;  // the last lines of output, for error messages
};

// Output lines (stdout and stderr together) go to `on_line` as they come.
using OutputLine = std::function<void(const std::string& line)>;

// Prepares the mount points the sandbox needs (dev, proc, tmp) in `rootfs`, so a before-snapshot
// taken afterwards does not count them as the step's change.
void prepare_sandbox_rootfs(const std::filesystem::path& rootfs);

// Whether this process can make a sandbox here (namespaces and a private mount): nullopt when it
// can, else why not and how to fix it. Costs one short-lived child process. ROCKPACK_SANDBOX=off in
// the environment makes the sandbox unavailable (what an unprivileged container gets), for trying
// a recipe's fallback on any machine.
std::optional<std::string> sandbox_unavailable();

// Runs the command; throws rp::Error (with how to fix it) when the namespaces cannot be created.
SandboxResult run_in_sandbox(const std::filesystem::path& rootfs, const SandboxCommand& command,
                             const OutputLine& on_line);

}  // namespace rp
