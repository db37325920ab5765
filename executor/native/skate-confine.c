/*
 * skate-confine: the part of Skate's sandbox that Node cannot do itself.
 *
 *   skate-confine [--cgroup PROCS_FILE]... [--landlock] [--subreaper]
 *                 [--pipe-output] [--oom-score-adj N] [--pdeathsig] [--pin-fds]
 *                 [--keep-fd N]...
 *                 -- COMMAND [ARGS...]
 *
 * Before anything else, every descriptor above 2 is marked close-on-exec: a
 * descriptor inherited from whatever started Skate (a shell's `200>>file`, an
 * editor, CI) is a capability that reaches past any mount (`/proc/self/fd/N/…`),
 * so none crosses into a sandbox or a command unless passed on purpose. Every
 * sandbox and every command starts through here, so this is the one place.
 *
 * --cgroup FILE   join a cgroup (write our pid to its cgroup.procs) before
 *                 anything else runs, so no child escapes its limits.
 * --landlock      enter a new Landlock domain. Whatever runs inside can no
 *                 longer ptrace, read the memory or file descriptors of, or
 *                 signal processes outside it (the executor that started it),
 *                 nor connect to abstract unix sockets made outside it.
 * --subreaper     stay as the parent of the command: orphaned descendants
 *                 (daemons that double-forked or called setsid) reparent to
 *                 us, and on SIGTERM/SIGINT/SIGHUP or when the command exits,
 *                 every descendant is killed. Nothing the command started
 *                 outlives it.
 * --pipe-output   with --subreaper: stdout and stderr that are sockets reach the
 *                 command as pipes, copied out by the subreaper, so the command
 *                 can open /dev/stdout and /dev/stderr (see output-relay.h).
 * --oom-score-adj N  make the command the preferred victim of the OOM killer.
 * --pdeathsig     be killed (SIGKILL) the moment our parent dies, even if the
 *                 parent was killed with SIGKILL; survives the exec of COMMAND.
 * --pin-fds       replace each argument of COMMAND written @pin:PATH with the
 *                 number of a descriptor opened on PATH (O_PATH, inherited by
 *                 COMMAND), refusing when PATH is a symlink or resolves to any
 *                 other path. bubblewrap's --bind-fd then mounts exactly the
 *                 directory that was checked: a sandbox already running cannot
 *                 swap a writable path for a symlink between the check and the
 *                 mount. Opened after the sweep above, so they are passed on.
 * --keep-fd N     pass descriptor N on to COMMAND after all (it must be open):
 *                 one the caller hands over on purpose.
 * --guard, --guard-deny DIR NAME, --guard-name NAME, --guard-fd N
 *                 the create guard: protected names that do not exist cannot
 *                 be created inside the sandbox (see create-guard.h).
 *
 * Exit status: the command's, or 128+signal when it was killed by a signal.
 *
 *   skate-confine --net-forward SOCKET HANDOFF PORT[=HOST:PORT]...   (net-forward.h)
 *   skate-confine --splice-channel IDLE_MS CONNECT_MS [HANDOFF]     (splice-channel.h)
 *
 * the two ends of the allowlist proxy's kernel-side data path (issue #21).
 *
 *   skate-confine --limit-data PID MIB
 *
 * caps the data segment (RLIMIT_DATA, soft and hard: private writable memory,
 * heap and anonymous mappings alike) of process PID, a process of the same
 * user, at MIB MiB, then exits 0. For a process that measures what it needs to
 * start before capping what it may add: the js_eval worker, whose Node cannot
 * call setrlimit.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "create-guard.h"
#include "net-forward.h"
#include "output-relay.h"
#include "splice-channel.h"

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_ACCESS_FS_MAKE_CHAR (1ULL << 6)
#define LL_ACCESS_FS_MAKE_BLOCK (1ULL << 11)
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LL_SCOPE_SIGNAL (1ULL << 1)

/* The ruleset attribute as of Landlock ABI 6; older kernels get a shorter prefix of it. */
struct ll_ruleset_attr {
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};

#define MAX_PROCS 65536

static volatile sig_atomic_t stop_requested = 0;

static void on_stop(int sig) { stop_requested = sig; }

static void die(const char *what) {
  fprintf(stderr, "skate-confine: %s: %s\n", what, strerror(errno));
  exit(126);
}

static void write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) die(path);
  size_t len = strlen(text);
  if (write(fd, text, len) != (ssize_t)len) die(path);
  close(fd);
}

/* Marks descriptor `fd` close-on-exec, or closes it. */
static void shut_fd(int fd, int cloexec) {
  if (!cloexec) {
    close(fd);
  } else if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 && errno != EBADF) {
    die("F_SETFD");
  }
}

static int is_kept(long fd, const int *keep, int nkeep) {
  for (int k = 0; k < nkeep; k++)
    if (keep[k] == fd) return 1;
  return 0;
}

/*
 * Marks every descriptor above 2 but those in `keep` close-on-exec (`cloexec`), or closes them.
 * close_range(2) does it in a call per gap (Linux 5.11+ for the flag); older kernels get a walk
 * over /proc/self/fd, and without /proc a loop up to the descriptor limit.
 */
static void shut_above_stdio_except(int cloexec, const int *keep, int nkeep) {
  unsigned flags = cloexec ? CLOSE_RANGE_CLOEXEC : 0U;
  unsigned low = 3;
  int ok = 1;
  for (unsigned fd = 3; ok && nkeep > 0 && fd < (unsigned)INT_MAX; fd++) {
    if (!is_kept(fd, keep, nkeep)) continue;
    if (fd > low) ok = syscall(SYS_close_range, low, fd - 1, flags) == 0;
    low = fd + 1;
    int later = 0;
    for (int k = 0; k < nkeep; k++) later |= keep[k] > (int)fd;
    if (!later) break;
  }
  if (ok && syscall(SYS_close_range, low, ~0U, flags) == 0) return;
  DIR *fds = opendir("/proc/self/fd");
  if (fds) {
    struct dirent *entry;
    while ((entry = readdir(fds))) {
      char *end;
      long fd = strtol(entry->d_name, &end, 10);
      if (*end || end == entry->d_name || fd < 3 || fd == dirfd(fds) || is_kept(fd, keep, nkeep)) continue;
      shut_fd((int)fd, cloexec);
    }
    closedir(fds);
    return;
  }
  long max = sysconf(_SC_OPEN_MAX);
  for (long fd = 3; fd < (max > 0 ? max : 65536); fd++)
    if (!is_kept(fd, keep, nkeep)) shut_fd((int)fd, cloexec);
}

static void shut_above_stdio(int cloexec) { shut_above_stdio_except(cloexec, NULL, 0); }

/* Lets descriptor `text` through to the command (see --keep-fd); it must be open. */
static void keep_fd(const char *text) {
  char *end;
  long fd = strtol(text, &end, 10);
  if (*text == 0 || *end || fd < 3 || fd > INT_MAX) {
    fprintf(stderr, "skate-confine: --keep-fd needs a descriptor number above 2, not %s\n", text);
    exit(125);
  }
  int flags = fcntl((int)fd, F_GETFD);
  if (flags < 0 || fcntl((int)fd, F_SETFD, flags & ~FD_CLOEXEC) != 0) die("--keep-fd");
}

/* Returns 0 on success, 1 when the kernel has no Landlock (the caller decides), dies otherwise. */
static int enter_landlock(void) {
  long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
  if (abi < 0) {
    if (errno == ENOSYS || errno == EOPNOTSUPP) return 1;
    die("landlock_create_ruleset(version)");
  }
  struct ll_ruleset_attr attr = {0};
  /* A domain needs something to handle; creating device nodes is never legitimate here. */
  attr.handled_access_fs = LL_ACCESS_FS_MAKE_CHAR | LL_ACCESS_FS_MAKE_BLOCK;
  size_t size = sizeof(uint64_t);
  if (abi >= 6) {
    attr.scoped = LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL;
    size = sizeof(attr);
  }
  long ruleset = syscall(SYS_landlock_create_ruleset, &attr, size, 0);
  if (ruleset < 0) die("landlock_create_ruleset");
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) die("PR_SET_NO_NEW_PRIVS");
  if (syscall(SYS_landlock_restrict_self, (int)ruleset, 0) != 0) die("landlock_restrict_self");
  close((int)ruleset);
  return 0;
}

#define PIN_PREFIX "@pin:"

/* Opens every @pin:PATH argument (see --pin-fds) and puts the descriptor's number in its place. */
static void pin_paths(char **args) {
  for (; *args; args++) {
    if (strncmp(*args, PIN_PREFIX, strlen(PIN_PREFIX)) != 0) continue;
    const char *path = *args + strlen(PIN_PREFIX);
    /* No O_CLOEXEC: the command (bubblewrap) must inherit it. */
    int fd = open(path, O_PATH | O_NOFOLLOW);
    if (fd < 0) die(path);
    struct stat info;
    char link[64], real[PATH_MAX];
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, real, sizeof real - 1);
    if (fstat(fd, &info) != 0 || n < 0) die(path);
    real[n] = 0;
    /* A symlink at the end (O_NOFOLLOW opened the link itself) or on the way (the real path differs). */
    if (S_ISLNK(info.st_mode) || strcmp(real, path) != 0) {
      fprintf(stderr, "skate-confine: %s is a symlink or changed into one (%s); refusing to mount it\n", path, real);
      exit(126);
    }
    char *number = malloc(16);
    if (!number) die("malloc");
    snprintf(number, 16, "%d", fd);
    guard_note_pin(path, fd);
    *args = number;
  }
}

/* Parent pid of a process, from /proc/PID/stat (the field after the command name). */
static pid_t parent_of(pid_t pid) {
  char path[64], buf[512];
  snprintf(path, sizeof path, "/proc/%d/stat", pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -1;
  buf[n] = 0;
  char *end = strrchr(buf, ')');
  if (!end) return -1;
  char state;
  int ppid;
  if (sscanf(end + 2, "%c %d", &state, &ppid) != 2) return -1;
  return (pid_t)ppid;
}

/* Sends `sig` to every descendant of this process; returns how many were found. */
static int signal_descendants(int sig) {
  static pid_t pids[MAX_PROCS], parents[MAX_PROCS];
  int count = 0;
  DIR *proc = opendir("/proc");
  if (!proc) return 0;
  struct dirent *entry;
  while ((entry = readdir(proc)) && count < MAX_PROCS) {
    char *end;
    long pid = strtol(entry->d_name, &end, 10);
    if (*end || pid <= 0) continue;
    pid_t ppid = parent_of((pid_t)pid);
    if (ppid < 0) continue;
    pids[count] = (pid_t)pid;
    parents[count] = ppid;
    count++;
  }
  closedir(proc);
  pid_t self = getpid();
  int found = 0;
  for (int i = 0; i < count; i++) {
    /* Walk up the parent chain; descendants lead back to us (we are their subreaper). */
    pid_t p = parents[i];
    for (int depth = 0; depth < 4096 && p > 1 && p != self; depth++) {
      int j;
      for (j = 0; j < count && pids[j] != p; j++) {
      }
      p = j < count ? parents[j] : -1;
    }
    if (p == self) {
      kill(pids[i], sig);
      found++;
    }
  }
  return found;
}

static void reap_all(void) {
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

/* Ends every descendant: a polite SIGTERM, a short grace, then SIGKILL until none is left. */
static void kill_descendants(void) {
  /* No child left means no descendant (an orphan reparents to us): skip the scans of /proc. */
  reap_all();
  if (waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD) return;
  if (signal_descendants(SIGTERM) > 0) {
    for (int i = 0; i < 20; i++) {
      reap_all();
      if (waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD) return;
      sleep_ms(10);
    }
  }
  /* Forks racing the kill reparent to us and are caught in the next round. */
  for (int round = 0; round < 1000; round++) {
    signal_descendants(SIGKILL);
    reap_all();
    if (waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD) return;
    sleep_ms(1);
  }
}

/* --limit-data PID MIB: see the top of this file. */
static int limit_data(const char *pid_text, const char *mib_text) {
  char *end;
  errno = 0;
  long pid = strtol(pid_text, &end, 10);
  if (errno || *end || pid <= 0) {
    fprintf(stderr, "skate-confine: --limit-data: not a pid: %s\n", pid_text);
    return 125;
  }
  unsigned long long mib = strtoull(mib_text, &end, 10);
  if (errno || *end || mib == 0 || mib > (1ULL << 30)) {
    fprintf(stderr, "skate-confine: --limit-data: not a size in MiB: %s\n", mib_text);
    return 125;
  }
  struct rlimit limit = {(rlim_t)(mib << 20), (rlim_t)(mib << 20)};
  if (prlimit((pid_t)pid, RLIMIT_DATA, &limit, NULL) != 0) die("prlimit(RLIMIT_DATA)");
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "--limit-data") == 0) return limit_data(argv[2], argv[3]);
  /* First: nothing inherited goes further unless an option below passes it on. */
  shut_above_stdio(1);
  if (argc >= 2 && strcmp(argv[1], "--net-forward") == 0) return net_forward_main(argc, argv);
  if (argc >= 2 && strcmp(argv[1], "--splice-channel") == 0) return splice_channel_main(argc, argv);
  int landlock = 0, subreaper = 0, pin = 0, pipe_output = 0, i;
  pid_t parent = getppid();
  const char *oom = NULL;
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) {
      i++;
      break;
    } else if (strcmp(argv[i], "--cgroup") == 0 && i + 1 < argc) {
      char pid[32];
      snprintf(pid, sizeof pid, "%d\n", getpid());
      write_file(argv[++i], pid);
    } else if (strcmp(argv[i], "--landlock") == 0) {
      landlock = 1;
    } else if (strcmp(argv[i], "--subreaper") == 0) {
      subreaper = 1;
    } else if (strcmp(argv[i], "--pipe-output") == 0) {
      pipe_output = 1;
    } else if (strcmp(argv[i], "--pdeathsig") == 0) {
      if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) die("PR_SET_PDEATHSIG");
      /* The parent may have died before the signal was armed. */
      if (getppid() != parent) return 125;
    } else if (strcmp(argv[i], "--pin-fds") == 0) {
      pin = 1;
    } else if (strcmp(argv[i], "--keep-fd") == 0 && i + 1 < argc) {
      keep_fd(argv[++i]);
    } else if (strcmp(argv[i], "--oom-score-adj") == 0 && i + 1 < argc) {
      oom = argv[++i];
    } else if (guard_option(argc, argv, &i)) {
    } else {
      fprintf(stderr, "skate-confine: unknown option %s\n", argv[i]);
      return 125;
    }
  }
  if (i >= argc) {
    fprintf(stderr, "usage: skate-confine [--cgroup FILE]... [--landlock] [--subreaper] [--oom-score-adj N] [--pipe-output] [--pdeathsig] [--pin-fds] [--keep-fd N]... [--guard...] -- COMMAND...\n");
    return 125;
  }
  char **command = argv + i;
  if (pin) pin_paths(command);
  if (oom) write_file("/proc/self/oom_score_adj", oom);
  if (landlock && enter_landlock() == 1) {
    fprintf(stderr, "skate-confine: this kernel has no Landlock; commands are not isolated from their executor\n");
  }
  guard_enter();
  if (!subreaper) {
    if (guard_supervising()) return guard_supervise(command);
    execvp(command[0], command);
    die(command[0]);
  }

  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0) die("PR_SET_CHILD_SUBREAPER");
  struct sigaction stop = {0};
  stop.sa_handler = on_stop;
  sigaction(SIGTERM, &stop, NULL);
  sigaction(SIGINT, &stop, NULL);
  sigaction(SIGHUP, &stop, NULL);

  struct output_relay relay = {0};
  if (pipe_output && relay_prepare(&relay) != 0) die("pipe2");
  pid_t child = fork();
  if (child < 0) die("fork");
  if (child == 0) {
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    relay_in_child(&relay);
    execvp(command[0], command);
    fprintf(stderr, "skate-confine: %s: %s\n", command[0], strerror(errno));
    _exit(127);
  }
  /*
   * The command has what it was given; we keep only stdio. Staying alive in the command's Landlock
   * domain, we could otherwise lend it what exec closed for it, through /proc/<our pid>/fd.
   */
  int kept[2];
  shut_above_stdio_except(0, kept, relay_kept(&relay, kept, 2));
  if (relay_start(&relay) != 0) {
    kill_descendants();
    die("pthread_create");
  }

  int status = 0;
  for (;;) {
    pid_t done = waitpid(-1, &status, 0);
    if (done == child) break;
    if (done < 0 && errno == EINTR && stop_requested) {
      kill_descendants();
      relay_finish(&relay);
      return 128 + stop_requested;
    }
    if (done < 0 && errno == ECHILD) break;
  }
  /* The command is done: whatever it left running in the background goes with it. */
  kill_descendants();
  /* Every writer is gone: what they wrote is copied out before we exit. */
  relay_finish(&relay);
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}
