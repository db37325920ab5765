/*
 * splice-joint: joins two connected stream sockets in the kernel (splice(2) through a pipe per
 * direction), so the bytes of an admitted connection cross no user-space copy and no Node event
 * loop (issue #21: the allowlist proxy's data path). Used on both sides of the proxy's socket:
 * the sandbox's forwarder (skate-confine --net-forward) and the harness's relay
 * (skate-confine --splice-channel).
 */
#ifndef SKATE_SPLICE_JOINT_H
#define SKATE_SPLICE_JOINT_H

#include <stddef.h>

/* Called once when a joint has ended and closed both sockets, from the joint's thread. */
typedef void (*joint_done_fn)(long id);

/*
 * Takes ownership of sockets `a` and `b` (made blocking here) and copies each one's bytes to the
 * other on a thread of its own until both directions end: an end of stream is passed on as a
 * half close, an error closes both. A joint with no bytes either way for `idle_ms` (0: never) is
 * closed. Returns 0, or -1 with errno when no thread could be started (both sockets closed).
 */
int joint_start(int a, int b, long idle_ms, joint_done_fn done, long id);

/*
 * The same on the calling thread (one more thread for the other direction): returns once the
 * joint has ended, 0; or -1 at once when it could not begin (both sockets closed). A caller that
 * already has a thread of its own for the connection saves starting another before bytes flow.
 */
int joint_run(int a, int b, long idle_ms, joint_done_fn done, long id);

/* Writes all of `len` bytes to blocking socket `fd`; 0 or -1. */
int write_all(int fd, const void *data, size_t len);

/*
 * Writes all of `len` bytes to socket `fd`, waiting at most `timeout_ms` for room each time,
 * whatever its blocking mode: for a socket from the sandbox, where another copy of it can change
 * that mode or fill its buffer. 0 or -1.
 */
int write_within(int fd, const void *data, size_t len, int timeout_ms);

#endif
