#include "sandbox/oci_spec.hpp"

#include <sys/utsname.h>

#include <algorithm>
#include <cstdio>
#include <set>

#include "util/error.hpp"

namespace rp {

namespace {

// As docker and podman mask and protect them: kernel state a container must not read or change.
const char* const kMaskedPaths[] = {"/proc/acpi",        "/proc/asound",     "/proc/interrupts", "/proc/kcore",
                                    "/proc/keys",        "/proc/latency_stats", "/proc/timer_list", "/proc/timer_stats",
                                    "/proc/sched_debug", "/proc/scsi",       "/sys/firmware",    "/sys/fs/selinux",
                                    "/sys/dev/block"};
const char* const kReadonlyPaths[] = {"/proc/bus", "/proc/fs", "/proc/irq", "/proc/sys", "/proc/sysrq-trigger"};

bool has_nul(const std::string& s) { return s.find('\0') != std::string::npos; }

void check_text(const std::string& s, const char* what) {
  if (has_nul(s)) throw InputError(std::string("the sandbox's ") + what + " holds a NUL byte", "remove it");
  // config.json is JSON: text that is not UTF-8 cannot be written into it unchanged.
  try {
    (void)nlohmann::json(s).dump();
  } catch (const nlohmann::json::exception&) {
    throw InputError(std::string("the sandbox's ") + what + " is not valid UTF-8", "fix the image's or recipe's text");
  }
}

void check_input(const SpecInput& in) {
  if (in.argv.empty() || in.argv[0].empty()) throw InputError("the sandbox has no command to run");
  for (const auto& a : in.argv) check_text(a, "command");
  for (const auto& e : in.env) {
    check_text(e, "environment");
    auto eq = e.find('=');
    if (eq == std::string::npos || eq == 0)
      throw InputError("the environment entry '" + e.substr(0, 80) + "' is not NAME=value", "fix the image's or recipe's Env");
  }
  check_text(in.cwd, "working directory");
  if (in.cwd.empty() || in.cwd[0] != '/')
    throw InputError("the working directory '" + in.cwd.substr(0, 200) + "' is not absolute", "give an absolute path");
  check_text(in.rootfs, "root");
  if ((in.uids.size > 0 && in.uid >= in.uids.size) || (in.gids.size > 0 && in.gid >= in.gids.size))
    throw InputError("the user " + std::to_string(in.uid) + ":" + std::to_string(in.gid) +
                         " is outside the ids the sandbox maps (uids below " + std::to_string(in.uids.size) + ", gids below " +
                         std::to_string(in.gids.size) + ")",
                     in.uids.size == 1 ? "a rootless sandbox maps only root: run rockpack as root for steps with a user:"
                                       : "use a uid and gid below " + std::to_string(in.uids.size));
}

nlohmann::json mount(const char* destination, const char* type, const char* source, std::vector<std::string> options) {
  return {{"destination", destination}, {"type", type}, {"source", source}, {"options", options}};
}

std::string machine() {
  struct utsname u {};
  ::uname(&u);
  return u.machine;
}

// The kernel's "major.minor" as a number for minKernel comparisons (6.18 -> 6018).
int kernel_version() {
  struct utsname u {};
  ::uname(&u);
  int major = 0, minor = 0;
  std::sscanf(u.release, "%d.%d", &major, &minor);
  return major * 1000 + minor;
}

int parse_version(const std::string& v) {
  int major = 0, minor = 0;
  std::sscanf(v.c_str(), "%d.%d", &major, &minor);
  return major * 1000 + minor;
}

bool contains(const nlohmann::json& list, const std::string& value) {
  if (!list.is_array()) return false;
  return std::any_of(list.begin(), list.end(), [&](const nlohmann::json& v) { return v.is_string() && v.get<std::string>() == value; });
}

}  // namespace

const std::vector<std::string>& default_capabilities() {
  static const std::vector<std::string> caps = {"CAP_CHOWN",  "CAP_DAC_OVERRIDE", "CAP_FOWNER",  "CAP_FSETID",
                                                "CAP_KILL",   "CAP_NET_BIND_SERVICE", "CAP_SETFCAP", "CAP_SETGID",
                                                "CAP_SETPCAP", "CAP_SETUID",      "CAP_SYS_CHROOT"};
  return caps;
}

nlohmann::json make_oci_spec(const SpecInput& in) {
  check_input(in);
  const auto& caps = default_capabilities();
  // A non-root user gets no capabilities at all, as docker gives it: only the bounding set remains.
  const bool root_user = in.uid == 0;
  nlohmann::json none = nlohmann::json::array();
  nlohmann::json capabilities = {{"bounding", caps},
                                 {"effective", root_user ? nlohmann::json(caps) : none},
                                 {"permitted", root_user ? nlohmann::json(caps) : none},
                                 {"inheritable", none},
                                 {"ambient", none}};
  nlohmann::json process = {
      {"terminal", false},  // no pty, and the runtime is started in a session of its own: no host tty
      {"user", {{"uid", in.uid}, {"gid", in.gid}}},
      {"args", in.argv},
      {"env", in.env},
      {"cwd", in.cwd},
      {"capabilities", capabilities},
      {"noNewPrivileges", true},
      {"rlimits", nlohmann::json::array()}};
  if (in.pids_limit > 0)
    process["rlimits"].push_back({{"type", "RLIMIT_NPROC"}, {"hard", in.pids_limit}, {"soft", in.pids_limit}});

  nlohmann::json mounts = nlohmann::json::array();
  mounts.push_back(mount("/proc", "proc", "proc", {"nosuid", "noexec", "nodev"}));
  mounts.push_back(mount("/dev", "tmpfs", "tmpfs", {"nosuid", "strictatime", "mode=755", "size=65536k"}));
  mounts.push_back(mount("/dev/pts", "devpts", "devpts", {"nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"}));
  mounts.push_back(mount("/dev/shm", "tmpfs", "shm", {"nosuid", "noexec", "nodev", "mode=1777", "size=65536k"}));
  for (const auto& dir : in.readonly_binds) {
    check_text(dir, "bind mount");
    mounts.push_back({{"destination", dir}, {"type", "bind"}, {"source", dir}, {"options", {"rbind", "ro", "nosuid", "nodev"}}});
  }

  nlohmann::json namespaces = nlohmann::json::array();
  for (const char* type : {"pid", "ipc", "uts", "mount", "user"}) namespaces.push_back({{"type", type}});
  if (!in.network) namespaces.push_back({{"type", "network"}});

  nlohmann::json linux = {{"namespaces", namespaces},
                          {"maskedPaths", std::vector<std::string>(std::begin(kMaskedPaths), std::end(kMaskedPaths))},
                          {"readonlyPaths", std::vector<std::string>(std::begin(kReadonlyPaths), std::end(kReadonlyPaths))},
                          {"seccomp", in.seccomp}};
  // Always a user namespace with a mapping: without one the runtime would give container root the
  // host's root.
  if (in.uids.size == 0 || in.gids.size == 0) throw InputError("the sandbox needs a user namespace mapping");
  linux["uidMappings"] = nlohmann::json::array({{{"containerID", 0}, {"hostID", in.uids.host_base}, {"size", in.uids.size}}});
  linux["gidMappings"] = nlohmann::json::array({{{"containerID", 0}, {"hostID", in.gids.host_base}, {"size", in.gids.size}}});
  if (in.cgroup_limits) {
    // As docker: no device access beyond the runtime's default nodes; and the process limit.
    linux["resources"] = {{"devices", nlohmann::json::array({{{"allow", false}, {"access", "rwm"}}})}};
    if (in.pids_limit > 0) linux["resources"]["pids"] = {{"limit", in.pids_limit}};
  }

  return {{"ociVersion", "1.0.2"},
          {"process", process},
          {"root", {{"path", in.rootfs}, {"readonly", false}}},
          {"hostname", "rockpack"},
          {"mounts", mounts},
          {"linux", linux}};
}

nlohmann::json oci_seccomp(const nlohmann::json& profile, const std::vector<std::string>& caps) {
  if (!profile.is_object() || !profile.contains("defaultAction") || !profile["defaultAction"].is_string() ||
      !profile.contains("syscalls") || !profile["syscalls"].is_array())
    throw Error("the seccomp profile has no defaultAction or syscalls");
  const std::string arch = machine();
  const std::string scmp_arch = arch == "x86_64" ? "SCMP_ARCH_X86_64" : arch == "aarch64" ? "SCMP_ARCH_AARCH64" : "";
  const std::string go_arch = arch == "x86_64" ? "amd64" : arch == "aarch64" ? "arm64" : arch;
  if (scmp_arch.empty()) throw Error("no seccomp architecture is known for " + arch);
  const std::set<std::string> have(caps.begin(), caps.end());
  const int kernel = kernel_version();

  nlohmann::json out = {{"defaultAction", profile["defaultAction"]}};
  if (profile.contains("defaultErrnoRet") && profile["defaultErrnoRet"].is_number_unsigned())
    out["defaultErrnoRet"] = profile["defaultErrnoRet"];
  nlohmann::json architectures = nlohmann::json::array({scmp_arch});
  for (const auto& m : profile.value("archMap", nlohmann::json::array()))
    if (m.is_object() && m.value("architecture", "") == scmp_arch)
      for (const auto& sub : m.value("subArchitectures", nlohmann::json::array()))
        if (sub.is_string()) architectures.push_back(sub);
  out["architectures"] = architectures;

  nlohmann::json rules = nlohmann::json::array();
  for (const auto& rule : profile["syscalls"]) {
    if (!rule.is_object() || !rule.contains("names") || !rule["names"].is_array() || !rule.contains("action")) continue;
    const nlohmann::json includes = rule.value("includes", nlohmann::json::object());
    const nlohmann::json excludes = rule.value("excludes", nlohmann::json::object());
    bool applies = true;
    if (includes.is_object()) {
      for (const auto& c : includes.value("caps", nlohmann::json::array()))
        if (!c.is_string() || !have.count(c.get<std::string>())) applies = false;
      if (includes.contains("arches") && !contains(includes["arches"], go_arch)) applies = false;
      if (includes.contains("minKernel") && includes["minKernel"].is_string() &&
          kernel < parse_version(includes["minKernel"].get<std::string>()))
        applies = false;
    }
    if (excludes.is_object()) {
      for (const auto& c : excludes.value("caps", nlohmann::json::array()))
        if (c.is_string() && have.count(c.get<std::string>())) applies = false;
      if (excludes.contains("arches") && contains(excludes["arches"], go_arch)) applies = false;
    }
    if (!applies) continue;
    nlohmann::json r = {{"names", rule["names"]}, {"action", rule["action"]}};
    if (rule.contains("args") && rule["args"].is_array() && !rule["args"].empty()) {
      nlohmann::json args = nlohmann::json::array();
      for (const auto& a : rule["args"])
        args.push_back({{"index", a.value("index", 0)}, {"value", a.value("value", uint64_t{0})},
                        {"valueTwo", a.value("valueTwo", uint64_t{0})}, {"op", a.value("op", "")}});
      r["args"] = args;
    }
    if (rule.contains("errnoRet") && rule["errnoRet"].is_number_unsigned()) r["errnoRet"] = rule["errnoRet"];
    rules.push_back(std::move(r));
  }
  out["syscalls"] = rules;
  return out;
}

}  // namespace rp
