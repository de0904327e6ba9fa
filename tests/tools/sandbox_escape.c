/* A hostile program for tests/integration/test_sandbox_escape.sh: tries the ways out of a sandbox
 * an attacker would try, and prints one line per attempt, "BLOCKED <case>: <why>" or
 * "ESCAPED <case>: <what>". Compiled static (gcc -static) with CANARY (a host directory) and
 * HOST_SECRET (a host file) defined, so it runs in any image, and as the image's /bin/sh too:
 * `/bin/sh -c ...` (how run:, maintainer scripts and `rockpack check` start commands) runs every
 * case but the slow ones.
 *   escape all | chroot | mount | mknod | core | ptrace PID | tiocsti | proc1root | forkbomb | sleep | late-marker */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

static int escaped = 0;

static void blocked(const char *c, const char *why) { printf("BLOCKED %s: %s\n", c, why); fflush(stdout); }
static void out(const char *c, const char *what) { printf("ESCAPED %s: %s\n", c, what); fflush(stdout); escaped = 1; }

static void try_chroot(void) {
  /* The textbook escape: chroot into a subdirectory, walk up past the old root, chroot there. */
  mkdir("/.e", 0700);
  if (chroot("/.e") != 0) { blocked("chroot", strerror(errno)); return; }
  for (int i = 0; i < 99; i++) (void)!chdir("..");
  (void)!chroot(".");
  int fd = open(CANARY "/escaped-chroot", O_CREAT | O_WRONLY, 0644);
  if (fd >= 0) { out("chroot", "wrote " CANARY "/escaped-chroot"); close(fd); return; }
  blocked("chroot", "the walk up ends at the container's own root (pivot_root in a mount namespace)");
}

static void try_mount(void) {
  if (mount("tmpfs", "/tmp", "tmpfs", 0, NULL) == 0) { out("mount", "mounted a tmpfs"); return; }
  blocked("mount", strerror(errno));
}

static void try_mknod(void) {
  if (mknod("/.disk", S_IFBLK | 0600, makedev(8, 0)) == 0) {
    int fd = open("/.disk", O_RDONLY);
    if (fd >= 0) { out("mknod", "opened the host's disk"); close(fd); return; }
    unlink("/.disk");
    blocked("mknod", "made a node that does not open (no device access)");
    return;
  }
  blocked("mknod", strerror(errno));
}

static void try_core(void) {
  int fd = open("/proc/sys/kernel/core_pattern", O_WRONLY);
  if (fd >= 0) { out("core_pattern", "opened for writing"); close(fd); return; }
  blocked("core_pattern", strerror(errno));
}

static void try_ptrace(const char *pid) {
  if (!pid) { blocked("ptrace", "no host pid given"); return; }
  pid_t p = atoi(pid);
  if (ptrace(PTRACE_ATTACH, p, 0, 0) == 0) { out("ptrace", "attached to a host process"); return; }
  blocked("ptrace", strerror(errno));
}

static void try_tiocsti(void) {
  char c = 'X';
  int tried = 0;
  for (int fd = 0; fd < 3; fd++)
    if (ioctl(fd, TIOCSTI, &c) == 0) { out("tiocsti", "pushed a key into a terminal"); return; } else tried++;
  int tty = open("/dev/tty", O_RDWR);
  if (tty >= 0 && ioctl(tty, TIOCSTI, &c) == 0) { out("tiocsti", "pushed a key through /dev/tty"); return; }
  blocked("tiocsti", tty < 0 ? "no terminal: /dev/tty does not open, stdin/stdout/stderr are not ttys" : strerror(errno));
}

static void try_proc1root(void) {
  char buf[256] = {0};
  int fd = open("/proc/1/root" HOST_SECRET, O_RDONLY);
  if (fd >= 0 && read(fd, buf, sizeof buf - 1) > 0 && strstr(buf, "host-secret")) { out("proc1root", "read a host file"); close(fd); return; }
  blocked("proc1root", "/proc/1 is the container's own init (a pid namespace): the host file is not there");
}

static void try_forkbomb(void) {
  int made = 0;
  for (;;) {
    pid_t p = fork();
    if (p == 0) { pause(); _exit(0); }
    if (p < 0) break;
    if (++made > 100000) { out("forkbomb", "100000 processes"); return; }
  }
  char why[128];
  snprintf(why, sizeof why, "fork failed after %d processes (%s): the pids limit", made, strerror(errno));
  blocked("forkbomb", why);
  kill(0, SIGKILL);
}

static void try_fd_leak(void) {
  for (int fd = 3; fd < 1024; fd++)
    if (fcntl(fd, F_GETFD) >= 0) { char w[64]; snprintf(w, sizeof w, "descriptor %d is open", fd); out("fds", w); return; }
  blocked("fds", "no descriptor beyond 0, 1, 2");
}

static void all(const char *pid) {
  try_chroot(); try_mount(); try_mknod(); try_core(); try_ptrace(pid); try_tiocsti(); try_proc1root(); try_fd_leak();
}

int main(int argc, char **argv) {
  const char *c = argc > 1 ? argv[1] : "all";
  if (!strcmp(c, "-c")) { /* as /bin/sh -c: the ptrace target is written into the image at /host-pid */
    char pid[32] = {0};
    int fd = open("/host-pid", O_RDONLY);
    if (fd >= 0) { (void)!read(fd, pid, sizeof pid - 1); close(fd); }
    all(pid[0] ? pid : NULL);
  }
  else if (!strcmp(c, "all")) all(argc > 2 ? argv[2] : NULL);
  else if (!strcmp(c, "chroot")) try_chroot();
  else if (!strcmp(c, "forkbomb")) try_forkbomb();
  else if (!strcmp(c, "sleep")) { sleep(120); out("timeout", "slept 120 s"); }
  else if (!strcmp(c, "quiet-sleep")) { close(1); close(2); sleep(120); }
  else if (!strcmp(c, "late-marker")) { /* two processes that write /late-marker-<pid> after 4 s */
    fork();
    sleep(4);
    char path[64];
    snprintf(path, sizeof path, "/late-marker-%d", (int)getpid());
    int fd = open(path, O_CREAT | O_WRONLY, 0644);
    if (fd >= 0) close(fd);
    printf("late-marker %d written\n", (int)getpid());
  }
  return escaped ? 3 : 0;
}
