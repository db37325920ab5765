/*
 * The command's stdout and stderr as pipes, whatever they are to us.
 *
 * Node gives a child's output a unix socket (libuv's "pipes" are socketpairs), and a socket
 * cannot be opened again by path: `echo x > /dev/stdout`, `tee /dev/stderr` and scripts that log
 * to /dev/stderr fail with ENXIO, where a shell or a terminal would have them work. With
 * --pipe-output, skate-confine's subreaper gives the command a pipe in place of each socket and
 * copies from it to the socket (one pipe when both are the same socket, so their order is kept).
 */
#ifndef SKATE_OUTPUT_RELAY_H
#define SKATE_OUTPUT_RELAY_H

#include <pthread.h>

struct output_relay {
  int count;
  /* For each relayed pipe: the descriptors of ours it stands in for, its two ends, its thread. */
  struct {
    int targets[2];
    int ntargets;
    int read_end;
    int write_end;
    pthread_t thread;
  } pipes[2];
};

/* Before fork: a pipe for each of stdout and stderr that is a socket. Returns 0, or -1 (errno). */
int relay_prepare(struct output_relay *relay);
/* In the child, before exec: the pipes' write ends become its stdout and stderr. */
void relay_in_child(const struct output_relay *relay);
/* In the parent, after fork: the descriptors it must keep open (read ends), for the sweep. */
int relay_kept(const struct output_relay *relay, int *fds, int max);
/* In the parent: closes the write ends and starts copying. Returns 0, or -1 (errno). */
int relay_start(struct output_relay *relay);
/* Waits until every writer is gone and everything was copied. */
void relay_finish(struct output_relay *relay);

#endif
