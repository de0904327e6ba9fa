#include "sandbox/sandbox.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <mutex>
#include <sstream>

#include "sandbox/oci_spec.hpp"
#include "sandbox/output_lines.hpp"
#include "util/error.hpp"
#include "util/fs.hpp"
#include "util/temp_files.hpp"

namespace fs = std::filesystem;

namespace rp {
namespace {

constexpr size_t kKeptLines = 20;
constexpr const char* kSeccompProfile = "/usr/share/containers/seccomp.json";
// Where the root of a container is bind-mounted for the runtime (root only): a directory every
// user can walk through (0711), holding one 0711 directory per running container.
constexpr const char* kMountBase = "/run/rockpack";
constexpr const char* kRuntimePath = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// ---- What the signal handler needs: fixed storage, read without locks. ----
std::atomic<pid_t> g_helper{0};   // the keeper of the running container (see keeper_main)
std::atomic<int> g_keeper_fd{-1};  // rockpack's end of the keeper's life pipe
char g_pid_file[1024];             // the runtime's --pid-file: the container's init on the host

pid_t read_pid_raw(const char* path) {
  int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char text[32];
  ssize_t n = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  pid_t pid = 0;
  for (ssize_t i = 0; i < n && text[i] >= '0' && text[i] <= '9' && pid < 100000000; ++i) pid = pid * 10 + (text[i] - '0');
  return pid;
}

// Kills the running container: SIGKILL to its init ends its whole pid namespace; the runtime then
// removes its state and cgroup and exits. Before the container exists, the keeper is asked to kill
// the runtime (and to delete whatever state it left). Async-signal-safe: also called from the
// signal handler.
void kill_running_container() {
  pid_t keeper = g_helper.load();
  if (keeper <= 0) return;
  pid_t container = read_pid_raw(g_pid_file);
  int fd = g_keeper_fd.load();
  if (container > 0) ::kill(container, SIGKILL);
  else if (fd >= 0) (void)!::write(fd, "k", 1);
  for (int i = 0; i < 1000; ++i) {  // up to 5 s for the runtime (or the keeper's `delete --force`) to clean up
    int status = 0;
    if (::waitpid(keeper, &status, WNOHANG) != 0) return;
    struct timespec pause_for {0, 5000000};
    ::nanosleep(&pause_for, nullptr);
  }
  ::kill(keeper, SIGKILL);
}

void install_signal_hook() {
  static std::once_flag once;
  std::call_once(once, [] { add_signal_hook(kill_running_container); });
}

// ---- The runtimes. ----
struct Runtime {
  std::string name;
  std::string path;
};

std::vector<Runtime> find_runtimes() {
  std::vector<std::string> names = {"crun", "runc"};
  if (const char* only = std::getenv("ROCKPACK_SANDBOX_RUNTIME"); only && *only) names = {only};
  std::vector<Runtime> out;
  for (const auto& name : names) {
    if (name != "crun" && name != "runc") continue;
    for (const char* dir : {"/usr/bin", "/usr/sbin", "/usr/local/bin", "/usr/local/sbin", "/bin", "/sbin"}) {
      std::string path = std::string(dir) + "/" + name;
      if (::access(path.c_str(), X_OK) == 0) {
        out.push_back({name, path});
        break;
      }
    }
  }
  return out;
}

// ---- Which runtime worked here last time (a file, so that each process need not find out again). ----
// Only the order of the attempts depends on it: the remembered runtime goes first, and when it
// fails the others are tried as without it. The key is what decides whether a runtime can run here:
// the runtimes' binaries, the kernel, the cgroup layout, the user.
fs::path runtime_choice_file() {
  if (::geteuid() == 0) return fs::path(kMountBase) / "runtime-choice";  // /run: forgotten at reboot
  if (const char* cache = std::getenv("XDG_CACHE_HOME"); cache && *cache) return fs::path(cache) / "rockpack" / "sandbox-runtime";
  if (const char* home = std::getenv("HOME"); home && *home) return fs::path(home) / ".cache" / "rockpack" / "sandbox-runtime";
  return {};
}

std::string runtime_choice_key(const std::vector<Runtime>& runtimes, bool hybrid) {
  struct utsname u {};
  ::uname(&u);
  std::string key = std::string(u.release) + " " + u.version + " euid=" + std::to_string(::geteuid()) +
                    " hybrid=" + (hybrid ? "1" : "0");
  for (const auto& r : runtimes) {
    struct stat st {};
    ::stat(r.path.c_str(), &st);
    key += " " + r.path + ":" + std::to_string(st.st_ino) + ":" + std::to_string(st.st_size) + ":" +
           std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
  }
  return key;
}

// The remembered runtime's name, or "" (no file, another key, unreadable).
std::string remembered_runtime(const std::string& key) {
  fs::path file = runtime_choice_file();
  if (file.empty()) return "";
  std::string text;
  try {
    text = read_file(file);
  } catch (const Error&) {
    return "";
  }
  auto nl = text.find('\n');
  if (nl == std::string::npos || text.substr(0, nl) != key) return "";
  std::string name = text.substr(nl + 1);
  while (!name.empty() && (name.back() == '\n' || name.back() == ' ')) name.pop_back();
  return name;
}

void remember_runtime(const std::string& key, const std::string& name) {
  fs::path file = runtime_choice_file();
  if (file.empty()) return;
  try {
    std::error_code ec;
    fs::create_directories(file.parent_path(), ec);
    write_file_atomic(file, key + "\n" + name + "\n", 0644);
  } catch (const Error& e) {
    spdlog::debug("sandbox: cannot remember the runtime in {}: {}", file.string(), e.what());
  }
}

std::mutex g_runtime_mutex;
int g_proven = -1;  // the index (in find_runtimes()) of a runtime that ran a command in this process
bool g_said_which = false;
thread_local bool g_probing = false;  // sandbox_unavailable's probe is running (no probe within it)

const nlohmann::json& seccomp_for_default_caps() {
  static const nlohmann::json profile = [] {
    std::string text;
    try {
      text = read_file(kSeccompProfile);
    } catch (const Error& e) {
      throw Error(std::string("the sandbox needs the containers seccomp profile ") + kSeccompProfile + ", which is missing",
                  "install it (Debian: apt-get install golang-github-containers-common; tools/install-deps.sh does)");
    }
    try {
      return oci_seccomp(nlohmann::json::parse(text), default_capabilities());
    } catch (const nlohmann::json::exception& e) {
      throw Error(std::string("cannot read the seccomp profile ") + kSeccompProfile + ": " + e.what(),
                  "reinstall golang-github-containers-common");
    }
  }();
  return profile;
}

std::string how_to_fix(bool root) {
  if (root)
    return "install crun or runc (tools/install-deps.sh), and run rockpack as root on a Linux host or VM, or in a "
           "container started with --privileged; see docs/run.md";
  return "install crun or runc, and allow unprivileged user namespaces (user.max_user_namespaces > 0; on Debian/Ubuntu "
         "kernel.unprivileged_userns_clone=1), or run rockpack as root; see docs/run.md";
}

// The error messages a runtime wrote into its JSON log (one object per line).
std::vector<std::string> runtime_errors(const fs::path& log) {
  std::vector<std::string> out;
  std::string text;
  try {
    text = read_file(log);
  } catch (const Error&) {
    return out;
  }
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line) && out.size() < 10;) {
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || j.value("level", "") != "error") continue;
    std::string msg = j.value("msg", "");
    if (j.contains("errno") && j["errno"].is_number_integer()) msg += ": " + std::string(strerror(j["errno"].get<int>()));
    out.push_back(msg.substr(0, 2000));
  }
  return out;
}

// One attempt of one runtime at one command.
struct Attempt {
  bool started = false;  // the container existed (the runtime wrote its pid file)
  std::vector<std::string> errors;  // the runtime's own error messages
  int exit_code = 0;
  bool timed_out = false;
};

// Everything the helper child needs, prepared before fork: the child of a multi-threaded process
// may only make system calls.
struct HelperPlan {
  std::vector<std::string> argv_text;
  std::vector<char*> argv;
  std::vector<char*> envp;
  std::string rootfs, mountpoint;  // mountpoint empty: no bind mount (rootless)
  bool hide_unified = false;       // unmount the hybrid layout's cgroup2 hierarchy (crun, root)
  std::string log;
  int out_fd = -1;
  int null_fd = -1;
};

// Where a hybrid cgroup layout (cgroup v1 controllers, a cgroup2 hierarchy beside them) mounts its
// cgroup2 hierarchy. crun refuses the hybrid layout when that hierarchy has controllers ("cgroups in
// hybrid mode not supported"); without it in view, crun sees the plain v1 layout runc uses here.
constexpr const char* kUnifiedHierarchy = "/sys/fs/cgroup/unified";
constexpr long kTmpfsMagic = 0x01021994;
constexpr long kCgroup2Magic = 0x63677270;

bool hybrid_cgroups() {
  struct statfs top {}, unified {};
  return ::statfs("/sys/fs/cgroup", &top) == 0 && static_cast<long>(top.f_type) == kTmpfsMagic &&
         ::statfs(kUnifiedHierarchy, &unified) == 0 && static_cast<long>(unified.f_type) == kCgroup2Magic;
}

// In a mount namespace of this process's own: mounts private, and (hide_unified) the cgroup2
// hierarchy of a hybrid layout out of view. Returns what failed, or nullptr.
const char* private_mounts(bool hide_unified) {
  if (::unshare(CLONE_NEWNS) < 0) return "cannot create a mount namespace for the runtime";
  if (::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) < 0) return "cannot make the mounts private";
  if (hide_unified && ::umount2(kUnifiedHierarchy, MNT_DETACH) < 0) return "cannot unmount the cgroup2 hierarchy for crun";
  return nullptr;
}

void helper_fail(const HelperPlan& plan, const char* what) {
  int err = errno;
  int fd = ::open(plan.log.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0) {
    char number[16];
    int n = 0;
    char digits[16];
    for (int v = err; v > 0 && n < 15; v /= 10) digits[n++] = static_cast<char>('0' + v % 10);
    for (int i = 0; i < n; ++i) number[i] = digits[n - 1 - i];
    number[n] = 0;
    const char* parts[] = {"{\"level\":\"error\",\"msg\":\"rockpack: ", what, "\",\"errno\":", n ? number : "0", "}\n"};
    for (const char* p : parts) (void)!::write(fd, p, strlen(p));
    ::close(fd);
  }
  _exit(125);
}

[[noreturn]] void helper_main(const HelperPlan& plan) {
  // A session of its own: no controlling terminal for anything below (no TIOCSTI into the user's
  // shell, /dev/tty cannot be opened).
  if (::setsid() < 0) helper_fail(plan, "setsid");
  if (!plan.mountpoint.empty()) {
    // The runtime sets the container up as its (unprivileged) root, which may not walk the store's
    // directories: give it the root at a path it can reach, in a mount namespace only this runtime
    // and its container see.
    if (const char* failed = private_mounts(plan.hide_unified)) helper_fail(plan, failed);
    if (::mount(plan.rootfs.c_str(), plan.mountpoint.c_str(), nullptr, MS_BIND | MS_REC, nullptr) < 0)
      helper_fail(plan, "cannot bind-mount the root for the runtime");
  }
  if (::dup2(plan.null_fd, 0) < 0 || ::dup2(plan.out_fd, 1) < 0 || ::dup2(plan.out_fd, 2) < 0) helper_fail(plan, "dup2");
  // Nothing rockpack inherited or opened reaches the runtime or the command.
  if (::syscall(SYS_close_range, 3U, ~0U, 0U) < 0)
    for (int fd = 3; fd < 65536; ++fd) ::close(fd);
  ::execve(plan.argv[0], plan.argv.data(), plan.envp.data());
  helper_fail(plan, "cannot run the container runtime");
  _exit(125);
}

// ---- The keeper: nothing is left running, whoever dies. ----
//
// A runtime started by `run` stays up as long as its container does, and a container outlives both
// rockpack and the runtime when either is killed with SIGKILL (the runtime's init keeps its
// parent-death signal only while it sets the container up). So rockpack does not start the runtime
// itself: it starts a keeper, a small process of its own session that ignores the terminal's
// signals, starts the runtime and waits for two things:
//  - the runtime's end: when the runtime left its state behind (it was killed), the keeper runs
//    `<runtime> delete --force`, which kills the container's init (and with it the container's
//    pid namespace) and removes its state and cgroup; then it exits with the runtime's status;
//  - the end of its life pipe, whose other end only rockpack holds: the pipe closes when rockpack
//    dies, however it dies. The keeper then kills the runtime, runs `delete --force`, and removes
//    the bundle, the runtime's mount directory and the scratch root. A byte 'k' on the pipe is
//    rockpack's own request to stop the container (a timeout, a signal) without removing anything.
// The keeper takes a name of its own ("sandbox-keeper"): `pkill rockpack` and `killall -9 rockpack`
// match processes by name, and under rockpack's name it would die with the build it outlives to
// clean up after: the test's kill by name had left the runtime's mount directory behind. (What
// kills it by pid, or by the command line it shares with rockpack, `pkill -f`, still does.)
// Everything the keeper needs is prepared before the fork: it only makes system calls.
struct KeeperPlan {
  HelperPlan helper;
  std::vector<std::string> delete_text;  // <runtime> --root STATE delete --force ID
  std::vector<char*> delete_argv;
  std::string state_of_id;               // STATE/ID: exists while the runtime has a container
  std::vector<std::string> remove_when_orphaned;  // the bundle, the mount directory, the scratch root
  int life_fd = -1;                      // the read end of the life pipe
};

// Closes every descriptor from 3 up except `keep` (sorted, ascending).
void close_all_but(std::vector<int> keep) {
  std::sort(keep.begin(), keep.end());
  unsigned from = 3;
  for (int fd : keep) {
    if (fd < 3) continue;
    if (static_cast<unsigned>(fd) > from) ::syscall(SYS_close_range, from, static_cast<unsigned>(fd) - 1, 0U);
    from = static_cast<unsigned>(fd) + 1;
  }
  ::syscall(SYS_close_range, from, ~0U, 0U);
}

// Waits up to `ms` for the child `pid`; true when it ended (its status in *status).
bool wait_child(pid_t pid, int* status, int ms) {
  for (int waited = 0;; waited += 5) {
    pid_t r = ::waitpid(pid, status, WNOHANG);
    if (r == pid || (r < 0 && errno == ECHILD)) return true;
    if (waited >= ms) return false;
    struct timespec pause_for {0, 5000000};
    ::nanosleep(&pause_for, nullptr);
  }
}

// `<runtime> delete --force ID` when the runtime still has state for the container: kills what is
// left of it and removes its state and cgroup. Bounded: a runtime that hangs is killed after 20 s.
void keeper_delete(const KeeperPlan& k) {
  if (::access(k.state_of_id.c_str(), F_OK) != 0) return;
  pid_t child = ::fork();
  if (child == 0) {
    if (k.helper.hide_unified && private_mounts(true)) _exit(125);
    ::dup2(k.helper.null_fd, 0);
    ::dup2(k.helper.null_fd, 1);
    ::dup2(k.helper.null_fd, 2);
    ::syscall(SYS_close_range, 3U, ~0U, 0U);
    ::execve(k.delete_argv[0], k.delete_argv.data(), k.helper.envp.data());
    _exit(127);
  }
  if (child < 0) return;
  int status = 0;
  if (!wait_child(child, &status, 20000)) {
    ::kill(child, SIGKILL);
    wait_child(child, &status, 1000);
  }
}

[[noreturn]] void keeper_main(const KeeperPlan& k) {
  ::setsid();  // a session of its own: a Ctrl-C on rockpack's terminal does not reach it
  ::prctl(PR_SET_NAME, "sandbox-keeper", 0, 0, 0);  // not rockpack's: a kill by name spares it
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT}) ::signal(sig, SIG_IGN);
  close_all_but({k.life_fd, k.helper.out_fd, k.helper.null_fd});
  pid_t runtime = ::fork();
  if (runtime == 0) {
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGQUIT}) ::signal(sig, SIG_DFL);
    ::close(k.life_fd);
    helper_main(k.helper);
  }
  if (runtime < 0) helper_fail(k.helper, "cannot start the container runtime");
  ::close(k.helper.out_fd);  // the command's output reaches rockpack from the runtime only
  int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, runtime, 0));
  bool orphaned = false, stop = false;
  int status = 0;
  for (;;) {
    struct pollfd fds[2] = {{k.life_fd, POLLIN, 0}, {pidfd, POLLIN, 0}};
    int ready = ::poll(fds, 2, pidfd >= 0 ? -1 : 50);
    if (ready > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      char byte = 0;
      ssize_t n = ::read(k.life_fd, &byte, 1);
      if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) orphaned = true;
      else if (n == 1 && byte == 'k') stop = true;
    }
    if (orphaned || stop) {
      // The runtime first, so that it makes nothing more; what it made goes with `delete --force`.
      ::kill(runtime, SIGKILL);
      wait_child(runtime, &status, 60000);
      break;
    }
    pid_t r = ::waitpid(runtime, &status, WNOHANG);
    if (r == runtime) break;
  }
  keeper_delete(k);
  if (orphaned) {
    for (const auto& path : k.remove_when_orphaned) remove_tree_raw(path.c_str());
    _exit(125);
  }
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
}

struct RunFiles {
  fs::path bundle, config, log, pid, state;
  std::string id;
};

Attempt run_attempt(const Runtime& runtime, const RunFiles& files, const std::string& rootfs, const std::string& mountpoint,
                    bool hide_unified, const std::vector<std::string>& remove_when_orphaned, int timeout_seconds,
                    const std::function<void(std::string)>& on_output) {
  std::error_code ec;
  fs::remove(files.log, ec);
  fs::remove(files.pid, ec);
  fs::remove_all(files.state, ec);
  fs::create_directories(files.state, ec);

  KeeperPlan keeper;
  HelperPlan& plan = keeper.helper;
  plan.rootfs = rootfs;
  plan.mountpoint = mountpoint;
  plan.hide_unified = hide_unified;
  plan.log = files.log.string();
  if (runtime.name == "crun")
    plan.argv_text = {runtime.path, "--root", files.state.string(), "--log=file:" + files.log.string(), "--log-format=json",
                      "run", "--bundle", files.bundle.string(), "--pid-file", files.pid.string(), files.id};
  else
    plan.argv_text = {runtime.path, "--root", files.state.string(), "--log", files.log.string(), "--log-format", "json",
                      "run", "--bundle", files.bundle.string(), "--pid-file", files.pid.string(), files.id};
  for (auto& a : plan.argv_text) plan.argv.push_back(a.data());
  plan.argv.push_back(nullptr);
  static std::string path_env = kRuntimePath;
  plan.envp = {path_env.data(), nullptr};
  keeper.delete_text = {runtime.path, "--root", files.state.string(), "delete", "--force", files.id};
  for (auto& a : keeper.delete_text) keeper.delete_argv.push_back(a.data());
  keeper.delete_argv.push_back(nullptr);
  keeper.state_of_id = (files.state / files.id).string();
  keeper.remove_when_orphaned = remove_when_orphaned;

  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) < 0) throw Error("cannot create a pipe: " + std::string(strerror(errno)));
  UniqueFd read_end(pipe_fds[0]), write_end(pipe_fds[1]);
  if (::pipe2(pipe_fds, O_CLOEXEC) < 0) throw Error("cannot create a pipe: " + std::string(strerror(errno)));
  UniqueFd life_read(pipe_fds[0]), life_write(pipe_fds[1]);
  UniqueFd null_fd(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (null_fd.get() < 0) throw Error("cannot open /dev/null: " + std::string(strerror(errno)));
  plan.out_fd = write_end.get();
  plan.null_fd = null_fd.get();
  keeper.life_fd = life_read.get();

  install_signal_hook();
  std::snprintf(g_pid_file, sizeof g_pid_file, "%s", files.pid.c_str());
  // SIGINT/SIGTERM wait while the keeper is made, so the handler always knows it.
  sigset_t stop, previous;
  sigemptyset(&stop);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&stop, sig);
  ::pthread_sigmask(SIG_BLOCK, &stop, &previous);
  pid_t helper = ::fork();
  if (helper == 0) {
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    keeper_main(keeper);
  }
  int fork_errno = errno;
  if (helper > 0) {
    g_keeper_fd.store(life_write.get());
    g_helper.store(helper);
  }
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  write_end = UniqueFd();
  life_read = UniqueFd();
  if (helper < 0) throw Error("cannot start the container runtime: " + std::string(strerror(fork_errno)));
  // The keeper has ended when this attempt returns; its pipe closes with it (a pipe left open would
  // only mean a keeper that is already gone).
  struct ForgetKeeper {
    ~ForgetKeeper() {
      g_helper.store(0);
      g_keeper_fd.store(-1);
    }
  } forget_keeper;

  Attempt attempt;
  // Until the container exists, what comes out is the runtime's own (a runtime that cannot run here
  // says why): held back, and dropped when the attempt fails; then the command's output streams.
  bool streaming = false;
  std::deque<std::string> held;
  auto container_exists = [&] { return ::access(files.pid.c_str(), F_OK) == 0; };
  OutputLines lines([&](std::string line) {
    if (!streaming && container_exists()) {
      streaming = true;
      for (auto& h : held) on_output(std::move(h));
      held.clear();
    }
    if (streaming) return on_output(std::move(line));
    held.push_back(std::move(line));
    if (held.size() > 200) held.pop_front();
  });
  UniqueFd pidfd(static_cast<int>(::syscall(SYS_pidfd_open, helper, 0)));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  bool output_open = true;
  bool exited = false;
  int status = 0;
  auto reap = [&](int flags) {
    pid_t r;
    while ((r = ::waitpid(helper, &status, flags)) < 0 && errno == EINTR) {
    }
    if (r == helper) exited = true;
  };
  char buffer[65536];
  while (!exited) {
    int wait_ms = pidfd.get() >= 0 ? -1 : 50;
    if (timeout_seconds > 0) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0) {
        attempt.timed_out = true;
        break;
      }
      wait_ms = wait_ms < 0 ? static_cast<int>(std::min<int64_t>(left, 1 << 30)) : std::min<int>(wait_ms, static_cast<int>(left));
    }
    struct pollfd fds[2] = {{output_open ? read_end.get() : -1, POLLIN, 0}, {pidfd.get(), POLLIN, 0}};
    int ready = ::poll(fds, 2, wait_ms);
    if (ready < 0 && errno != EINTR) throw Error("poll: " + std::string(strerror(errno)));
    if (ready > 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
      ssize_t n = ::read(read_end.get(), buffer, sizeof buffer);
      if (n > 0) lines.feed(buffer, static_cast<size_t>(n));
      else if (n == 0 || errno != EINTR) output_open = false;  // the deadline still holds: keep waiting
    }
    if (pidfd.get() < 0 || (ready > 0 && (fds[1].revents & POLLIN))) reap(WNOHANG);
  }
  if (attempt.timed_out) {
    kill_running_container();
    reap(0);
  }
  g_helper.store(0);
  g_keeper_fd.store(-1);
  // What the command wrote just before it ended: nothing holds the pipe any more.
  if (output_open) {
    ::fcntl(read_end.get(), F_SETFL, O_NONBLOCK);
    ssize_t n;
    while ((n = ::read(read_end.get(), buffer, sizeof buffer)) > 0) lines.feed(buffer, static_cast<size_t>(n));
  }
  lines.finish();
  attempt.started = container_exists();
  if (attempt.started)
    for (auto& h : held) on_output(std::move(h));
  attempt.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  if (attempt.timed_out) attempt.exit_code = 128 + SIGKILL;
  attempt.errors = runtime_errors(files.log);
  return attempt;
}

// A directory for the runtime's bind mount of the root (root only): /run/rockpack/<temp name>/rootfs.
class Mountpoint {
 public:
  Mountpoint() {
    std::error_code ec;
    fs::create_directories(kMountBase, ec);
    struct stat st {};
    if (::lstat(kMountBase, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0)
      throw Error(std::string("cannot use ") + kMountBase + " for the sandbox: not a directory of root's",
                  std::string("remove ") + kMountBase + " and try again");
    ::chmod(kMountBase, 0711);
    remove_orphaned_temporaries(kMountBase, "sandbox");
    dir_ = temp_sibling(fs::path(kMountBase) / "sandbox");
    if (::mkdir(dir_.c_str(), 0711) != 0 || ::mkdir((dir_ / "rootfs").c_str(), 0755) != 0)
      throw Error("cannot create " + dir_.string() + ": " + strerror(errno));
    slot_ = register_temporary_tree(dir_.c_str());
  }
  ~Mountpoint() {
    unregister_temporary(slot_);
    remove_tree_raw(dir_.c_str());
  }
  std::string path() const { return (dir_ / "rootfs").string(); }
  std::string dir() const { return dir_.string(); }

 private:
  fs::path dir_;
  int slot_ = -1;
};

std::atomic<uint64_t> g_run_counter{0};

struct Launch {
  SpecInput spec;
  fs::path rootfs;
  int timeout_seconds = 0;
};

// Runs `launch` with the runtimes in order (the one proven here first) until one makes the
// container. Returns the attempt and the runtime's name; throws when none can.
std::pair<Attempt, std::string> run_with_runtimes(Launch launch, const fs::path& scratch,
                                                  const std::function<void(std::string)>& on_output) {
  auto runtimes = find_runtimes();
  if (runtimes.empty())
    throw Error("no container runtime (crun or runc) is installed; the sandbox never runs a command without one",
                how_to_fix(::geteuid() == 0));
  launch.spec.seccomp = seccomp_for_default_caps();
  const bool root = ::geteuid() == 0;
  std::unique_ptr<Mountpoint> mountpoint;
  if (root) mountpoint = std::make_unique<Mountpoint>();
  launch.spec.rootfs = root ? mountpoint->path() : fs::absolute(launch.rootfs).string();

  RunFiles files;
  files.id = "rockpack-" + std::to_string(::getpid()) + "-" + std::to_string(g_run_counter.fetch_add(1));
  files.bundle = scratch / ("oci-" + files.id);
  std::error_code ec;
  fs::remove_all(files.bundle, ec);
  if (::mkdir(files.bundle.c_str(), 0700) != 0)
    throw Error("cannot create " + files.bundle.string() + ": " + strerror(errno));
  files.config = files.bundle / "config.json";
  files.log = files.bundle / "runtime.log";
  files.pid = files.bundle / "container.pid";
  files.state = files.bundle / "state";
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{files.bundle};
  write_file_atomic(files.config, make_oci_spec(launch.spec).dump(), 0600);

  const bool hybrid = root && hybrid_cgroups();
  // The runtime proven in this process first, else the one that worked here last time.
  std::vector<size_t> order;
  std::string choice_key, remembered;
  {
    std::lock_guard<std::mutex> lock(g_runtime_mutex);
    if (g_proven >= 0 && static_cast<size_t>(g_proven) < runtimes.size()) order.push_back(static_cast<size_t>(g_proven));
  }
  if (order.empty() && runtimes.size() > 1) {
    choice_key = runtime_choice_key(runtimes, hybrid_cgroups());
    remembered = remembered_runtime(choice_key);
    for (size_t i = 0; i < runtimes.size(); ++i)
      if (runtimes[i].name == remembered) order.push_back(i);
  }
  for (size_t i = 0; i < runtimes.size(); ++i)
    if (order.empty() || order[0] != i) order.push_back(i);

  std::vector<std::string> why_not;
  std::vector<std::pair<size_t, Attempt>> failed;
  // What the keeper removes when rockpack dies mid-command (the scratch root unless it is to be kept).
  std::vector<std::string> orphaned = {files.bundle.string()};
  if (root) orphaned.push_back(mountpoint->dir());
  if (!std::getenv("ROCKPACK_KEEP_SANDBOX"))
    orphaned.push_back(fs::absolute(scratch).string());

  for (size_t i : order) {
    Attempt attempt = run_attempt(runtimes[i], files, fs::absolute(launch.rootfs).string(),
                                  root ? mountpoint->path() : std::string(), hybrid && runtimes[i].name == "crun", orphaned,
                                  launch.timeout_seconds, on_output);
    bool proven;
    {
      std::lock_guard<std::mutex> lock(g_runtime_mutex);
      proven = g_proven == static_cast<int>(i);
    }
    if (attempt.started || attempt.errors.empty() || attempt.timed_out || proven) {
      std::lock_guard<std::mutex> lock(g_runtime_mutex);
      if (attempt.started || attempt.errors.empty()) {
        g_proven = static_cast<int>(i);
        if (!choice_key.empty() && remembered != runtimes[i].name) remember_runtime(choice_key, runtimes[i].name);
      }
      if (!g_said_which) {
        g_said_which = true;
        std::string note = why_not.empty() ? "" : " (" + why_not.front() + ")";
        if (hybrid && runtimes[i].name == "crun")
          note += std::string(" (hybrid cgroups: crun runs with ") + kUnifiedHierarchy +
                  " unmounted in its mount namespace, on the cgroup v1 controllers)";
        spdlog::info("sandbox: commands run in containers made by {}{}", runtimes[i].name, note);
      }
      return {std::move(attempt), runtimes[i].name};
    }
    std::string joined;
    for (const auto& e : attempt.errors) joined += (joined.empty() ? "" : "; ") + e;
    why_not.push_back(runtimes[i].name + " cannot run here: " + joined);
    failed.emplace_back(i, std::move(attempt));
  }
  // Every runtime failed before the container existed, and none has run anything yet: the reason
  // may be the command itself (not found). A probe container tells the two apart; the probe's
  // runtime then reports this command's failure.
  if (!g_probing) {
    g_probing = true;
    auto why = sandbox_unavailable();
    g_probing = false;
    int proven;
    {
      std::lock_guard<std::mutex> lock(g_runtime_mutex);
      proven = g_proven;
    }
    if (!why)
      for (auto& [i, attempt] : failed)
        if (static_cast<int>(i) == proven) return {std::move(attempt), runtimes[i].name};
  }
  std::string all;
  for (const auto& w : why_not) all += (all.empty() ? "" : "; ") + w;
  throw Error("cannot start the sandbox: " + all, how_to_fix(root));
}

}  // namespace

IdMapping sandbox_ids() {
  if (::geteuid() == 0) return {{kSandboxHostIdBase, 65536}, {kSandboxHostIdBase, 65536}};
  return {{static_cast<uint32_t>(::geteuid()), 1}, {static_cast<uint32_t>(::getegid()), 1}};
}

namespace {
// Gives `path` to the sandbox's root unless it has it: a chown that changes nothing still changes
// the ctime, and the directory would count as the step's change.
void give_to_container_root(const fs::path& path, const IdMapping& ids) {
  struct stat st {};
  uid_t uid = ids.uids.to_host(0);
  gid_t gid = ids.gids.to_host(0);
  if (::lstat(path.c_str(), &st) == 0 && (st.st_uid != uid || st.st_gid != gid)) (void)::lchown(path.c_str(), uid, gid);
}
}  // namespace

void prepare_sandbox_rootfs(const fs::path& rootfs, const IdMapping& ids) {
  const bool root = ::geteuid() == 0;
  for (const char* dir : {"proc", "dev", "tmp"}) {
    std::error_code ec;
    fs::path p = rootfs / dir;
    if (fs::is_symlink(p)) fs::remove(p);
    if (!fs::exists(p)) {
      fs::create_directories(p, ec);
      if (!ec && std::string(dir) == "tmp") ::chmod(p.c_str(), 01777);
    }
    if (ec) throw Error("cannot prepare " + p.string() + " for the sandbox: " + ec.message());
    if (root) give_to_container_root(p, ids);
  }
  if (root) give_to_container_root(rootfs, ids);
}

std::optional<std::string> sandbox_unavailable() {
  if (const char* off = std::getenv("ROCKPACK_SANDBOX"); off && std::string(off) == "off")
    return std::string("ROCKPACK_SANDBOX=off is set");
  // A container on an empty root with the host's /usr read-only, running `true`.
  std::error_code ec;
  fs::path scratch = temp_sibling(fs::temp_directory_path() / "rockpack-sandbox-probe");
  if (::mkdir(scratch.c_str(), 0700) != 0) return "cannot create " + scratch.string() + ": " + strerror(errno);
  int slot = register_temporary_tree(scratch.c_str());
  struct Cleanup {
    fs::path dir;
    int slot;
    ~Cleanup() {
      unregister_temporary(slot);
      remove_tree_raw(dir.c_str());
    }
  } cleanup{scratch, slot};
  fs::path rootfs = scratch / "rootfs";
  fs::create_directories(rootfs / "usr", ec);
  for (const char* link : {"bin", "lib", "lib64", "sbin"}) fs::create_symlink(std::string("usr/") + link, rootfs / link, ec);
  IdMapping ids = sandbox_ids();
  try {
    prepare_sandbox_rootfs(rootfs, ids);
    if (::geteuid() == 0) give_to_container_root(rootfs / "usr", ids);
    Launch launch;
    launch.rootfs = rootfs;
    launch.timeout_seconds = 30;
    launch.spec.argv = {"/usr/bin/true"};
    launch.spec.env = {kRuntimePath};
    launch.spec.uids = ids.uids;
    launch.spec.gids = ids.gids;
    launch.spec.pids_limit = kSandboxPidsLimit;
    launch.spec.cgroup_limits = ::geteuid() == 0;
    launch.spec.readonly_binds = {"/usr"};
    auto [attempt, runtime] = run_with_runtimes(launch, scratch, [](std::string) {});
    if (attempt.exit_code != 0)
      return runtime + " ran `true` in a container, which failed with exit code " + std::to_string(attempt.exit_code);
  } catch (const Error& e) {
    return std::string(e.what()) + (e.hint().empty() ? "" : " (" + e.hint() + ")");
  }
  return std::nullopt;
}

SandboxResult run_in_sandbox(const fs::path& rootfs, const SandboxCommand& command, const OutputLine& on_line) {
  if (command.argv.empty()) throw Error(command.name + ": no command to run");
  if (const char* off = std::getenv("ROCKPACK_SANDBOX"); off && std::string(off) == "off")
    throw Error(command.name + ": cannot run: ROCKPACK_SANDBOX=off is set", "unset it to run commands in the sandbox");
  const bool root = ::geteuid() == 0;
  IdMapping ids = sandbox_ids();
  if (!root && (command.uid != 0 || command.gid != 0))
    throw Error(command.name + ": the step asks for user " + std::to_string(command.uid) +
                    ", but rootless sandboxes map only root",
                "run rockpack as root for steps with a user:");
  prepare_sandbox_rootfs(rootfs, ids);

  Launch launch;
  launch.rootfs = rootfs;
  launch.timeout_seconds = command.timeout_seconds;
  launch.spec.argv = command.argv;
  launch.spec.env = command.env;
  launch.spec.uid = command.uid;
  launch.spec.gid = command.gid;
  launch.spec.cwd = command.workdir.empty() ? "/" : command.workdir;
  launch.spec.network = command.network;
  launch.spec.uids = ids.uids;
  launch.spec.gids = ids.gids;
  launch.spec.pids_limit = kSandboxPidsLimit;
  // Rootless, the runtime cannot make a cgroup (cgroup v1, or v2 without delegation): the limit is
  // RLIMIT_NPROC only.
  launch.spec.cgroup_limits = root;

  SandboxResult result;
  std::deque<std::string> last;
  auto on_output = [&](std::string line) {
    on_line(line);
    last.push_back(std::move(line));
    if (last.size() > kKeptLines) last.pop_front();
  };
  fs::path scratch = fs::absolute(rootfs).parent_path();
  auto [attempt, runtime] = run_with_runtimes(launch, scratch, on_output);
  result.runtime = runtime;
  result.timed_out = attempt.timed_out;
  result.exit_code = attempt.exit_code;
  if (!attempt.timed_out && !attempt.errors.empty()) {
    for (const auto& e : attempt.errors) result.setup_error += (result.setup_error.empty() ? "" : "; ") + e;
    result.exit_code = 127;
  }
  result.last_lines.assign(last.begin(), last.end());
  return result;
}

}  // namespace rp
