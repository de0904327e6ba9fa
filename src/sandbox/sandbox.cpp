#include "sandbox/sandbox.hpp"

#include <fcntl.h>
#include <grp.h>
#include <linux/sched.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>

#include "util/error.hpp"

namespace fs = std::filesystem;
extern char** environ;

namespace rp {
namespace {

constexpr size_t kKeptLines = 20;
const char* const kDevices[] = {"null", "zero", "full", "random", "urandom", "tty"};

// Reports a failed setup step to the parent through the output pipe and ends the child. Only
// async-signal-safe calls: the child of a multi-threaded process.
[[noreturn]] void die(const char* what) {
  const char* reason = strerror(errno);
  const char* prefix = "rockpack-sandbox: ";
  (void)!write(2, prefix, strlen(prefix));
  (void)!write(2, what, strlen(what));
  (void)!write(2, ": ", 2);
  (void)!write(2, reason, strlen(reason));
  (void)!write(2, "\n", 1);
  _exit(125);
}

void write_proc(const char* path, const char* text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write(fd, text, strlen(text)) < 0) die(path);
  close(fd);
}

void bring_loopback_up() {
  int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (fd < 0) die("socket for lo");
  struct ifreq request {};
  strncpy(request.ifr_name, "lo", IFNAMSIZ - 1);
  if (ioctl(fd, SIOCGIFFLAGS, &request) < 0) die("lo flags");
  request.ifr_flags |= IFF_UP | IFF_RUNNING;
  if (ioctl(fd, SIOCSIFFLAGS, &request) < 0) die("bring lo up");
  close(fd);
}

// Everything the child needs, built before clone so the child allocates nothing.
struct ChildPlan {
  std::string rootfs;
  std::string proc, tmp, dev;
  std::vector<std::string> device_targets, device_sources;
  std::string uid_map, gid_map;
  bool user_namespace = false;
  bool network = false;
  uint32_t uid = 0, gid = 0;
  std::string workdir;
  std::vector<char*> argv, envp;
  int output_fd = -1;
};

[[noreturn]] void child_main(const ChildPlan& plan) {
  if (dup2(plan.output_fd, 1) < 0 || dup2(plan.output_fd, 2) < 0) _exit(125);
  int null_fd = open("/dev/null", O_RDONLY);
  if (null_fd >= 0) dup2(null_fd, 0);
  if (plan.user_namespace) {
    write_proc("/proc/self/setgroups", "deny");
    write_proc("/proc/self/uid_map", plan.uid_map.c_str());
    write_proc("/proc/self/gid_map", plan.gid_map.c_str());
  }
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) < 0) die("make mounts private");
  if (mount("proc", plan.proc.c_str(), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) < 0) die("mount /proc");
  if (mount("tmpfs", plan.tmp.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") < 0) die("mount /tmp");
  if (mount("tmpfs", plan.dev.c_str(), "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755") < 0) die("mount /dev");
  for (size_t i = 0; i < plan.device_targets.size(); ++i) {
    int fd = open(plan.device_targets[i].c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0666);
    if (fd < 0) die("create a /dev node");
    close(fd);
    if (mount(plan.device_sources[i].c_str(), plan.device_targets[i].c_str(), nullptr, MS_BIND, nullptr) < 0)
      die(plan.device_sources[i].c_str());
  }
  if (!plan.network) bring_loopback_up();
  (void)sethostname("rockpack", 8);
  if (chroot(plan.rootfs.c_str()) < 0) die("chroot");
  if (chdir("/") < 0) die("chdir /");
  if (chdir(plan.workdir.c_str()) < 0) die("workdir");
  if (setgroups(0, nullptr) < 0 && !plan.user_namespace) die("setgroups");
  if (setgid(plan.gid) < 0) die("setgid");
  if (setuid(plan.uid) < 0) die("setuid");
  environ = const_cast<char**>(plan.envp.data());
  execvp(plan.argv[0], plan.argv.data());
  die(plan.argv[0]);
}

std::string how_to_fix(bool root) {
  if (root)
    return "run rockpack as root on a Linux host or VM, or in a container started with --privileged "
           "(or --cap-add SYS_ADMIN --security-opt seccomp=unconfined); see docs/run.md";
  return "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
         "user.max_user_namespaces > 0) or run rockpack as root; see docs/run.md";
}

}  // namespace

void prepare_sandbox_rootfs(const fs::path& rootfs) {
  for (const char* dir : {"proc", "dev", "tmp"}) {
    std::error_code ec;
    if (fs::is_symlink(rootfs / dir)) fs::remove(rootfs / dir);
    fs::create_directories(rootfs / dir, ec);
    if (ec) throw Error("cannot prepare " + (rootfs / dir).string() + " for the sandbox: " + ec.message());
  }
}

std::optional<std::string> sandbox_unavailable() {
  if (const char* off = std::getenv("ROCKPACK_SANDBOX"); off && std::string(off) == "off")
    return std::string("ROCKPACK_SANDBOX=off is set");
  bool root = geteuid() == 0;
  unsigned long flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWNET | SIGCHLD;
  if (!root) flags |= CLONE_NEWUSER;
  pid_t pid = static_cast<pid_t>(syscall(SYS_clone, flags, nullptr, nullptr, nullptr, nullptr));
  if (pid == 0) {
    // The first thing a sandbox does: make its mounts private. Refused where mounts are.
    _exit(mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) == 0 ? 0 : 1);
  }
  if (pid < 0) return "cannot create namespaces: " + std::string(strerror(errno)) + " (" + how_to_fix(root) + ")";
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return "cannot mount in a new namespace (" + how_to_fix(root) + ")";
  return std::nullopt;
}

SandboxResult run_in_sandbox(const fs::path& rootfs, const SandboxCommand& command, const OutputLine& on_line) {
  if (command.argv.empty()) throw Error(command.name + ": no command to run");
  if (const char* off = std::getenv("ROCKPACK_SANDBOX"); off && std::string(off) == "off")
    throw Error(command.name + ": cannot run: ROCKPACK_SANDBOX=off is set", "unset it to run commands in the sandbox");
  prepare_sandbox_rootfs(rootfs);
  bool root = geteuid() == 0;

  ChildPlan plan;
  plan.rootfs = fs::absolute(rootfs).string();
  plan.proc = plan.rootfs + "/proc";
  plan.tmp = plan.rootfs + "/tmp";
  plan.dev = plan.rootfs + "/dev";
  for (const char* device : kDevices) {
    if (!fs::exists(std::string("/dev/") + device)) continue;
    plan.device_sources.push_back(std::string("/dev/") + device);
    plan.device_targets.push_back(plan.dev + "/" + device);
  }
  plan.user_namespace = !root;
  plan.uid_map = "0 " + std::to_string(geteuid()) + " 1\n";
  plan.gid_map = "0 " + std::to_string(getegid()) + " 1\n";
  plan.network = command.network;
  plan.uid = command.uid;
  plan.gid = command.gid;
  plan.workdir = command.workdir.empty() ? "/" : command.workdir;
  for (const auto& arg : command.argv) plan.argv.push_back(const_cast<char*>(arg.c_str()));
  plan.argv.push_back(nullptr);
  for (const auto& var : command.env) plan.envp.push_back(const_cast<char*>(var.c_str()));
  plan.envp.push_back(nullptr);
  if (plan.user_namespace && (command.uid != 0 || command.gid != 0))
    throw Error(command.name + ": the step asks for user " + std::to_string(command.uid) +
                    ", but rootless sandboxes map only root",
                "run rockpack as root for steps with a user:");

  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) < 0) throw Error("cannot create a pipe: " + std::string(strerror(errno)));
  plan.output_fd = pipe_fds[1];

  unsigned long flags = CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | SIGCHLD;
  if (!command.network) flags |= CLONE_NEWNET;
  if (plan.user_namespace) flags |= CLONE_NEWUSER;
  pid_t pid = static_cast<pid_t>(syscall(SYS_clone, flags, nullptr, nullptr, nullptr, nullptr));
  if (pid == 0) {
    // dup2 clears O_CLOEXEC on the copies the command keeps.
    child_main(plan);
  }
  int clone_errno = errno;
  close(pipe_fds[1]);
  if (pid < 0) {
    close(pipe_fds[0]);
    throw Error(command.name + ": cannot create the sandbox's namespaces: " + strerror(clone_errno),
                how_to_fix(root));
  }

  SandboxResult result;
  std::deque<std::string> last;
  std::string pending;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(command.timeout_seconds);
  auto emit = [&](std::string line) {
    on_line(line);
    last.push_back(std::move(line));
    if (last.size() > kKeptLines) last.pop_front();
  };
  for (;;) {
    int wait_ms = -1;
    if (command.timeout_seconds > 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      wait_ms = static_cast<int>(std::max<int64_t>(0, left.count()));
    }
    struct pollfd poll_fd {pipe_fds[0], POLLIN, 0};
    int ready = poll(&poll_fd, 1, wait_ms);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      result.timed_out = true;
      kill(pid, SIGKILL);  // pid 1 of the namespace: the kernel kills all its processes
      break;
    }
    char buffer[8192];
    ssize_t n = read(pipe_fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    pending.append(buffer, static_cast<size_t>(n));
    for (size_t nl; (nl = pending.find('\n')) != std::string::npos;) {
      emit(pending.substr(0, nl));
      pending.erase(0, nl + 1);
    }
  }
  close(pipe_fds[0]);
  if (!pending.empty()) emit(pending);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.last_lines.assign(last.begin(), last.end());
  return result;
}

}  // namespace rp
