#include "registry/credential_helper.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "util/error.hpp"

extern char** environ;

namespace rp::registry {

namespace {

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

}  // namespace

HelperResult run_credential_helper(const std::string& helper, const std::string& action, const std::string& input) {
  for (char c : helper)
    if (c == '/' || c == '\0')
      throw rp::Error("invalid credential helper name '" + helper + "'", "credential helper names have no '/'");
  std::string program = "docker-credential-" + helper;

  int in_pipe[2], out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0) throw rp::Error(std::string("pipe: ") + std::strerror(errno));
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    ::close(in_pipe[0]);
    ::close(in_pipe[1]);
    throw rp::Error(std::string("pipe: ") + std::strerror(errno));
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  // The helper's own diagnostics go nowhere: some helpers echo their input there.
  posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);

  std::vector<char*> argv = {program.data(), const_cast<char*>(action.c_str()), nullptr};
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  int to_child = in_pipe[1], from_child = out_pipe[0];
  if (rc != 0) {
    close_fd(to_child);
    close_fd(from_child);
    throw rp::Error("cannot run the credential helper " + program + ": " + std::strerror(rc),
                    "install " + program + " or remove it from the docker config (credsStore/credHelpers)");
  }

  // A helper that exits without reading its input must not kill us with SIGPIPE.
  struct sigaction ignore{}, old{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &old);
  const char* p = input.data();
  size_t left = input.size();
  while (left) {
    ssize_t n = ::write(to_child, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    p += n;
    left -= static_cast<size_t>(n);
  }
  close_fd(to_child);
  ::sigaction(SIGPIPE, &old, nullptr);

  HelperResult result;
  char buf[4096];
  while (true) {
    ssize_t n = ::read(from_child, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (result.output.size() < (1u << 20)) result.output.append(buf, static_cast<size_t>(n));
  }
  close_fd(from_child);

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return result;
}

}  // namespace rp::registry
