/* See splice-joint.h. */
#define _GNU_SOURCE
#include "splice-joint.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* Bytes asked of one splice: a pipe grown to 1 MiB holds them, so a bulk transfer moves in few calls. */
#define CHUNK (1 << 20)
/* How often a blocked read wakes to check the joint's idle clock. */
#define IDLE_CHECK_S 30

struct joint {
  int a, b;
  long idle_ms;
  atomic_long last_ms;
  joint_done_fn done;
  long id;
};

struct half {
  struct joint *joint;
  int from, to;
};

static long now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int write_all(int fd, const void *data, size_t len) {
  const char *p = data;
  while (len > 0) {
    ssize_t n = write(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    p += n;
    len -= (size_t)n;
  }
  return 0;
}

int write_within(int fd, const void *data, size_t len, int timeout_ms) {
  const char *p = data;
  while (len > 0) {
    ssize_t n = send(fd, p, len, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) {
      p += n;
      len -= (size_t)n;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      struct pollfd ready = {fd, POLLOUT, 0};
      if (poll(&ready, 1, timeout_ms) > 0) continue;
    }
    return -1;
  }
  return 0;
}

/* Ends both directions at once: a blocked splice on either socket returns. */
static void break_joint(struct joint *joint) {
  shutdown(joint->a, SHUT_RDWR);
  shutdown(joint->b, SHUT_RDWR);
}

/*
 * Waits for `fd` to be ready for `events` after an EAGAIN: a socket is made blocking here, but a
 * client's may come from the sandbox, where another copy of it can make it non-blocking again, so
 * an EAGAIN must never turn into a busy loop. 0 to try again; -1 once the joint has idled.
 */
static int wait_ready(struct joint *joint, int fd, short events) {
  long check_ms = IDLE_CHECK_S * 1000L;
  if (joint->idle_ms > 0) {
    if (now_ms() - atomic_load(&joint->last_ms) >= joint->idle_ms) return -1;
    if (joint->idle_ms < check_ms) check_ms = joint->idle_ms;
  }
  struct pollfd p = {fd, events, 0};
  poll(&p, 1, (int)check_ms);
  return 0;
}

/* One direction: `from` to `to` through a pipe, until end of stream, an error, or idleness. */
static void pump(struct half *half) {
  struct joint *joint = half->joint;
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    break_joint(joint);
    return;
  }
  fcntl(pipe_fds[1], F_SETPIPE_SZ, CHUNK); /* best effort: the default 64 KiB works too */
  for (;;) {
    ssize_t n = splice(half->from, NULL, pipe_fds[1], NULL, CHUNK, SPLICE_F_MOVE);
    if (n == 0) {
      /* End of stream: the other side learns it as a half close, and may still answer. */
      shutdown(half->to, SHUT_WR);
      break;
    }
    if (n < 0) {
      if (errno == EINTR) continue;
      /* EAGAIN: a read timeout (the idle clock is looked at) or a socket made non-blocking. */
      if ((errno == EAGAIN || errno == EWOULDBLOCK) && wait_ready(joint, half->from, POLLIN) == 0) continue;
      break_joint(joint);
      break;
    }
    atomic_store(&joint->last_ms, now_ms());
    while (n > 0) {
      ssize_t w = splice(pipe_fds[0], NULL, half->to, NULL, (size_t)n, SPLICE_F_MOVE);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && wait_ready(joint, half->to, POLLOUT) == 0)
        continue;
      if (w <= 0) {
        break_joint(joint);
        goto out;
      }
      n -= w;
    }
  }
out:
  close(pipe_fds[0]);
  close(pipe_fds[1]);
}

static void *pump_thread(void *arg) {
  pump(arg);
  return NULL;
}

/* One direction on a second thread, the other on this one, then the end. */
static void run_joint(struct joint *joint) {
  struct half back = {joint, joint->b, joint->a};
  struct half forth = {joint, joint->a, joint->b};
  pthread_t other;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  int started = pthread_create(&other, &attr, pump_thread, &back) == 0;
  pthread_attr_destroy(&attr);
  if (!started) break_joint(joint);
  pump(&forth);
  if (started) pthread_join(other, NULL);
  close(joint->a);
  close(joint->b);
  if (joint->done) joint->done(joint->id);
  free(joint);
}

static void *joint_thread(void *arg) {
  run_joint(arg);
  return NULL;
}

static void make_blocking(int fd, long idle_ms) {
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  if (idle_ms > 0) {
    /* A blocked read returns EAGAIN now and then, so the idle clock is looked at. */
    struct timeval tv = {IDLE_CHECK_S, 0};
    if (idle_ms < IDLE_CHECK_S * 1000L) {
      tv.tv_sec = idle_ms / 1000;
      tv.tv_usec = (idle_ms % 1000) * 1000;
    }
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  }
}

static struct joint *new_joint(int a, int b, long idle_ms, joint_done_fn done, long id) {
  struct joint *joint = calloc(1, sizeof *joint);
  if (!joint) {
    close(a);
    close(b);
    return NULL;
  }
  joint->a = a;
  joint->b = b;
  joint->idle_ms = idle_ms;
  joint->done = done;
  joint->id = id;
  atomic_store(&joint->last_ms, now_ms());
  make_blocking(a, idle_ms);
  make_blocking(b, idle_ms);
  return joint;
}

int joint_run(int a, int b, long idle_ms, joint_done_fn done, long id) {
  struct joint *joint = new_joint(a, b, idle_ms, done, id);
  if (!joint) return -1;
  run_joint(joint);
  return 0;
}

int joint_start(int a, int b, long idle_ms, joint_done_fn done, long id) {
  struct joint *joint = new_joint(a, b, idle_ms, done, id);
  if (!joint) return -1;
  pthread_t thread;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int rc = pthread_create(&thread, &attr, joint_thread, joint);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    close(a);
    close(b);
    free(joint);
    errno = rc;
    return -1;
  }
  return 0;
}
