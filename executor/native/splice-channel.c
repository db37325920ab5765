/* See splice-channel.h. */
#define _GNU_SOURCE
#include "splice-channel.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "splice-joint.h"

/* Tunnels whose first socket arrived and whose second has not yet. */
#define MAX_HALVES 1024
/* Longest line read from the channel: a message carries at most a ClientHello (16 KiB) in base64. */
#define MAX_LINE (64 * 1024)
#define MAX_FDS 64

static int channel = -1;
static pthread_mutex_t channel_lock = PTHREAD_MUTEX_INITIALIZER;
static long idle_ms = 0;

struct half {
  long id;
  int fd;
};
static struct half halves[MAX_HALVES];
static int half_count = 0;

static int fds[MAX_FDS];
static int fd_count = 0;

static void send_line(const char *line) {
  pthread_mutex_lock(&channel_lock);
  write_all(channel, line, strlen(line));
  pthread_mutex_unlock(&channel_lock);
}

static void tunnel_closed(long id) {
  char line[64];
  snprintf(line, sizeof line, "{\"skate\":\"closed\",\"id\":%ld}\n", id);
  send_line(line);
}

/* A number after `"key":` in `line`, or -1. */
static long number_of(const char *line, const char *key) {
  const char *at = strstr(line, key);
  if (!at) return -1;
  char *end;
  long value = strtol(at + strlen(key), &end, 10);
  return end == at + strlen(key) ? -1 : value;
}

static int b64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

/* Decodes the base64 string after `"key":"` in `line` into `out` (sized for it); its length. */
static size_t bytes_of(const char *line, const char *key, unsigned char *out) {
  const char *at = strstr(line, key);
  if (!at) return 0;
  at += strlen(key);
  size_t n = 0;
  uint32_t acc = 0;
  int bits = 0;
  for (; *at && *at != '"'; at++) {
    int v = b64_value(*at);
    if (v < 0) continue; /* padding */
    acc = (acc << 6) | (uint32_t)v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (unsigned char)(acc >> bits);
    }
  }
  return n;
}

/* One line of the channel, with the descriptor that came with it when it is a handle. */
static void on_line(const char *line) {
  if (!strstr(line, "\"cmd\":\"NODE_HANDLE\"")) return; /* nothing else is ours to answer */
  int fd = -1;
  if (fd_count > 0) {
    fd = fds[0];
    memmove(fds, fds + 1, (size_t)(--fd_count) * sizeof fds[0]);
  }
  send_line("{\"cmd\":\"NODE_HANDLE_ACK\"}\n");
  long id = number_of(line, "\"id\":");
  if (fd < 0) return;
  if (id < 0 || !strstr(line, "\"skate\":\"splice\"")) {
    close(fd);
    return;
  }
  static unsigned char pending[MAX_LINE];
  size_t len = bytes_of(line, "\"first\":\"", pending);
  /* Blocking, for the write of what Node had already read on the other side. */
  int flags = fcntl(fd, F_GETFL);
  if (flags >= 0) fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  if (len > 0 && write_all(fd, pending, len) != 0) {
    shutdown(fd, SHUT_RDWR);
  }
  for (int i = 0; i < half_count; i++) {
    if (halves[i].id != id) continue;
    int other = halves[i].fd;
    halves[i] = halves[--half_count];
    if (joint_start(other, fd, idle_ms, tunnel_closed, id) != 0) tunnel_closed(id);
    return;
  }
  if (half_count >= MAX_HALVES) {
    close(fd);
    tunnel_closed(id);
    return;
  }
  halves[half_count].id = id;
  halves[half_count].fd = fd;
  half_count++;
}

int splice_channel_main(int argc, char **argv) {
  const char *text = getenv("NODE_CHANNEL_FD");
  if (!text) {
    fprintf(stderr, "skate-confine: --splice-channel runs under Node with an ipc channel\n");
    return 125;
  }
  channel = atoi(text);
  if (argc >= 3) idle_ms = atol(argv[2]);
  pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (getppid() != parent) return 125;
  signal(SIGPIPE, SIG_IGN);
  int flags = fcntl(channel, F_GETFL);
  if (flags >= 0) fcntl(channel, F_SETFL, flags & ~O_NONBLOCK);
  static char line[MAX_LINE + 1];
  size_t have = 0;
  char buf[8192];
  char control[CMSG_SPACE(sizeof(int) * MAX_FDS)];
  for (;;) {
    struct iovec iov = {buf, sizeof buf};
    struct msghdr msg = {0};
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    ssize_t n = recvmsg(channel, &msg, MSG_CMSG_CLOEXEC);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 0; /* the harness went away: every tunnel goes with this process */
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
      if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
      int count = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
      int *received = (int *)CMSG_DATA(c);
      for (int i = 0; i < count; i++) {
        if (fd_count < MAX_FDS) fds[fd_count++] = received[i];
        else close(received[i]);
      }
    }
    for (ssize_t i = 0; i < n; i++) {
      if (buf[i] != '\n') {
        if (have < MAX_LINE) line[have++] = buf[i];
        continue;
      }
      line[have] = 0;
      on_line(line);
      have = 0;
    }
  }
}
