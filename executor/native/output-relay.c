#define _GNU_SOURCE
#include "output-relay.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int is_socket(int fd, struct stat *info) {
  return fstat(fd, info) == 0 && S_ISSOCK(info->st_mode);
}

int relay_prepare(struct output_relay *relay) {
  memset(relay, 0, sizeof *relay);
  struct stat out, err;
  int out_sock = is_socket(1, &out), err_sock = is_socket(2, &err);
  int same = out_sock && err_sock && out.st_dev == err.st_dev && out.st_ino == err.st_ino;
  for (int fd = 1; fd <= 2; fd++) {
    if (!(fd == 1 ? out_sock : err_sock)) continue;
    if (fd == 2 && same) {
      relay->pipes[0].targets[relay->pipes[0].ntargets++] = 2;
      continue;
    }
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) return -1;
    int i = relay->count++;
    relay->pipes[i].targets[0] = fd;
    relay->pipes[i].ntargets = 1;
    relay->pipes[i].read_end = ends[0];
    relay->pipes[i].write_end = ends[1];
  }
  return 0;
}

void relay_in_child(const struct output_relay *relay) {
  for (int i = 0; i < relay->count; i++) {
    for (int t = 0; t < relay->pipes[i].ntargets; t++) {
      /* dup2 leaves the new descriptor without close-on-exec; the pipe's own ends have it. */
      dup2(relay->pipes[i].write_end, relay->pipes[i].targets[t]);
    }
  }
}

int relay_kept(const struct output_relay *relay, int *fds, int max) {
  int n = 0;
  for (int i = 0; i < relay->count && n < max; i++) fds[n++] = relay->pipes[i].read_end;
  return n;
}

/* Copies one pipe to the descriptor it stands in for until every writer has closed it. */
static void *copy_pipe(void *arg) {
  int *fds = arg; /* read end, target */
  char buf[65536];
  int target_gone = 0;
  for (;;) {
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    /* Once the reader is gone, keep draining so the command never blocks on a full pipe. */
    for (ssize_t done = 0; !target_gone && done < n;) {
      ssize_t w = write(fds[1], buf + done, (size_t)(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) target_gone = 1;
      else done += w;
    }
  }
  close(fds[0]);
  return NULL;
}

int relay_start(struct output_relay *relay) {
  /* Signals are the main thread's (its wait loop); writes to a closed socket fail, not kill. */
  sigset_t all, saved;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &saved);
  signal(SIGPIPE, SIG_IGN);
  static int args[2][2];
  int result = 0;
  for (int i = 0; i < relay->count; i++) {
    close(relay->pipes[i].write_end);
    args[i][0] = relay->pipes[i].read_end;
    args[i][1] = relay->pipes[i].targets[0];
    if ((errno = pthread_create(&relay->pipes[i].thread, NULL, copy_pipe, args[i])) != 0) {
      result = -1;
      break;
    }
  }
  pthread_sigmask(SIG_SETMASK, &saved, NULL);
  return result;
}

void relay_finish(struct output_relay *relay) {
  for (int i = 0; i < relay->count; i++) pthread_join(relay->pipes[i].thread, NULL);
  relay->count = 0;
}
