#pragma once
// The OCI runtime spec (config.json) a sandboxed command runs under, as podman and BuildKit make it
// for RUN: the image so far as the root file system; new pid, ipc, uts, mount and user namespaces
// (and a network namespace holding only `lo` unless the step asks for the network); the user
// namespace maps the container's ids to an unprivileged host range (or, rootless, the caller's own
// uid to 0), so no capability the command holds is a capability on the host. Within it: podman's
// default capability set (none at all for a non-root user), a matching bounding set,
// noNewPrivileges, the containers seccomp profile, masked and read-only /proc paths, no terminal,
// and a pids limit.
//
// The command, env, user and working directory come from recipes and from the config of untrusted
// images: make_oci_spec refuses (rp::InputError) what a runtime would misread — NUL bytes, an env
// entry without a name, a relative working directory, ids outside the mapping.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sandbox/id_map.hpp"

namespace rp {

struct SpecInput {
  std::string rootfs;                 // absolute, as the runtime sees it
  std::vector<std::string> argv;      // argv[0] is looked up in the env's PATH by the runtime
  std::vector<std::string> env;       // "NAME=value"
  uint32_t uid = 0, gid = 0;          // in the container
  std::string cwd = "/";
  bool network = false;               // true: the host's network namespace
  IdMap uids, gids;
  int64_t pids_limit = 4096;          // the cgroup's pids.max (and RLIMIT_NPROC); 0: none
  bool cgroup_limits = true;          // false (rootless on cgroup v1): RLIMIT_NPROC only
  nlohmann::json seccomp;             // the OCI linux.seccomp object (oci_seccomp)
  std::vector<std::string> readonly_binds;  // host directories bound read-only at the same path (a probe's /usr)
};

// podman's default capabilities (containers.conf): what `docker build`'s RUN has, minus
// AUDIT_WRITE, MKNOD and NET_RAW.
const std::vector<std::string>& default_capabilities();

nlohmann::json make_oci_spec(const SpecInput& input);

// The OCI seccomp object for a containers-common profile (/usr/share/containers/seccomp.json:
// rules with includes/excludes by capability, architecture and kernel version), for `caps` on
// this machine's architecture, the way podman converts it. Throws rp::Error for a profile it cannot
// read (a missing profile must never mean "no seccomp").
nlohmann::json oci_seccomp(const nlohmann::json& profile, const std::vector<std::string>& caps);

}  // namespace rp
