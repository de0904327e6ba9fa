#pragma once
// Runs one command on a root filesystem directory the way `docker build` runs RUN: in a container
// made by an OCI runtime (crun, else runc; the first that works here is kept), under the spec of
// oci_spec.hpp — user namespace with an unprivileged mapping (also when rockpack is root), podman's
// capabilities, noNewPrivileges, the containers seccomp profile, masked /proc paths, a pids limit,
// no network unless asked, no terminal, stdin /dev/null, no inherited descriptors, a session of
// its own. There is no fallback to anything weaker: where no runtime can make that container, the
// command is refused with every runtime's reason.
//
// Root: the container's ids 0-65535 are host ids kSandboxHostIdBase + 0-65535, ids no host user has
// (the top slot of the range systemd reserves for container user namespaces). The root filesystem
// must be owned by those host ids (materialize with sandbox_ids()). The runtime sets the container up
// as the mapped root, which cannot walk a 0700 store; it is handed a bind mount of the root made in
// a private mount namespace at /run/rockpack/<name>/rootfs. Rootless: the caller's uid and gid are
// container root (and only root).
//
// The command's processes are killed on timeout (its whole pid namespace) and when rockpack gets
// SIGINT, SIGTERM or SIGHUP; the deadline covers the whole run, also after the command closed its
// output.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sandbox/id_map.hpp"

namespace rp {

constexpr uint32_t kSandboxHostIdBase = 0x6FFF0000u;  // 1878982656: ids up to 0x6FFFFFFF
constexpr int64_t kSandboxPidsLimit = 4096;

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
  // Non-empty when the runtime could not start the command (e.g. argv[0] not found): the runtime's
  // own message; exit_code is then 127.
  std::string setup_error;
  std::string runtime;     // "crun" or "runc"
  std::vector<std::string> last_lines;  // the last lines of output, for error messages
};

// Output lines (stdout and stderr together) go to `on_line` as they come; a line longer than 16 KiB
// comes in pieces.
using OutputLine = std::function<void(const std::string& line)>;

// The user namespace mapping of this process's sandboxes (see above).
IdMapping sandbox_ids();

// Prepares the mount points the sandbox needs (dev, proc, tmp) in `rootfs` and gives the root and
// them to the sandbox's root, so a before-snapshot taken afterwards does not count them as the
// step's change. A missing /tmp is made 1777, as the tmpfs used to be.
void prepare_sandbox_rootfs(const std::filesystem::path& rootfs, const IdMapping& ids);

// Whether this process can make a sandbox here: nullopt when it can, else why not and how to fix
// it. Starts one short container (host /usr read-only, `true`) with each runtime until one works.
// ROCKPACK_SANDBOX=off makes the sandbox unavailable (what an unprivileged container gets).
std::optional<std::string> sandbox_unavailable();

// Runs the command; throws rp::Error (with every runtime's reason and how to fix it) when no
// runtime can make the container.
SandboxResult run_in_sandbox(const std::filesystem::path& rootfs, const SandboxCommand& command,
                             const OutputLine& on_line);

}  // namespace rp
