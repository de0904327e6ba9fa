#include "util/temp_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>

namespace rp {

namespace {

// Fixed storage: the signal handler may only read memory that is never freed or reallocated.
struct Slot {
  std::atomic<bool> used{false};
  std::atomic<bool> ready{false};
  bool tree = false;  // a directory tree (remove_tree_raw), not a file
  char path[1024];
};
std::array<Slot, 256> g_slots;
std::array<std::atomic<void (*)()>, 8> g_hooks{};

// Removes everything inside the directory `dir` (an fd), then nothing else. Entries are read with
// getdents64 into a stack buffer: no allocation, so it may run in a signal handler. `depth` bounds
// the recursion (and the stack: one buffer per level).
void clear_directory_raw(int dir, int depth) {
  if (depth > 64) return;
  char buffer[2048];
  for (int rounds = 0; rounds < 100000; ++rounds) {
    ::lseek(dir, 0, SEEK_SET);
    long n = ::syscall(SYS_getdents64, dir, buffer, sizeof buffer);
    if (n <= 0) return;
    bool removed_any = false;
    for (long at = 0; at < n;) {
      auto* d = reinterpret_cast<struct dirent64*>(buffer + at);
      at += d->d_reclen;
      const char* name = d->d_name;
      if (name[0] == '.' && (name[1] == 0 || (name[1] == '.' && name[2] == 0))) continue;
      if (::unlinkat(dir, name, 0) == 0) {
        removed_any = true;
        continue;
      }
      // A directory (or a file in a directory we may not write): make it ours to clear.
      int child = ::openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (child >= 0) {
        ::fchmod(child, 0700);
        clear_directory_raw(child, depth + 1);
        ::close(child);
      }
      if (::unlinkat(dir, name, AT_REMOVEDIR) == 0) removed_any = true;
    }
    if (!removed_any) return;  // what is left cannot be removed: stop rather than spin
  }
}
// The handshake between create_temporary and the handler: `g_dying` once the handler has begun,
// `g_creating` while a thread is between open() and registration.
std::atomic<bool> g_dying{false};
std::atomic<int> g_creating{0};

extern "C" void unlink_temporaries_and_die(int sig) {
  g_dying.store(true);
  for (auto& hook : g_hooks)
    if (auto fn = hook.load()) fn();
  // Creators block the signals while they create, so none of them is this thread; wait (at most
  // about a second) until every creation under way is registered.
  for (int i = 0; i < 2000 && g_creating.load() > 0; ++i) {
    struct timespec pause_for {0, 500000};
    ::nanosleep(&pause_for, nullptr);
  }
  for (auto& s : g_slots)
    if (s.ready.load(std::memory_order_acquire)) {
      if (s.tree) remove_tree_raw(s.path);
      else ::unlink(s.path);
    }
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

}  // namespace

namespace {
int register_slot(const char* path, bool tree) {
  if (std::strlen(path) >= sizeof(Slot::path)) return -1;
  for (size_t i = 0; i < g_slots.size(); ++i) {
    bool expected = false;
    if (!g_slots[i].used.compare_exchange_strong(expected, true)) continue;
    std::strcpy(g_slots[i].path, path);
    g_slots[i].tree = tree;
    g_slots[i].ready.store(true, std::memory_order_release);
    return static_cast<int>(i);
  }
  return -1;
}
}  // namespace

int register_temporary(const char* path) { return register_slot(path, false); }
int register_temporary_tree(const char* path) { return register_slot(path, true); }

bool add_signal_hook(void (*hook)()) {
  for (auto& slot : g_hooks) {
    void (*expected)() = nullptr;
    if (slot.compare_exchange_strong(expected, hook)) return true;
  }
  return false;
}

void remove_tree_raw(const char* path) {
  int dir = ::open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir < 0) {
    ::unlink(path);
    return;
  }
  ::fchmod(dir, 0700);
  clear_directory_raw(dir, 0);
  ::close(dir);
  ::rmdir(path);
}

void unregister_temporary(int slot) {
  if (slot < 0) return;
  g_slots[static_cast<size_t>(slot)].ready.store(false, std::memory_order_release);
  g_slots[static_cast<size_t>(slot)].used.store(false, std::memory_order_release);
}

CreatedTemporary create_temporary(const char* path, int flags, unsigned mode) {
  sigset_t stop, previous;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGHUP);
  ::pthread_sigmask(SIG_BLOCK, &stop, &previous);
  g_creating.fetch_add(1);
  if (g_dying.load()) {
    // The handler runs on another thread and the process is about to end: create nothing.
    g_creating.fetch_sub(1);
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    for (;;) ::pause();
  }
  CreatedTemporary created;
  created.fd = ::open(path, flags | O_CREAT | O_EXCL, mode);
  int open_errno = errno;
  if (created.fd >= 0) created.slot = register_temporary(path);
  g_creating.fetch_sub(1);
  ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  errno = open_errno;
  return created;
}

void remove_temporaries_on_signal() {
  struct sigaction sa {};
  sa.sa_handler = unlink_temporaries_and_die;
  sigemptyset(&sa.sa_mask);
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  ::sigaction(SIGHUP, &sa, nullptr);
}

int temp_owner_pid(const std::string& name) {
  size_t at = name.rfind(".tmp-");
  if (at == std::string::npos) return 0;
  size_t dash = name.find('-', at + 5);
  if (dash == std::string::npos || dash == at + 5 || dash - at - 5 > 9) return 0;
  std::string pid = name.substr(at + 5, dash - at - 5);
  if (pid.find_first_not_of("0123456789") != std::string::npos) return 0;
  std::string hex = name.substr(dash + 1);
  if (hex.size() != 16 || hex.find_first_not_of("0123456789abcdef") != std::string::npos) return 0;
  return std::stoi(pid);
}

bool process_is_gone(int pid) {
  if (pid <= 0 || pid == static_cast<int>(::getpid())) return false;
  return ::kill(pid, 0) != 0 && errno == ESRCH;
}

size_t remove_orphaned_temporaries(const fs::path& dir, const std::string& prefix) {
  size_t removed = 0;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (!name.starts_with(prefix) || !process_is_gone(temp_owner_pid(name))) continue;
    std::error_code ec2;
    if (fs::remove_all(it->path(), ec2) > 0 && !ec2) ++removed;
  }
  return removed;
}

}  // namespace rp
