/*
 * A hostile process inside a sandbox under a network allowlist, for the security suite (issue
 * #21): it speaks to the relay's hand-off socket (/run/skate-net/handoff.sock) the way the
 * forwarder does, one byte and one descriptor a message, but sends what it likes.
 *
 *   handoff-sender SOCKET file PATH      a descriptor of PATH, opened read-write
 *   handoff-sender SOCKET pipe           a pipe's write end
 *   handoff-sender SOCKET unix           one end of a unix socket pair
 *   handoff-sender SOCKET listening      a TCP socket listening on the sandbox's loopback
 *   handoff-sender SOCKET unconnected    a TCP socket never connected
 *   handoff-sender SOCKET udp            a connected UDP socket
 *   handoff-sender SOCKET odd            messages of the wrong shape around a connected TCP socket
 *   handoff-sender SOCKET many N         one message carrying N connected TCP sockets
 *   handoff-sender SOCKET flood N        N messages, each a pipe's end
 *   handoff-sender SOCKET tcpflood N     N messages, each a connected TCP socket
 *   handoff-sender SOCKET tcp REQUEST    a connected TCP socket; its peer sends REQUEST
 *
 * Each kind that carries connected TCP sockets then says how many of their peers saw the
 * connection closed within a second (`CLOSED k/N`); `tcp` prints the answer's first line.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define MAX 512

static int channel;

static int send_fds(const char *data, size_t len, const int *fds, int count) {
  struct iovec iov = {(void *)data, len};
  char control[CMSG_SPACE(sizeof(int) * MAX)];
  memset(control, 0, sizeof control);
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  if (count > 0) {
    msg.msg_control = control;
    msg.msg_controllen = CMSG_SPACE(sizeof(int) * count);
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * count);
    memcpy(CMSG_DATA(c), fds, sizeof(int) * count);
  }
  return sendmsg(channel, &msg, MSG_NOSIGNAL) >= 0 ? 0 : -1;
}

static int send_one(int fd) { return send_fds("C", 1, &fd, 1); }

/* A connected pair on the sandbox's loopback: *server is the accepted side (what the forwarder passes). */
static int tcp_pair(int *client, int *server) {
  static int listener = -1;
  static struct sockaddr_in addr;
  socklen_t len = sizeof addr;
  if (listener < 0) {
    listener = socket(AF_INET, SOCK_STREAM, 0);
    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(listener, MAX) != 0) return -1;
    getsockname(listener, (struct sockaddr *)&addr, &len);
  }
  *client = socket(AF_INET, SOCK_STREAM, 0);
  if (connect(*client, (struct sockaddr *)&addr, sizeof addr) != 0) return -1;
  *server = accept(listener, NULL, NULL);
  return *server >= 0 ? 0 : -1;
}

/* How many of `clients` see their connection closed (end of stream or reset) within a second. */
static int closed_within_a_second(const int *clients, int count) {
  int closed = 0;
  for (int i = 0; i < count; i++) {
    struct pollfd p = {clients[i], POLLIN, 0};
    char byte;
    if (poll(&p, 1, i == 0 ? 1000 : 50) > 0 && recv(clients[i], &byte, 1, MSG_DONTWAIT) <= 0) closed++;
  }
  return closed;
}

static void tcp_kinds(const char *kind, int n) {
  static int clients[MAX], servers[MAX];
  if (n < 1 || n > MAX) n = 1;
  for (int i = 0; i < n; i++)
    if (tcp_pair(&clients[i], &servers[i]) != 0) {
      printf("PAIR-FAILED\n");
      return;
    }
  int sent = 0;
  if (strcmp(kind, "many") == 0) {
    sent = send_fds("C", 1, servers, n) == 0 ? n : 0;
  } else if (strcmp(kind, "odd") == 0) {
    /* No descriptor; two bytes and one; a descriptor and no byte; a wrong byte. */
    send_fds("C", 1, NULL, 0);
    sent += send_fds("CC", 2, servers, 1) == 0;
    sent += send_fds("", 0, servers, 1) == 0;
    sent += send_fds("X", 1, servers, 1) == 0;
  } else {
    for (int i = 0; i < n; i++) sent += send_one(servers[i]) == 0;
  }
  for (int i = 0; i < n; i++) close(servers[i]);
  printf("SENT %d\n", sent);
  printf("CLOSED %d/%d\n", closed_within_a_second(clients, n), n);
}

int main(int argc, char **argv) {
  if (argc < 3) return 2;
  alarm(30);
  struct sockaddr_un addr = {0};
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, argv[1], sizeof addr.sun_path - 1);
  channel = socket(AF_UNIX, SOCK_SEQPACKET, 0);
  if (connect(channel, (struct sockaddr *)&addr, sizeof addr) != 0) {
    perror("connect");
    return 1;
  }
  const char *kind = argv[2];
  int fd = -1;
  if (strcmp(kind, "file") == 0 && argc > 3) {
    fd = open(argv[3], O_RDWR);
  } else if (strcmp(kind, "pipe") == 0) {
    int p[2];
    if (pipe(p) == 0) fd = p[1];
  } else if (strcmp(kind, "unix") == 0) {
    int p[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, p) == 0) fd = p[0];
  } else if (strcmp(kind, "listening") == 0) {
    fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in in = {0};
    in.sin_family = AF_INET;
    in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&in, sizeof in) != 0 || listen(fd, 1) != 0) fd = -1;
  } else if (strcmp(kind, "unconnected") == 0) {
    fd = socket(AF_INET, SOCK_STREAM, 0);
  } else if (strcmp(kind, "udp") == 0) {
    fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in in = {0};
    in.sin_family = AF_INET;
    in.sin_port = htons(9);
    in.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&in, sizeof in) != 0) fd = -1;
  } else if (strcmp(kind, "flood") == 0 && argc > 3) {
    int n = atoi(argv[3]), sent = 0;
    for (int i = 0; i < n; i++) {
      int p[2];
      if (pipe(p) != 0) break;
      sent += send_one(p[1]) == 0;
      close(p[0]);
      close(p[1]);
    }
    printf("SENT %d\n", sent);
    return 0;
  } else if (strcmp(kind, "tcp") == 0 && argc > 3) {
    int client, server;
    if (tcp_pair(&client, &server) != 0 || send_one(server) != 0) return 1;
    close(server);
    write(client, argv[3], strlen(argv[3]));
    char answer[512];
    struct pollfd p = {client, POLLIN, 0};
    ssize_t n = poll(&p, 1, 5000) > 0 ? read(client, answer, sizeof answer - 1) : -1;
    if (n <= 0) {
      printf("NO-ANSWER\n");
      return 0;
    }
    answer[n] = 0;
    char *end = strstr(answer, "\r\n");
    if (end) *end = 0;
    printf("ANSWER %s\n", answer);
    return 0;
  } else {
    tcp_kinds(kind, argc > 3 ? atoi(argv[3]) : 1);
    return 0;
  }
  if (fd < 0) {
    printf("SETUP-FAILED\n");
    return 1;
  }
  printf("SENT %d\n", send_one(fd) == 0 ? 1 : 0);
  return 0;
}
