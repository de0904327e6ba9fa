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

// Installs SIGINT/SIGTERM handlers that unlink the registered temporaries and then die of the
// signal as before (exit status 128+N).
void remove_temporaries_on_signal();

// The pid in a temp_sibling() name ("<name>.tmp-<pid>-<hex>"), or 0 when `name` is not one.
int temp_owner_pid(const std::string& name);

// Whether the process `pid` is gone: not this process and kill(pid, 0) says no such process.
bool process_is_gone(int pid);

// Removes the temp_sibling() entries (files or directories) directly in `dir` whose process is
// gone, and whose name starts with `prefix` when one is given. Returns how many were removed.
size_t remove_orphaned_temporaries(const fs::path& dir, const std::string& prefix = {});

}  // namespace rp
