/* See net-forward.h. */
#define _GNU_SOURCE
#include "net-forward.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "socket-handoff.h"
#include "splice-joint.h"

#define MAX_LISTENERS 64
/* Connections joined at once, at most; the proxy caps its own side too. */
#define MAX_OPEN 1024
/* Largest CONNECT answer head read before giving up on a local forward. */
#define MAX_ANSWER 4096

static struct sockaddr_un proxy_addr;
static atomic_int open_count;
/* The relay's hand-off socket: its path, and the connection to it (-1 until made, or after it broke). */
static const char *handoff_path;
static int handoff = -1;

struct client {
  int fd;
  const char *target; /* NULL: pass through as it is */
};

static void joint_done(long id) {
  (void)id;
  atomic_fetch_sub(&open_count, 1);
}

/* CONNECT to `target` over `proxy`, checks the answer, hands its leftover to `client`. 0 or -1. */
static int connect_through(int proxy, int client, const char *target) {
  char request[600];
  int len = snprintf(request, sizeof request, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target);
  if (len <= 0 || (size_t)len >= sizeof request || write_all(proxy, request, (size_t)len) != 0) return -1;
  /* The proxy answers within its own connect timeout; a stalled one is not waited for forever. */
  struct timeval tv = {15, 0};
  setsockopt(proxy, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  char answer[MAX_ANSWER + 1];
  size_t have = 0;
  char *head_end = NULL;
  while (!head_end) {
    if (have >= MAX_ANSWER) return -1;
    ssize_t n = read(proxy, answer + have, MAX_ANSWER - have);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    have += (size_t)n;
    answer[have] = 0;
    head_end = memmem(answer, have, "\r\n\r\n", 4);
  }
  if (strncmp(answer, "HTTP/1.1 200 ", 13) != 0 && strncmp(answer, "HTTP/1.0 200 ", 13) != 0) return -1;
  size_t rest = have - (size_t)(head_end + 4 - answer);
  if (rest > 0 && write_all(client, head_end + 4, rest) != 0) return -1;
  struct timeval none = {0, 0};
  setsockopt(proxy, SOL_SOCKET, SO_RCVTIMEO, &none, sizeof none);
  return 0;
}

static void *serve_client(void *arg) {
  struct client *client = arg;
  int proxy = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (proxy < 0 || connect(proxy, (struct sockaddr *)&proxy_addr, sizeof proxy_addr) != 0 ||
      (client->target && connect_through(proxy, client->fd, client->target) != 0)) {
    if (proxy >= 0) close(proxy);
    close(client->fd);
    atomic_fetch_sub(&open_count, 1);
    free(client);
    return NULL;
  }
  int one = 1;
  int fd = client->fd;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  free(client);
  /* On this thread: a connection's first bytes wait for no further thread to start. */
  if (joint_run(fd, proxy, 0, joint_done, 0) != 0) atomic_fetch_sub(&open_count, 1);
  return NULL;
}

/*
 * Passes a connection on the proxy port to the relay outside the sandbox, which from then on
 * holds the only copy: the proxy reads it, and the relay joins it to the upstream. 0 when passed;
 * -1 when the relay cannot take it now (no hand-off socket, or a full one), and the caller joins
 * it to the proxy's socket itself, as before.
 */
static int hand_off(int fd) {
  if (handoff < 0) handoff = handoff_connect(handoff_path);
  if (handoff < 0) return -1;
  if (handoff_send(handoff, fd) == 0) return 0;
  if (errno != EAGAIN && errno != EWOULDBLOCK) {
    close(handoff);
    handoff = -1;
  }
  return -1;
}

static int listen_on(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  struct sockaddr_in addr = {0};
  addr.sin_family = AF_INET;
  addr.sin_port = htons((uint16_t)port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 128) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int net_forward_main(int argc, char **argv) {
  /* argv: skate-confine --net-forward SOCKET HANDOFF PORT[=HOST:PORT]... */
  if (argc < 5 || strlen(argv[2]) >= sizeof proxy_addr.sun_path) {
    fprintf(stderr, "usage: skate-confine --net-forward SOCKET HANDOFF PORT[=HOST:PORT]...\n");
    return 125;
  }
  handoff_path = argv[3];
  pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (getppid() != parent) return 125;
  signal(SIGPIPE, SIG_IGN);
  proxy_addr.sun_family = AF_UNIX;
  strcpy(proxy_addr.sun_path, argv[2]);
  struct pollfd polls[MAX_LISTENERS];
  const char *targets[MAX_LISTENERS];
  int count = 0;
  for (int i = 4; i < argc && count < MAX_LISTENERS; i++) {
    char *end;
    long port = strtol(argv[i], &end, 10);
    if (port < 1 || port > 65535 || (*end && *end != '=')) {
      fprintf(stderr, "skate-confine: --net-forward: not PORT[=HOST:PORT]: %s\n", argv[i]);
      return 125;
    }
    int fd = listen_on((int)port);
    if (fd < 0) {
      /* Logged, never fatal: a missing way out fails closed. */
      fprintf(stderr, "skate-confine: network forwarder on 127.0.0.1:%ld: %s\n", port, strerror(errno));
      continue;
    }
    polls[count].fd = fd;
    polls[count].events = POLLIN;
    targets[count] = *end == '=' ? end + 1 : NULL;
    count++;
  }
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  for (;;) {
    if (poll(polls, (nfds_t)count, -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    for (int i = 0; i < count; i++) {
      if (!(polls[i].revents & POLLIN)) continue;
      int fd = accept4(polls[i].fd, NULL, NULL, SOCK_CLOEXEC);
      if (fd < 0) continue;
      if (!targets[i]) {
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (hand_off(fd) == 0) {
          close(fd); /* the relay has it now */
          continue;
        }
      }
      if (atomic_fetch_add(&open_count, 1) >= MAX_OPEN) {
        atomic_fetch_sub(&open_count, 1);
        close(fd);
        continue;
      }
      struct client *client = malloc(sizeof *client);
      pthread_t thread;
      if (!client) {
        close(fd);
        atomic_fetch_sub(&open_count, 1);
        continue;
      }
      client->fd = fd;
      client->target = targets[i];
      if (pthread_create(&thread, &attr, serve_client, client) != 0) {
        close(fd);
        free(client);
        atomic_fetch_sub(&open_count, 1);
      }
    }
  }
}
