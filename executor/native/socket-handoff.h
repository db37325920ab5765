/*
 * socket-handoff: how an accepted connection leaves the sandbox (issue #21). The sandbox's
 * forwarder (skate-confine --net-forward) passes each TCP connection it accepted on the proxy
 * port to the harness's relay (skate-confine --splice-channel) over a SOCK_SEQPACKET unix socket,
 * one descriptor a message (SCM_RIGHTS), and lets go of it: the proxy reads the client's own
 * socket, and once it has admitted a tunnel the relay joins that socket with the upstream, so the
 * forwarder is no longer on the data path. Nothing goes the other way.
 *
 * Whatever arrives on that socket comes from the sandbox and is hostile: any process in it can
 * connect and send any descriptor. The relay keeps only a connected TCP socket (AF_INET or
 * AF_INET6, SOCK_STREAM, IPPROTO_TCP, not listening, with a peer), one a message, and closes
 * everything else it received. On such a socket the relay and the proxy only read, write,
 * splice, shut down and close (and set TCP_NODELAY and timeouts): never connect, bind or listen.
 * It was made in the sandbox's network namespace and stays in it, so nothing done to it, by
 * either side, routes anywhere but the sandbox's own loopback.
 */
#ifndef SKATE_SOCKET_HANDOFF_H
#define SKATE_SOCKET_HANDOFF_H

#include <stddef.h>

/* Relay: a listening, non-blocking SOCK_SEQPACKET socket bound at `path`; -1 with errno. */
int handoff_listen(const char *path);

/* Forwarder: a connection to the relay's socket at `path`; -1 with errno. */
int handoff_connect(const char *path);

/*
 * Sends `len` bytes with descriptor `fd` attached to the first (SCM_RIGHTS), `flags` added to
 * sendmsg's; the rest of a message a stream socket cut short follows. 0, or -1 with errno.
 */
int send_with_fd(int channel, const void *data, size_t len, int fd, int flags);

/* Forwarder: passes `fd` (one byte, one descriptor) without blocking; 0, or -1 with errno. */
int handoff_send(int channel, int fd);

/*
 * Relay: reads one message from `sender` (non-blocking). 1: `*fd` is a checked, connected TCP
 * socket, now the caller's. 0: nothing was there, or the message was refused and every
 * descriptor it carried closed. -1: the sender is gone (end of stream or an error).
 */
int handoff_receive(int sender, int *fd);

/* 1 when `fd` is a connected TCP socket (see above), else 0. */
int handoff_is_connected_tcp(int fd);

#endif
