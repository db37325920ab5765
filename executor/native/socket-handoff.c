/* See socket-handoff.h. */
#define _GNU_SOURCE
#include "socket-handoff.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Descriptors read from one message at most; a message carrying more loses the rest in the kernel (MSG_CTRUNC). */
#define MAX_FDS_READ 8
/* The one byte a hand-off carries. */
#define HANDOFF_BYTE 'C'

static int unix_address(const char *path, struct sockaddr_un *addr) {
  if (strlen(path) >= sizeof addr->sun_path) {
    errno = ENAMETOOLONG;
    return -1;
  }
  memset(addr, 0, sizeof *addr);
  addr->sun_family = AF_UNIX;
  strcpy(addr->sun_path, path);
  return 0;
}

int handoff_listen(const char *path) {
  struct sockaddr_un addr;
  if (unix_address(path, &addr) != 0) return -1;
  int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd < 0) return -1;
  if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 16) != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

int handoff_connect(const char *path) {
  struct sockaddr_un addr;
  if (unix_address(path, &addr) != 0) return -1;
  int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

int send_with_fd(int channel, const void *data, size_t len, int fd, int flags) {
  struct iovec iov = {(void *)data, len};
  union {
    char buf[CMSG_SPACE(sizeof(int))];
    struct cmsghdr align;
  } control;
  memset(&control, 0, sizeof control);
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.buf;
  msg.msg_controllen = sizeof control.buf;
  struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  memcpy(CMSG_DATA(c), &fd, sizeof fd);
  ssize_t n;
  do n = sendmsg(channel, &msg, MSG_NOSIGNAL | flags);
  while (n < 0 && errno == EINTR);
  if (n <= 0) return -1;
  /* The rest of a message cut short (a full stream socket) follows without a descriptor. */
  const char *rest = (const char *)data + n;
  for (size_t left = len - (size_t)n; left > 0;) {
    ssize_t w = send(channel, rest, left, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return -1;
    rest += w;
    left -= (size_t)w;
  }
  return 0;
}

int handoff_send(int channel, int fd) {
  char byte = HANDOFF_BYTE;
  return send_with_fd(channel, &byte, 1, fd, MSG_DONTWAIT);
}

static int option(int fd, int name, int *value) {
  socklen_t len = sizeof *value;
  return getsockopt(fd, SOL_SOCKET, name, value, &len) == 0 && len == sizeof *value ? 0 : -1;
}

int handoff_is_connected_tcp(int fd) {
  int domain, type, protocol, listening;
  /* A file, a pipe, an eventfd...: ENOTSOCK. */
  if (option(fd, SO_DOMAIN, &domain) != 0 || (domain != AF_INET && domain != AF_INET6)) return 0;
  if (option(fd, SO_TYPE, &type) != 0 || type != SOCK_STREAM) return 0;
  /* SOCK_STREAM is also SCTP's and MPTCP's: TCP only. */
  if (option(fd, SO_PROTOCOL, &protocol) != 0 || protocol != IPPROTO_TCP) return 0;
  if (option(fd, SO_ACCEPTCONN, &listening) != 0 || listening != 0) return 0;
  struct sockaddr_storage peer;
  socklen_t len = sizeof peer;
  /* Unconnected (or disconnected): ENOTCONN. */
  return getpeername(fd, (struct sockaddr *)&peer, &len) == 0 ? 1 : 0;
}

int handoff_receive(int sender, int *fd) {
  char data[16];
  struct iovec iov = {data, sizeof data};
  union {
    char buf[CMSG_SPACE(sizeof(int) * MAX_FDS_READ)];
    struct cmsghdr align;
  } control;
  struct msghdr msg = {0};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control.buf;
  msg.msg_controllen = sizeof control.buf;
  ssize_t n = recvmsg(sender, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
  if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
  /* Every descriptor that came, whatever the message: each is closed unless the one kept. */
  int got[MAX_FDS_READ];
  int count = 0;
  int odd = (msg.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) != 0;
  for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
      odd = 1;
      continue;
    }
    size_t in = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (size_t i = 0; i < in; i++) {
      int one;
      memcpy(&one, CMSG_DATA(c) + i * sizeof(int), sizeof one);
      if (count < MAX_FDS_READ) got[count++] = one;
      else close(one);
    }
  }
  /* A message of no bytes and no descriptor is the end of the stream. */
  if (n == 0 && count == 0) return -1;
  if (!odd && n == 1 && data[0] == HANDOFF_BYTE && count == 1 && handoff_is_connected_tcp(got[0])) {
    *fd = got[0];
    return 1;
  }
  for (int i = 0; i < count; i++) close(got[i]);
  return 0;
}
