/*
 * The create guard: protected names that do not exist yet cannot be created in a sandbox.
 *
 * A read-only bind protects a name that exists; one that does not cannot be mounted without
 * leaving an entry in the user's workspace. So the calls that create names (mkdir, mknod,
 * symlink, link, rename, bind of a unix socket, and open/openat with O_CREAT) are not run by
 * the kernel for processes in the sandbox: a seccomp filter hands each to a supervisor on the
 * host, which resolves the path as the caller would (its root, cwd and descriptors), refuses a
 * protected (directory, name) pair and otherwise performs the call itself, relative to the
 * directory it resolved, and returns the result (a new descriptor through SECCOMP_ADDFD).
 * Nothing is checked and then re-resolved, so no thread or rename can race the check.
 *
 *   outer, on the host, before bwrap:
 *     skate-confine --pin-fds --guard [--guard-deny DIR NAME]... [--guard-name NAME]... -- bwrap ...
 *   inner, the first process inside the sandbox:
 *     skate-confine --guard-fd @guard-fd -- EXECUTOR...
 *
 * --guard            supervise: fork, run COMMAND (bwrap) in the child, and answer the calls of
 *                    everything started under the inner skate-confine. The argument @guard-fd
 *                    of COMMAND becomes the number of the descriptor the inner one sends on.
 * --guard-deny D N   refuse to create N in directory D (a pinned path, see --pin-fds: the
 *                    identity is the pinned descriptor's, so it is the directory mounted).
 * --guard-name N     refuse to create N in any directory on the file system of a pinned path.
 * --guard-tree T     on those file systems, refuse to create, open for writing, or hard-link
 *                    elsewhere anything whose path has the components T (".skate", ".claude/agents"),
 *                    whatever its depth: what the start-up scan did not reach is not mounted read-only.
 * --guard-fd N       install the filter, send its listener on descriptor N, close both.
 *
 * A call of another architecture (i386, x32), openat2 and io_uring_setup fail with ENOSYS:
 * the first two bypass the filter's argument checks, io_uring would bypass seccomp entirely.
 * If the supervisor dies, the calls it answered fail (ENOSYS): closed, not open.
 */
#ifndef SKATE_CREATE_GUARD_H
#define SKATE_CREATE_GUARD_H

/* Consumes one --guard* option at argv[*i] (and its values); returns 0 when argv[*i] is not one. */
int guard_option(int argc, char **argv, int *i);
/* Remembers the descriptor --pin-fds opened for a path, the identity --guard-deny refers to. */
void guard_note_pin(const char *path, int fd);
/* Inside the sandbox: installs the filter when --guard-fd was given. Dies when it cannot. */
void guard_enter(void);
/* True when --guard was given: main() then calls guard_supervise instead of exec. */
int guard_supervising(void);
/* Runs COMMAND as a child and answers the sandbox's calls until it exits; returns its status. */
int guard_supervise(char **command);

#endif
