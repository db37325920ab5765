/*
 * The create guard's options, and its inside half: the seccomp filter that sends every
 * name-creating call to the supervisor (see create-guard.h).
 */
#include "create-guard.h"
#include "guard-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define GUARD_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define GUARD_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

static int supervising = 0;
static const char *inner_fd = NULL;
static struct guard_rules rules;
static const char **deny_dirs; /* the path of each rules.deny entry, until it is resolved */

struct pin {
  const char *path;
  int fd;
};
static struct pin *pins;
static int pin_count;

static void *grow(void *array, int count, size_t size) {
  void *more = realloc(array, (size_t)(count + 1) * size);
  if (!more) {
    fprintf(stderr, "skate-confine: out of memory\n");
    exit(126);
  }
  return more;
}

int guard_option(int argc, char **argv, int *i) {
  const char *option = argv[*i];
  if (strcmp(option, "--guard") == 0) {
    supervising = 1;
  } else if (strcmp(option, "--guard-fd") == 0 && *i + 1 < argc) {
    inner_fd = argv[++*i];
  } else if (strcmp(option, "--guard-deny") == 0 && *i + 2 < argc) {
    rules.deny = grow(rules.deny, rules.deny_count, sizeof *rules.deny);
    deny_dirs = grow(deny_dirs, rules.deny_count, sizeof *deny_dirs);
    deny_dirs[rules.deny_count] = argv[*i + 1];
    rules.deny[rules.deny_count].name = argv[*i + 2];
    rules.deny_count++;
    *i += 2;
  } else if (strcmp(option, "--guard-name") == 0 && *i + 1 < argc) {
    rules.names = grow(rules.names, rules.name_count, sizeof *rules.names);
    rules.names[rules.name_count++] = argv[++*i];
  } else if (strcmp(option, "--guard-tree") == 0 && *i + 1 < argc) {
    rules.trees = grow(rules.trees, rules.tree_count, sizeof *rules.trees);
    rules.trees[rules.tree_count++] = argv[++*i];
  } else {
    return 0;
  }
  return 1;
}

void guard_note_pin(const char *path, int fd) {
  pins = grow(pins, pin_count, sizeof *pins);
  pins[pin_count].path = path;
  pins[pin_count].fd = fd;
  pin_count++;
}

int guard_supervising(void) { return supervising; }

/*
 * The rules with every directory identified: by the descriptor --pin-fds opened for it (the very
 * directory bwrap mounts), so nothing can swap it between the check and the mount.
 */
const struct guard_rules *guard_rules_resolve(void) {
  for (int i = 0; i < pin_count; i++) {
    struct stat st;
    if (fstat(pins[i].fd, &st) != 0) continue;
    int known = 0;
    for (int j = 0; j < rules.dev_count; j++) known |= rules.devs[j] == st.st_dev;
    if (known) continue;
    rules.devs = grow(rules.devs, rules.dev_count, sizeof *rules.devs);
    rules.devs[rules.dev_count++] = st.st_dev;
  }
  for (int i = 0; i < rules.deny_count; i++) {
    int j;
    for (j = 0; j < pin_count && strcmp(pins[j].path, deny_dirs[i]) != 0; j++) {
    }
    struct stat st;
    if (j == pin_count || fstat(pins[j].fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
      fprintf(stderr, "skate-confine: --guard-deny %s: not a directory pinned by --pin-fds\n", deny_dirs[i]);
      exit(126);
    }
    rules.deny[i].dev = st.st_dev;
    rules.deny[i].ino = st.st_ino;
  }
  return &rules;
}

/* Replaces the argument @guard-fd of the command with the descriptor's number. */
void guard_name_fd(char **command, int fd) {
  for (; *command; command++) {
    if (strcmp(*command, "@guard-fd") != 0) continue;
    char *number = malloc(16);
    if (!number) exit(126);
    snprintf(number, 16, "%d", fd);
    *command = number;
  }
}

#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
/* The low 32 bits of an argument (flags are an int; both supported architectures are little-endian). */
#define LOAD_ARG(n) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[n]))
#define RET(action) BPF_STMT(BPF_RET | BPF_K, (action))
#define IF_NR(nr, action) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), RET(action)
/*
 * Notify when the flags in argument n contain O_CREAT or ask to write (O_WRONLY, O_RDWR,
 * O_TRUNC: an existing file under a protected tree must not be changed), allow otherwise. O_PATH
 * makes the kernel drop O_CREAT (and a descriptor of one cannot be sent back with SECCOMP_ADDFD):
 * allowed. The flags are a register, not memory: no other thread can change them after this check.
 */
#define GUARDED_OPEN (O_CREAT | O_WRONLY | O_RDWR | O_TRUNC)
#define IF_CREAT(nr, n)                                                                          \
  BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 5), LOAD_ARG(n),                                \
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, O_PATH, 2, 0),                                       \
      BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, GUARDED_OPEN, 0, 1), RET(SECCOMP_RET_USER_NOTIF), \
      RET(SECCOMP_RET_ALLOW)

#define NOTIFY SECCOMP_RET_USER_NOTIF
#define NOSYS (SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA))

#ifndef __NR_openat2
#define __NR_openat2 437
#endif
#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif

static struct sock_filter filter[] = {
    LOAD(arch),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, GUARD_AUDIT_ARCH, 1, 0),
    RET(NOSYS),
    LOAD(nr),
#ifdef __x86_64__
    /* x32 calls carry this bit and reach the same kernel code through other numbers. */
    BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),
    RET(NOSYS),
    IF_NR(__NR_mkdir, NOTIFY),
    IF_NR(__NR_mknod, NOTIFY),
    IF_NR(__NR_symlink, NOTIFY),
    IF_NR(__NR_link, NOTIFY),
    IF_NR(__NR_rename, NOTIFY),
    IF_NR(__NR_creat, NOTIFY),
    IF_CREAT(__NR_open, 1),
#endif
    IF_NR(__NR_mkdirat, NOTIFY),
    IF_NR(__NR_mknodat, NOTIFY),
    IF_NR(__NR_symlinkat, NOTIFY),
    IF_NR(__NR_linkat, NOTIFY),
#ifdef __NR_renameat
    IF_NR(__NR_renameat, NOTIFY),
#endif
    IF_NR(__NR_renameat2, NOTIFY),
    IF_NR(__NR_bind, NOTIFY),
    IF_NR(__NR_openat2, NOSYS),
    IF_NR(__NR_io_uring_setup, NOSYS),
    IF_CREAT(__NR_openat, 2),
    RET(SECCOMP_RET_ALLOW),
};

static void fail(const char *what) {
  fprintf(stderr, "skate-confine: create guard: %s: %s\n", what, strerror(errno));
  exit(126);
}

void guard_enter(void) {
  if (!inner_fd) return;
  char *end;
  long sock = strtol(inner_fd, &end, 10);
  if (*end || sock < 0) {
    fprintf(stderr, "skate-confine: --guard-fd %s: not a descriptor (is the outer skate-confine run with --guard?)\n", inner_fd);
    exit(126);
  }
  struct sock_fprog prog = {.len = sizeof filter / sizeof filter[0], .filter = filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("PR_SET_NO_NEW_PRIVS");
  /* A core file is made by the kernel, past the filter, named by the host's core_pattern (which
     may hold the program's name): none, hard limit included. */
  struct rlimit none = {0, 0};
  if (setrlimit(RLIMIT_CORE, &none) != 0) fail("RLIMIT_CORE");
  /* Killable only, once the supervisor has the call: a signal must not abandon a call it performs. */
  long listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                          SECCOMP_FILTER_FLAG_NEW_LISTENER | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, &prog);
  if (listener < 0 && errno == EINVAL)
    listener = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
  if (listener < 0) fail("seccomp user notification");
  /* With it, a pidfd of ours: the supervisor joins our user and mount namespaces through it. */
  long self = syscall(SYS_pidfd_open, getpid(), 0);
  if (self < 0) fail("pidfd_open");
  int fds[2] = {(int)listener, (int)self};
  char byte = 'g';
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  union {
    char buf[CMSG_SPACE(sizeof fds)];
    struct cmsghdr align;
  } control;
  memset(&control, 0, sizeof control);
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN(sizeof fds);
  memcpy(CMSG_DATA(cmsg), fds, sizeof fds);
  if (sendmsg((int)sock, &msg, MSG_NOSIGNAL) != 1) fail("sending the listener");
  /* Answered once the supervisor is ready: until then a call would find nobody in its namespaces. */
  if (recv((int)sock, &byte, 1, 0) != 1) {
    errno = EPIPE;
    fail("the supervisor did not start");
  }
  close((int)self);
  int fd = (int)listener;
  /* Nothing inside may keep a way to answer its own calls. */
  close(fd);
  close((int)sock);
}
