/* See splice-channel.h. */
#define _GNU_SOURCE
#include "splice-channel.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "socket-handoff.h"
#include "splice-joint.h"

/* Longest line read from the channel: a message carries at most a ClientHello (16 KiB) in base64. */
#define MAX_LINE (64 * 1024)
#define MAX_FDS 64
/* Processes in the sandbox connected to the hand-off socket at once (the forwarder needs one). */
#define MAX_SENDERS 16
/* Checked client sockets waiting for the proxy at most; past it the senders wait (the kernel holds theirs). */
#define MAX_WAITING 64
/* How long a write owed to a client (the CONNECT's answer) may wait for room. */
#define OWED_WRITE_MS 10000

static int channel = -1;
static pthread_mutex_t channel_lock = PTHREAD_MUTEX_INITIALIZER;
static long idle_ms = 0;
static long connect_ms = 10000;

static const char ESTABLISHED[] = "HTTP/1.1 200 Connection Established\r\n\r\n";
static const char BAD_GATEWAY[] = "HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n";

/* An admitted tunnel on its way: the client's socket, where to connect, and what to say first. */
struct tunnel {
  long id;
  int client;
  struct sockaddr_storage upstream;
  socklen_t upstream_len;
  int reply;       /* write ESTABLISHED to the client once connected */
  int bad_gateway; /* on a failed connect, answer 502 (else just close) */
  unsigned char *first;
  size_t first_len;
  int upstream_fd;   /* the connection being made, or -1 */
  size_t reply_sent; /* of ESTABLISHED, already written */
  size_t first_sent; /* of `first`, already written */
};

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

/* The string after `"key":"` in `line` into `out` (at most `size` - 1 bytes); 0, or -1 when absent. */
static int string_of(const char *line, const char *key, char *out, size_t size) {
  const char *at = strstr(line, key);
  if (!at) return -1;
  at += strlen(key);
  size_t n = 0;
  for (; *at && *at != '"'; at++) {
    if (n + 1 >= size) return -1;
    out[n++] = *at;
  }
  out[n] = 0;
  return *at == '"' ? 0 : -1;
}

/* Starts a TCP connection to `t->upstream` (non-blocking); the socket, or -1 when it failed at once. */
static int start_connect(const struct tunnel *t) {
  int fd = socket(t->upstream.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (connect(fd, (const struct sockaddr *)&t->upstream, t->upstream_len) != 0 && errno != EINPROGRESS) {
    close(fd);
    return -1;
  }
  return fd;
}

/* Whether a started connection is up within `wait_ms` (0: only looks): 1 connected, 0 not yet, -1 failed. */
static int connected(int fd, long wait_ms) {
  struct pollfd p = {fd, POLLOUT, 0};
  int ready;
  do ready = poll(&p, 1, (int)wait_ms);
  while (ready < 0 && errno == EINTR);
  if (ready == 0) return 0;
  int error = 0;
  socklen_t len = sizeof error;
  if (ready < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0 || error != 0) return -1;
  return 1;
}

/* Writes as much of what is owed as goes without waiting (the CONNECT's answer, then the first bytes); 1 once all of it is written. */
static int say_owed_now(struct tunnel *t) {
  if (t->reply && t->reply_sent < sizeof ESTABLISHED - 1) {
    ssize_t n = send(t->client, ESTABLISHED + t->reply_sent, sizeof ESTABLISHED - 1 - t->reply_sent,
                     MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) t->reply_sent += (size_t)n;
    if (t->reply_sent < sizeof ESTABLISHED - 1) return 0;
  }
  if (t->first_sent < t->first_len) {
    ssize_t n = send(t->upstream_fd, t->first + t->first_sent, t->first_len - t->first_sent,
                     MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n > 0) t->first_sent += (size_t)n;
    if (t->first_sent < t->first_len) return 0;
  }
  return 1;
}

/* A tunnel's own thread, when its upstream was not up at once: waits for it, says the rest of what is owed, then joins the two sockets. */
static void *tunnel_thread(void *arg) {
  struct tunnel *t = arg;
  int upstream = t->upstream_fd;
  if (upstream >= 0 && connected(upstream, connect_ms) != 1) {
    close(upstream);
    upstream = -1;
  }
  if (upstream < 0) {
    if (t->bad_gateway) write_within(t->client, BAD_GATEWAY, sizeof BAD_GATEWAY - 1, OWED_WRITE_MS);
    shutdown(t->client, SHUT_RDWR);
    close(t->client);
    tunnel_closed(t->id);
  } else {
    int flags = fcntl(upstream, F_GETFL);
    if (flags >= 0) fcntl(upstream, F_SETFL, flags & ~O_NONBLOCK);
    if ((t->reply && write_within(t->client, ESTABLISHED + t->reply_sent,
                                  sizeof ESTABLISHED - 1 - t->reply_sent, OWED_WRITE_MS) != 0) ||
        (t->first_len > t->first_sent && write_all(upstream, t->first + t->first_sent, t->first_len - t->first_sent) != 0))
      shutdown(upstream, SHUT_RDWR);
    if (joint_run(t->client, upstream, idle_ms, tunnel_closed, t->id) != 0) tunnel_closed(t->id);
  }
  free(t->first);
  free(t);
  return NULL;
}

/* Reads a tunnel message's target: an IP literal the proxy resolved and checked, and a port. */
static int target_of(const char *line, struct tunnel *t) {
  char address[INET6_ADDRSTRLEN + 1];
  long port = number_of(line, "\"port\":");
  if (string_of(line, "\"address\":\"", address, sizeof address) != 0 || port < 1 || port > 65535) return -1;
  struct sockaddr_in *v4 = (struct sockaddr_in *)&t->upstream;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&t->upstream;
  memset(&t->upstream, 0, sizeof t->upstream);
  if (inet_pton(AF_INET, address, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons((uint16_t)port);
    t->upstream_len = sizeof *v4;
    return 0;
  }
  if (inet_pton(AF_INET6, address, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((uint16_t)port);
    t->upstream_len = sizeof *v6;
    return 0;
  }
  return -1;
}

/* Client sockets from the sandbox, checked, in the order they came, waiting to go to the proxy. */
static int waiting[MAX_WAITING];
static int waiting_count = 0;
/* A client socket has gone to the proxy and Node has not acknowledged it yet. */
static int client_unacknowledged = 0;

/*
 * Sends the next waiting client socket to the proxy, as Node's IPC channel passes a handle (its
 * `message` event gets the socket), once the one before was acknowledged: one in flight keeps
 * each descriptor with its own message. The descriptor is ours no more once sent.
 */
static void offer_next_client(void) {
  if (client_unacknowledged || waiting_count == 0) return;
  int fd = waiting[0];
  memmove(waiting, waiting + 1, (size_t)(--waiting_count) * sizeof waiting[0]);
  static const char line[] = "{\"cmd\":\"NODE_HANDLE\",\"type\":\"net.Socket\",\"msg\":{\"skate\":\"client\"}}\n";
  pthread_mutex_lock(&channel_lock);
  int sent = send_with_fd(channel, line, sizeof line - 1, fd, 0);
  pthread_mutex_unlock(&channel_lock);
  close(fd);
  if (sent == 0) client_unacknowledged = 1;
}

/* One line of the channel, with the descriptor that came with it when it is a handle. */
static void on_line(const char *line) {
  if (strstr(line, "\"cmd\":\"NODE_HANDLE_ACK\"") || strstr(line, "\"cmd\":\"NODE_HANDLE_NACK\"")) {
    /* A NACK (Node got the message without its descriptor) loses that one connection. */
    client_unacknowledged = 0;
    return;
  }
  if (!strstr(line, "\"cmd\":\"NODE_HANDLE\"")) return; /* nothing else is ours to answer */
  int fd = -1;
  if (fd_count > 0) {
    fd = fds[0];
    memmove(fds, fds + 1, (size_t)(--fd_count) * sizeof fds[0]);
  }
  send_line("{\"cmd\":\"NODE_HANDLE_ACK\"}\n");
  long id = number_of(line, "\"id\":");
  if (fd < 0) return;
  if (id < 0) {
    close(fd);
    return;
  }
  struct tunnel *t = calloc(1, sizeof *t);
  if (!t || !strstr(line, "\"skate\":\"tunnel\"") || target_of(line, t) != 0 ||
      !(t->first = malloc(MAX_LINE))) {
    if (t) free(t);
    close(fd);
    tunnel_closed(id);
    return;
  }
  t->id = id;
  t->client = fd;
  t->reply = number_of(line, "\"reply\":") == 1;
  t->bad_gateway = number_of(line, "\"badGateway\":") == 1;
  t->first_len = bytes_of(line, "\"first\":\"", t->first);
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  t->upstream_fd = start_connect(t);
  /*
   * An upstream that is up at once (a loopback or near one) gets what is owed from this thread
   * and its joint starts here: the first bytes do not wait for a new thread to be scheduled,
   * which on busy cores is most of a new tunnel's cost. Nothing here waits: the rest, or a
   * connection still being made, goes to a thread of the tunnel's own.
   */
  int up = t->upstream_fd >= 0 ? connected(t->upstream_fd, 0) : -1;
  if (up == 1 && say_owed_now(t)) {
    int upstream = t->upstream_fd;
    free(t->first);
    free(t);
    if (joint_start(fd, upstream, idle_ms, tunnel_closed, id) != 0) tunnel_closed(id);
    return;
  }
  if (up < 0 && t->upstream_fd >= 0) {
    /* Refused at once; its error is read (SO_ERROR clears it), so the thread must not look again. */
    close(t->upstream_fd);
    t->upstream_fd = -1;
  }
  pthread_t thread;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int rc = pthread_create(&thread, &attr, tunnel_thread, t);
  pthread_attr_destroy(&attr);
  if (rc != 0) {
    close(fd);
    if (t->upstream_fd >= 0) close(t->upstream_fd);
    free(t->first);
    free(t);
    tunnel_closed(id);
  }
}

/* Reads what the channel has: lines, and the descriptors that came with them. 0, or -1 once it closed. */
static int read_channel(void) {
  static char line[MAX_LINE + 1];
  static size_t have = 0;
  char buf[8192];
  union {
    char buf[CMSG_SPACE(sizeof(int) * MAX_FDS)];
    struct cmsghdr align;
  } control;
  struct iovec iov = {buf, sizeof buf};
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.buf;
  msg.msg_controllen = sizeof control.buf;
  ssize_t n = recvmsg(channel, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
  if (n < 0) return errno == EINTR || errno == EAGAIN ? 0 : -1;
  if (n == 0) return -1; /* the harness went away: every tunnel goes with this process */
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
    int count = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
    for (int i = 0; i < count; i++) {
      int one;
      memcpy(&one, CMSG_DATA(c) + (size_t)i * sizeof(int), sizeof one);
      if (fd_count < MAX_FDS) fds[fd_count++] = one;
      else close(one);
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
  return 0;
}

/*
 * Reads what one sender in the sandbox has, while there is room and at most MAX_WAITING messages
 * a turn (a sender that never stops must not starve the channel); -1 once it should be let go.
 */
static int read_sender(int sender) {
  for (int turn = 0; turn < MAX_WAITING && waiting_count < MAX_WAITING; turn++) {
    int fd;
    int got = handoff_receive(sender, &fd);
    if (got < 0) return -1;
    if (got == 0) {
      /* Refused (and closed), or nothing more: look again only if something more is there. */
      struct pollfd p = {sender, POLLIN, 0};
      if (poll(&p, 1, 0) <= 0 || !(p.revents & POLLIN)) return 0;
      continue;
    }
    waiting[waiting_count++] = fd;
  }
  return 0;
}

int splice_channel_main(int argc, char **argv) {
  const char *text = getenv("NODE_CHANNEL_FD");
  if (!text) {
    fprintf(stderr, "skate-confine: --splice-channel runs under Node with an ipc channel\n");
    return 125;
  }
  channel = atoi(text);
  if (argc >= 3) idle_ms = atol(argv[2]);
  if (argc >= 4 && atol(argv[3]) > 0) connect_ms = atol(argv[3]);
  pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
  if (getppid() != parent) return 125;
  signal(SIGPIPE, SIG_IGN);
  int flags = fcntl(channel, F_GETFL);
  if (flags >= 0) fcntl(channel, F_SETFL, flags & ~O_NONBLOCK);
  int listener = -1;
  if (argc >= 5 && argv[4][0]) {
    listener = handoff_listen(argv[4]);
    if (listener < 0) fprintf(stderr, "skate-confine: hand-off socket %s: %s\n", argv[4], strerror(errno));
  }
  send_line(listener >= 0 ? "{\"skate\":\"ready\",\"handoff\":1}\n" : "{\"skate\":\"ready\",\"handoff\":0}\n");
  int senders[MAX_SENDERS];
  int sender_count = 0;
  for (;;) {
    struct pollfd polls[2 + MAX_SENDERS];
    nfds_t count = 0;
    polls[count++] = (struct pollfd){channel, POLLIN, 0};
    /* Always accepted, and closed when there are too many: a forwarder then joins its connections as before. */
    if (listener >= 0) polls[count++] = (struct pollfd){listener, POLLIN, 0};
    nfds_t first_sender = count;
    for (int i = 0; i < sender_count; i++)
      polls[count++] = (struct pollfd){senders[i], waiting_count < MAX_WAITING ? POLLIN : 0, 0};
    if (poll(polls, count, -1) < 0) {
      if (errno == EINTR) continue;
      return 1;
    }
    if (polls[0].revents && read_channel() != 0) return 0;
    if (listener >= 0 && (polls[1].revents & POLLIN)) {
      int sender = accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (sender >= 0 && sender_count < MAX_SENDERS) senders[sender_count++] = sender;
      else if (sender >= 0) close(sender);
    }
    /* Backwards, so that letting one go moves only those already looked at. */
    for (int i = (int)(count - first_sender) - 1; i >= 0; i--) {
      short revents = polls[first_sender + (nfds_t)i].revents;
      if (!revents) continue;
      int gone = (revents & POLLIN) ? read_sender(senders[i]) != 0 : (revents & (POLLHUP | POLLERR | POLLNVAL)) != 0;
      if (gone) {
        close(senders[i]);
        senders[i] = senders[--sender_count];
      }
    }
    offer_next_client();
  }
}
