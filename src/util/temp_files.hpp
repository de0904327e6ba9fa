#pragma once
// Temporaries that outlive their process: an interrupted build must not leave gigabytes behind.
// Two halves: a process removes its own open temporaries when SIGINT or SIGTERM ends it, and the
// next build removes the temporaries of processes that are gone (SIGKILL, power loss).
#include <cstddef>
#include <string>

#include "util/fs.hpp"

namespace rp {

// Open temporaries of this process, removed by the signal handler. Registration is lock-free and
// bounded (a temporary beyond the bound is simply left to the next build's sweep).
int register_temporary(const char* path);  // a slot, or -1
void unregister_temporary(int slot);

// Creates `path` (open(2) with O_CREAT | O_EXCL added to `flags`) and registers it as one step that
// the signal handler cannot split: a SIGINT/SIGTERM arriving meanwhile waits for the registration
// and then removes the file, and once the handler has begun no new temporary is created (the caller
// waits for the process to end). Without it, a signal between open() and the registration, or a
// thread creating a file while the handler unlinks, would leave that temporary behind.
struct CreatedTemporary {
  int fd = -1;    // -1: open() failed, errno says why
  int slot = -1;  // the registration, for unregister_temporary
};
CreatedTemporary create_temporary(const char* path, int flags, unsigned mode);

// A directory tree removed by the signal handler (a sandbox's scratch root): a slot, or -1.
// Removal uses only system calls (no allocation); directories are made writable on the way.
int register_temporary_tree(const char* path);

// A function the signal handler calls before it removes anything (e.g. killing a sandboxed command
// so that it stops writing into a tree about to be removed). It must be async-signal-safe. At most
// eight; returns false when full.
bool add_signal_hook(void (*hook)());

// Installs SIGINT/SIGTERM/SIGHUP handlers that run the hooks, remove the registered trees, unlink
// the registered temporaries and then die of the signal as before (exit status 128+N).
void remove_temporaries_on_signal();

// Removes the tree at `path` with system calls only (async-signal-safe; also usable outside a handler).
void remove_tree_raw(const char* path);

// The pid in a temp_sibling() name ("<name>.tmp-<pid>-<hex>"), or 0 when `name` is not one.
int temp_owner_pid(const std::string& name);

// Whether the process `pid` is gone: not this process and kill(pid, 0) says no such process.
bool process_is_gone(int pid);

// Removes the temp_sibling() entries (files or directories) directly in `dir` whose process is
// gone, and whose name starts with `prefix` when one is given. Returns how many were removed.
size_t remove_orphaned_temporaries(const fs::path& dir, const std::string& prefix = {});

}  // namespace rp
