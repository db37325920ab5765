/*
 * The create guard's host half: runs bwrap as a child, receives the filter's listener from the
 * first process inside, and answers each notified call until bwrap exits (see create-guard.h).
 *
 * The supervisor is bwrap's parent, so every process of the sandbox descends from it (what
 * Yama's ptrace_scope=1 asks before its memory can be read). It keeps no terminal (a caller's
 * /dev/tty must not become ours) and no descriptor but its own; it joins the sandbox's user and
 * mount namespaces and keeps only CAP_SYS_PTRACE there (to reach a caller's memory, root, cwd
 * and descriptors), so a call it performs meets the same checks as the caller's would.
 */
#include "create-guard.h"
#include "guard-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

int guard_proc = -1;

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif

static void fail(const char *what) {
  fprintf(stderr, "skate-confine: create guard: %s: %s\n", what, strerror(errno));
  exit(126);
}

/* Keeps CAP_SYS_PTRACE alone, effective and permitted; a supervisor run by a user has none to drop. */
static void drop_capabilities(void) {
  struct __user_cap_header_struct header = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
  struct __user_cap_data_struct data[2];
  memset(data, 0, sizeof data);
  if (syscall(SYS_capget, &header, data) != 0) fail("capget");
  int traced = (data[0].permitted >> CAP_SYS_PTRACE) & 1;
  memset(data, 0, sizeof data);
  if (traced) data[0].effective = data[0].permitted = 1u << CAP_SYS_PTRACE;
  if (syscall(SYS_capset, &header, data) != 0) fail("capset");
}

/* No controlling terminal: opening /dev/tty for a caller must find none, as the caller would. */
static void leave_terminal(void) {
  if (setsid() >= 0) return;
  int tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (tty >= 0) {
    ioctl(tty, TIOCNOTTY);
    close(tty);
  }
}

/* Receives the listener and the pidfd of the process that installed the filter. */
static int receive_fds(int sock, int *listener, int *pidfd) {
  char byte;
  struct iovec iov = {.iov_base = &byte, .iov_len = 1};
  union {
    char buf[CMSG_SPACE(2 * sizeof(int))];
    struct cmsghdr align;
  } control;
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf};
  ssize_t n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
  if (n <= 0) return -1;
  struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
  if (!cmsg || cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_RIGHTS ||
      cmsg->cmsg_len != CMSG_LEN(2 * sizeof(int)))
    return -1;
  int fds[2];
  memcpy(fds, CMSG_DATA(cmsg), sizeof fds);
  *listener = fds[0];
  *pidfd = fds[1];
  return 0;
}

/*
 * Joins the sandbox's user and mount namespaces: the kernel decides "is this a mount point"
 * (rename answers EBUSY) in the caller's mount namespace, and the sandbox's own capabilities
 * (binding a low port in its network namespace) are then checked against a process inside it,
 * not against the owner of the namespace. Joining gives every capability in the sandbox's user
 * namespace; all but CAP_SYS_PTRACE go again at once.
 */
static void join_sandbox(int pidfd) {
  if (setns(pidfd, CLONE_NEWUSER | CLONE_NEWNS) != 0) fail("setns");
  close(pidfd);
  drop_capabilities();
}

/* Ends as bwrap ended: its exit code, or killed by the same signal. */
static int finish(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    return 128 + sig;
  }
  return 1;
}

int guard_supervise(char **command) {
  const struct guard_rules *rules = guard_rules_resolve();
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) fail("socketpair");
  /* The inner end crosses bwrap into the sandbox, to the inner skate-confine alone, which closes it. */
  if (fcntl(sv[1], F_SETFD, 0) != 0) fail("fcntl");
  guard_name_fd(command, sv[1]);

  sigset_t handled, old;
  sigemptyset(&handled);
  sigaddset(&handled, SIGCHLD);
  sigaddset(&handled, SIGTERM);
  sigaddset(&handled, SIGINT);
  sigaddset(&handled, SIGHUP);
  sigaddset(&handled, SIGQUIT);
  if (sigprocmask(SIG_BLOCK, &handled, &old) != 0) fail("sigprocmask");
  pid_t self = getpid();
  pid_t child = fork();
  if (child < 0) fail("fork");
  if (child == 0) {
    /* bwrap must not outlive its supervisor: its calls would then all fail. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != self) _exit(125);
    sigprocmask(SIG_SETMASK, &old, NULL);
    execvp(command[0], command);
    fprintf(stderr, "skate-confine: %s: %s\n", command[0], strerror(errno));
    _exit(127);
  }

  int sock = sv[0];
  close(sv[1]);
  /* The pinned directories are bwrap's now. (The standard descriptors are kept: they end with us.) */
  if (sock > 3) syscall(SYS_close_range, 3, sock - 1, 0);
  syscall(SYS_close_range, sock + 1, ~0U, 0);
  leave_terminal();
  guard_proc = open("/proc", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (guard_proc < 0) fail("/proc");
  int signals = signalfd(-1, &handled, SFD_CLOEXEC);
  if (signals < 0) fail("signalfd");
  signal(SIGPIPE, SIG_IGN);
  drop_capabilities();

  struct pollfd fds[3] = {{.fd = signals, .events = POLLIN}, {.fd = sock, .events = POLLIN}, {.fd = -1, .events = POLLIN}};
  for (;;) {
    if (poll(fds, 3, -1) < 0) {
      if (errno == EINTR) continue;
      fail("poll");
    }
    if (fds[0].revents & POLLIN) {
      struct signalfd_siginfo info;
      if (read(signals, &info, sizeof info) == sizeof info) {
        if (info.ssi_signo == SIGCHLD) {
          int status;
          pid_t done;
          while ((done = waitpid(-1, &status, WNOHANG)) > 0) {
            if (done == child) return finish(status);
          }
        } else {
          kill(child, (int)info.ssi_signo);
        }
      }
    }
    if (fds[1].revents) {
      int listener, pidfd;
      if (receive_fds(sock, &listener, &pidfd) == 0) {
        join_sandbox(pidfd);
        /* The caller waits for us and we for the next call: the kernel hands the CPU across
           directly (Linux 6.6), instead of two wake-ups through the scheduler. Older: ignored. */
        ioctl(listener, SECCOMP_IOCTL_NOTIF_SET_FLAGS, SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP);
        fds[2].fd = listener;
        char ready = 'r';
        if (send(sock, &ready, 1, MSG_NOSIGNAL) != 1) fail("answering the filter");
      }
      /* One listener per sandbox: the socket has served its purpose either way. */
      close(sock);
      fds[1].fd = -1;
    }
    if (fds[2].revents & POLLIN) {
      struct seccomp_notif req;
      memset(&req, 0, sizeof req);
      if (ioctl(fds[2].fd, SECCOMP_IOCTL_NOTIF_RECV, &req) == 0) guard_answer(rules, fds[2].fd, &req);
    } else if (fds[2].revents & (POLLHUP | POLLERR)) {
      /* Every process under the filter has exited; bwrap's own exit follows. (Left open: a
         thread still opening a FIFO for a caller may hold its number.) */
      fds[2].fd = -1;
    }
  }
}
