/*
 * The create guard's internals, shared by its parts (see create-guard.h for what it is).
 *   create-guard.c      options, and the seccomp filter installed inside the sandbox (--guard-fd)
 *   guard-supervisor.c  the host side: starts bwrap, receives the listener, answers notifications
 *   guard-walk.c        a caller's view: its memory, root, cwd, descriptors; path resolution
 *   guard-calls.c       the name-creating calls, performed on the caller's behalf
 */
#ifndef SKATE_GUARD_INTERNAL_H
#define SKATE_GUARD_INTERNAL_H

#define _GNU_SOURCE
#include <limits.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* A directory whose missing entry NAME must not be created: identified by what it is, not its path. */
struct guard_deny {
  dev_t dev;
  ino_t ino;
  char *name;
};

struct guard_rules {
  struct guard_deny *deny;
  int deny_count;
  /* Names denied in every directory on a write root's file system (`.skate`). */
  char **names;
  int name_count;
  /*
   * Runs of path components (`.skate`, `.claude/agents`, `.mcp.json`) under which nothing is
   * created, opened for writing or hard-linked elsewhere, at any depth of a write root's file
   * system: what exists there beyond the start-up scan's limits is not mounted read-only.
   */
  char **trees;
  int tree_count;
  /* The file systems of the write roots (the devices of the pinned directories). */
  dev_t *devs;
  int dev_count;
};

/* The process that made a notified call, reached through the host's /proc. */
struct caller {
  int listener;
  uint64_t id;
  pid_t tid;
  int dir;  /* /proc/<tid>, bound to that task for as long as it is open */
  int mem; /* /proc/<tid>/mem, opened on first use */
  int status_read; /* Umask, NStgid and NSpid read from /proc/<tid>/status */
  mode_t umask;
  pid_t ns_tgid, ns_tid; /* as the sandbox's own /proc names them */
};

/* Where a path leads, short of its last component. */
struct place {
  int dir;                 /* O_PATH descriptor of the parent directory (owned) */
  char name[NAME_MAX + 1]; /* the last component: never empty, no slash; "." for a path naming a directory itself */
  int slash;               /* the path ended in a slash */
  pid_t proc_pid;          /* dir lies under /proc/<proc_pid> of the sandbox's procfs (0: it does not) */
};

#define GUARD_MAX_LINKS 40

/* guard-walk.c */
int caller_open(struct caller *c, int listener, const struct seccomp_notif *req);
void caller_close(struct caller *c);
int caller_read(struct caller *c, uint64_t addr, void *buf, size_t size);
int caller_string(struct caller *c, uint64_t addr, char *buf, size_t size);
int caller_status(struct caller *c);
int caller_root(struct caller *c);
int caller_dirfd(struct caller *c, int dfd);
int caller_owns(struct caller *c, pid_t ns_pid);
int walk(struct caller *c, int start, pid_t start_pid, const char *path, struct place *out, int *links);
int walk_from(struct caller *c, int dfd, const char *path, struct place *out, int *links);
int follow_final(struct caller *c, struct place *pl, int *object, int *links);
int place_dot(struct caller *c, struct place *pl);
void place_close(struct place *pl);
int place_name(const struct place *pl, char *buf, size_t size);

/* The host's /proc, opened before anything else (guard-supervisor.c). */
extern int guard_proc;

/* create-guard.c */
const struct guard_rules *guard_rules_resolve(void);
void guard_name_fd(char **command, int fd);

/* guard-calls.c */
void guard_answer(const struct guard_rules *rules, int listener, const struct seccomp_notif *req);
int guard_denied(const struct guard_rules *rules, int dir, const char *name);

#endif
