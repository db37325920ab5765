/*
 * The name-creating calls, performed by the supervisor on a caller's behalf: each path resolved
 * once (guard-walk.c), the (directory, name) pair checked against the rules, and the call made
 * relative to that directory, so what was checked is what is created. A refused name that does
 * not exist gives EACCES; one that exists gives what the call gives for an existing name.
 */
#include "guard-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include <linux/openat2.h>

/* The open flags the kernel knows; openat2 refuses others where openat ignores them. */
#define VALID_OPEN_FLAGS                                                                                 \
  (O_RDONLY | O_WRONLY | O_RDWR | O_CREAT | O_EXCL | O_NOCTTY | O_TRUNC | O_APPEND | O_NONBLOCK | O_DSYNC | \
   O_ASYNC | O_DIRECT | O_LARGEFILE | O_DIRECTORY | O_NOFOLLOW | O_NOATIME | O_CLOEXEC | O_PATH | O_SYNC | \
   __O_TMPFILE)

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

/* The answer was already given (a descriptor sent with SECCOMP_ADDFD_FLAG_SEND). */
#define ANSWERED 1

/* Whether a directory or object on this device lies on a write root's file system. */
static int on_write_root(const struct guard_rules *rules, dev_t dev) {
  for (int j = 0; j < rules->dev_count; j++)
    if (rules->devs[j] == dev) return 1;
  return 0;
}

/* Whether PATH has the components of TREE ("a" or "a/b") as a run of its own components. */
static int has_components(const char *path, const char *tree) {
  size_t len = strlen(tree);
  for (const char *p = strstr(path, tree); p; p = strstr(p + 1, tree)) {
    if ((p == path || p[-1] == '/') && (p[len] == 0 || p[len] == '/')) return 1;
  }
  return 0;
}

/*
 * Whether FD (a directory, or with NAME an entry in it) lies under a protected tree on a write
 * root's file system. The path is the kernel's for that descriptor (the host's /proc): a
 * directory has one, and names are stable where it matters, since no tree's name can be made
 * (renamed to) by the sandbox, only taken away. Unknown (no path): refused.
 */
static int in_tree(const struct guard_rules *rules, int fd, const char *name) {
  if (rules->tree_count == 0) return 0;
  struct stat st;
  if (fstat(fd, &st) != 0) return 1;
  if (!on_write_root(rules, st.st_dev)) return 0;
  char self[64], path[PATH_MAX + NAME_MAX + 2];
  snprintf(self, sizeof self, "self/fd/%d", fd);
  ssize_t n = readlinkat(guard_proc, self, path, PATH_MAX);
  if (n <= 0) return 1;
  path[n] = 0;
  if (name && *name && strcmp(name, ".") != 0 && strcmp(name, "..") != 0) {
    if (path[n - 1] != '/') strcat(path, "/");
    strncat(path, name, NAME_MAX);
  }
  for (int i = 0; i < rules->tree_count; i++)
    if (has_components(path, rules->trees[i])) return 1;
  return 0;
}

int guard_denied(const struct guard_rules *rules, int dir, const char *name) {
  if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) return 0;
  struct stat st;
  if (fstat(dir, &st) != 0) return 1;
  if (in_tree(rules, dir, name)) return 1;
  for (int i = 0; i < rules->deny_count; i++) {
    const struct guard_deny *d = &rules->deny[i];
    if (d->dev == st.st_dev && d->ino == st.st_ino && strcmp(d->name, name) == 0) return 1;
  }
  for (int i = 0; i < rules->name_count; i++) {
    if (strcmp(rules->names[i], name) != 0) continue;
    for (int j = 0; j < rules->dev_count; j++) {
      if (rules->devs[j] == st.st_dev) return 1;
    }
  }
  return 0;
}

static int exists(const struct place *pl) {
  struct stat st;
  return fstatat(pl->dir, pl->name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* What a refused name answers: it exists already, or the caller may not make it. */
static long refused(const struct place *pl) { return exists(pl) ? -EEXIST : -EACCES; }

/* Reads a path argument and resolves it up to its last component. */
static long resolve(struct caller *c, int dfd, uint64_t addr, struct place *pl, int *links) {
  char path[PATH_MAX];
  pl->dir = -1;
  int r = caller_string(c, addr, path, sizeof path);
  if (r < 0) return r;
  if ((r = walk_from(c, dfd, path, pl, links)) < 0) return r;
  return place_dot(c, pl);
}

/* The caller's umask, for the calls that apply one. */
static long take_umask(struct caller *c) {
  int r = caller_status(c);
  if (r < 0) return r;
  umask(c->umask);
  return 0;
}

static long make_dir(const struct guard_rules *g, struct caller *c, int dfd, uint64_t path, mode_t mode) {
  struct place pl;
  int links = 0;
  char name[NAME_MAX + 2];
  long r = resolve(c, dfd, path, &pl, &links);
  if (r == 0 && (r = place_name(&pl, name, sizeof name)) == 0) {
    if (guard_denied(g, pl.dir, pl.name)) r = refused(&pl);
    else if ((r = take_umask(c)) == 0) r = mkdirat(pl.dir, name, mode) == 0 ? 0 : -errno;
  }
  place_close(&pl);
  return r;
}

static long make_node(const struct guard_rules *g, struct caller *c, int dfd, uint64_t path, mode_t mode,
                      unsigned dev) {
  struct place pl;
  int links = 0;
  char name[NAME_MAX + 2];
  long r = resolve(c, dfd, path, &pl, &links);
  if (r == 0 && (r = place_name(&pl, name, sizeof name)) == 0) {
    if (guard_denied(g, pl.dir, pl.name)) r = refused(&pl);
    else if ((r = take_umask(c)) == 0)
      r = syscall(SYS_mknodat, pl.dir, name, mode, dev) == 0 ? 0 : -errno;
  }
  place_close(&pl);
  return r;
}

static long make_symlink(const struct guard_rules *g, struct caller *c, uint64_t target, int dfd,
                         uint64_t path) {
  char content[PATH_MAX];
  long r = caller_string(c, target, content, sizeof content);
  if (r < 0) return r;
  if (r == 0) return -ENOENT;
  struct place pl;
  int links = 0;
  char name[NAME_MAX + 2];
  r = resolve(c, dfd, path, &pl, &links);
  if (r == 0 && (r = place_name(&pl, name, sizeof name)) == 0) {
    if (guard_denied(g, pl.dir, pl.name)) r = refused(&pl);
    else r = symlinkat(content, pl.dir, name) == 0 ? 0 : -errno;
  }
  place_close(&pl);
  return r;
}

/* Links an object the supervisor holds open (reached through a magic link, or AT_EMPTY_PATH). */
static long link_object(int object, const struct place *to, const char *name) {
  char self[64];
  snprintf(self, sizeof self, "self/fd/%d", object);
  return linkat(guard_proc, self, to->dir, name, AT_SYMLINK_FOLLOW) == 0 ? 0 : -errno;
}

static long make_link(const struct guard_rules *g, struct caller *c, int olddfd, uint64_t oldpath, int newdfd,
                      uint64_t newpath, int flags) {
  if (flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH)) return -EINVAL;
  char old[PATH_MAX];
  long r = caller_string(c, oldpath, old, sizeof old);
  if (r < 0) return r;
  struct place to, from = {.dir = -1};
  int links = 0, object = -1;
  char name[NAME_MAX + 2];
  r = resolve(c, newdfd, newpath, &to, &links);
  if (r == 0 && (r = place_name(&to, name, sizeof name)) == 0 && guard_denied(g, to.dir, to.name)) r = refused(&to);
  if (r == 0) {
    /* A second name for a file under a protected tree would let it be written under that name. */
    if (old[0] == 0) {
      if (!(flags & AT_EMPTY_PATH)) r = -ENOENT;
      else if ((object = caller_dirfd(c, olddfd)) < 0) r = object;
      else r = in_tree(g, object, NULL) ? -EACCES : link_object(object, &to, name);
    } else if ((r = walk_from(c, olddfd, old, &from, &links)) == 0 && (r = place_dot(c, &from)) == 0) {
      if (flags & AT_SYMLINK_FOLLOW) r = follow_final(c, &from, &object, &links);
      if (r == 0 && object >= 0) r = in_tree(g, object, NULL) ? -EACCES : link_object(object, &to, name);
      else if (r == 0 && in_tree(g, from.dir, from.name)) r = -EACCES;
      else if (r == 0) r = linkat(from.dir, from.name, to.dir, name, 0) == 0 ? 0 : -errno;
    }
  }
  if (object >= 0) close(object);
  place_close(&from);
  place_close(&to);
  return r;
}

static long make_rename(const struct guard_rules *g, struct caller *c, int olddfd, uint64_t oldpath, int newdfd,
                        uint64_t newpath, unsigned flags) {
  struct place from, to = {.dir = -1};
  int links = 0;
  char oldname[NAME_MAX + 2], newname[NAME_MAX + 2];
  long r = resolve(c, olddfd, oldpath, &from, &links);
  if (r == 0) r = resolve(c, newdfd, newpath, &to, &links);
  /* "." or ".." at either end (resolve made ".." a "."): the kernel refuses before anything else. */
  if (r == 0 && (strcmp(from.name, ".") == 0 || strcmp(to.name, ".") == 0)) r = -EBUSY;
  if (r == 0 && (r = place_name(&from, oldname, sizeof oldname)) == 0 &&
      (r = place_name(&to, newname, sizeof newname)) == 0) {
    /* An exchange puts a name in each place: both must be allowed. Replacing a name is creating it. */
    if (guard_denied(g, to.dir, to.name) || ((flags & RENAME_EXCHANGE) && guard_denied(g, from.dir, from.name)))
      r = -EACCES;
    else
      r = syscall(SYS_renameat2, from.dir, oldname, to.dir, newname, flags) == 0 ? 0 : -errno;
  }
  place_close(&from);
  place_close(&to);
  return r;
}

/*
 * Opens one name in a directory, no symlink followed, as the caller's open would: openat2's
 * RESOLVE_NO_SYMLINKS rather than O_NOFOLLOW, which would show in the caller's F_GETFL.
 */
static int open_name(int dir, const char *name, int flags, mode_t mode) {
  struct open_how how = {
      .flags = (uint64_t)(flags & VALID_OPEN_FLAGS),
      .mode = (flags & O_CREAT) ? (mode & 07777) : 0,
      .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH,
  };
  return (int)syscall(SYS_openat2, dir, name, &how, sizeof how);
}

/* Sends a descriptor to the caller as its call's result (or the error of sending it). */
static long send_fd(int listener, uint64_t id, int fd, int flags) {
  struct seccomp_notif_addfd addfd = {
      .id = id,
      .flags = SECCOMP_ADDFD_FLAG_SEND,
      .srcfd = (uint32_t)fd,
      .newfd = 0,
      .newfd_flags = (uint32_t)(flags & O_CLOEXEC),
  };
  long r = ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &addfd);
  close(fd);
  /* ENOENT: the caller is gone or was interrupted; there is nobody to answer. */
  return r >= 0 || errno == ENOENT ? ANSWERED : -errno;
}

struct fifo_open {
  int listener;
  uint64_t id;
  int dir; /* the parent directory, or the object itself when name is empty */
  char name[NAME_MAX + 1];
  int flags;
};

/* Opening a FIFO waits for its other end, which may be the caller's next call: not on our loop. */
static void *open_fifo(void *arg) {
  struct fifo_open *f = arg;
  int fd;
  if (f->name[0]) {
    fd = open_name(f->dir, f->name, (f->flags & ~(O_CREAT | O_EXCL)) | O_NOCTTY | O_CLOEXEC, 0);
  } else {
    char self[64];
    snprintf(self, sizeof self, "self/fd/%d", f->dir);
    fd = openat(guard_proc, self, (f->flags & ~(O_CREAT | O_EXCL)) | O_NOCTTY | O_CLOEXEC);
  }
  long r = fd < 0 ? -errno : send_fd(f->listener, f->id, fd, f->flags);
  if (r != ANSWERED) {
    struct seccomp_notif_resp resp = {.id = f->id, .error = (int32_t)r};
    ioctl(f->listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
  }
  close(f->dir);
  free(f);
  return NULL;
}

static long fifo_later(struct caller *c, int dir, const char *name, int flags) {
  struct fifo_open *f = calloc(1, sizeof *f);
  if (!f) return -ENOMEM;
  *f = (struct fifo_open){.listener = c->listener, .id = c->id, .flags = flags};
  f->dir = fcntl(dir, F_DUPFD_CLOEXEC, 0);
  snprintf(f->name, sizeof f->name, "%s", name);
  pthread_t thread;
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  int failed = f->dir < 0 || pthread_create(&thread, &attr, open_fifo, f) != 0;
  pthread_attr_destroy(&attr);
  if (failed) {
    if (f->dir >= 0) close(f->dir);
    free(f);
    return -EAGAIN;
  }
  return ANSWERED;
}

/* Opens what a magic link led to (the caller's own /proc/self/fd/N, say) with the caller's flags. */
static long open_object(struct caller *c, int object, int flags) {
  struct stat st;
  if (fstat(object, &st) != 0) return -errno;
  if (S_ISFIFO(st.st_mode)) return fifo_later(c, object, "", flags);
  char self[64];
  snprintf(self, sizeof self, "self/fd/%d", object);
  int fd = openat(guard_proc, self, (flags & ~(O_CREAT | O_EXCL)) | O_NOCTTY | O_CLOEXEC);
  return fd < 0 ? -errno : send_fd(c->listener, c->id, fd, flags);
}

static long make_open(const struct guard_rules *g, struct caller *c, int dfd, uint64_t path, int flags,
                      mode_t mode) {
  struct place pl;
  int links = 0, object = -1;
  long r = resolve(c, dfd, path, &pl, &links);
  if (r < 0) {
    place_close(&pl);
    return r;
  }
  if ((flags & O_CREAT) && (pl.slash || strcmp(pl.name, ".") == 0)) {
    /* Creating a directory's name, or one written with a trailing slash: the kernel says EISDIR. */
    place_close(&pl);
    return -EISDIR;
  }
  /* A trailing slash follows a final symlink whatever the flags, and must end at a directory. */
  int follow = pl.slash || !(flags & (O_EXCL | O_NOFOLLOW));
  if (pl.slash) flags |= O_DIRECTORY;
  /* Nothing under a protected tree is opened to be changed, whether it exists or not. */
  int writes = (flags & (O_WRONLY | O_RDWR | O_TRUNC)) != 0;
  for (int tries = 0; r == 0; tries++) {
    if (follow && (r = follow_final(c, &pl, &object, &links)) < 0) break;
    if (object >= 0) {
      r = writes && in_tree(g, object, NULL) ? -EACCES : open_object(c, object, flags);
      break;
    }
    if (writes && in_tree(g, pl.dir, pl.name)) {
      r = -EACCES;
      break;
    }
    struct stat st;
    int found = fstatat(pl.dir, pl.name, &st, AT_SYMLINK_NOFOLLOW) == 0;
    int create = flags;
    if ((flags & O_CREAT) && guard_denied(g, pl.dir, pl.name)) {
      /* A refused name is opened only as it is: never created. */
      if (!found) {
        r = -EACCES;
        break;
      }
      if (flags & O_EXCL) {
        r = -EEXIST;
        break;
      }
      create &= ~O_CREAT;
    }
    if (found && S_ISFIFO(st.st_mode) && !(flags & (O_PATH | O_NONBLOCK))) {
      r = fifo_later(c, pl.dir, pl.name, flags);
      break;
    }
    if ((r = take_umask(c)) < 0) break;
    /* O_NONBLOCK: should the name become a FIFO meanwhile, the open must not wait on our loop. */
    int fd = open_name(pl.dir, pl.name, create | O_NOCTTY | O_CLOEXEC | O_NONBLOCK, mode);
    if (fd < 0 && errno == ELOOP && follow && tries < GUARD_MAX_LINKS) continue; /* became a symlink */
    if (fd < 0) {
      r = -errno;
      break;
    }
    if (!(flags & (O_NONBLOCK | O_PATH))) fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    r = send_fd(c->listener, c->id, fd, flags);
    break;
  }
  if (object >= 0) close(object);
  place_close(&pl);
  return r;
}

/* A unix socket's path is a name like any other; other addresses are bound as given. */
static long make_bind(const struct guard_rules *g, struct caller *c, int sockfd, uint64_t addr, uint32_t len) {
  long pidfd = syscall(SYS_pidfd_open, c->tid, PIDFD_THREAD);
  if (pidfd < 0) return -EPERM;
  int sock = -1, error = ESRCH;
  if (ioctl(c->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &c->id) == 0) {
    sock = (int)syscall(SYS_pidfd_getfd, (int)pidfd, sockfd, 0);
    error = errno;
  }
  close((int)pidfd);
  if (sock < 0) return -error;
  /* The kernel's order: the descriptor, then the address. */
  struct sockaddr_storage sa;
  long r = len > sizeof sa ? -EINVAL : caller_read(c, addr, &sa, len);
  if (r == 0 && len < sizeof(sa_family_t)) r = -EINVAL;
  if (r < 0) {
    close(sock);
    return r;
  }
  struct sockaddr_un *un = (struct sockaddr_un *)&sa;
  size_t offset = offsetof(struct sockaddr_un, sun_path);
  if (sa.ss_family != AF_UNIX || len <= offset || un->sun_path[0] == 0) {
    r = bind(sock, (struct sockaddr *)&sa, len) == 0 ? 0 : -errno;
    close(sock);
    return r;
  }
  char path[sizeof un->sun_path + 1];
  size_t n = strnlen(un->sun_path, len - offset);
  memcpy(path, un->sun_path, n);
  path[n] = 0;
  struct place pl = {.dir = -1};
  int links = 0;
  struct sockaddr_un local = {.sun_family = AF_UNIX};
  if ((r = walk_from(c, AT_FDCWD, path, &pl, &links)) == 0 && (r = place_dot(c, &pl)) == 0 &&
      (r = place_name(&pl, local.sun_path, sizeof local.sun_path)) == 0) {
    if (guard_denied(g, pl.dir, pl.name)) {
      r = exists(&pl) ? -EADDRINUSE : -EACCES;
    } else if ((r = take_umask(c)) == 0) {
      /* bind() resolves a path from the binder's cwd: ours, put in the resolved directory. */
      if (fchdir(pl.dir) != 0) r = -errno;
      else r = bind(sock, (struct sockaddr *)&local, (socklen_t)(offset + strlen(local.sun_path) + 1)) == 0 ? 0 : -errno;
    }
  }
  place_close(&pl);
  close(sock);
  return r;
}

#define ARG(n) (req->data.args[n])
#define INT(n) ((int)(uint32_t)ARG(n))

void guard_answer(const struct guard_rules *g, int listener, const struct seccomp_notif *req) {
  struct caller c;
  long r = caller_open(&c, listener, req);
  if (r == -ESRCH) {
    caller_close(&c);
    return;
  }
  if (r == 0) {
    switch (req->data.nr) {
#ifdef __x86_64__
      case __NR_mkdir: r = make_dir(g, &c, AT_FDCWD, ARG(0), (mode_t)ARG(1)); break;
      case __NR_mknod: r = make_node(g, &c, AT_FDCWD, ARG(0), (mode_t)ARG(1), (unsigned)ARG(2)); break;
      case __NR_symlink: r = make_symlink(g, &c, ARG(0), AT_FDCWD, ARG(1)); break;
      case __NR_link: r = make_link(g, &c, AT_FDCWD, ARG(0), AT_FDCWD, ARG(1), 0); break;
      case __NR_rename: r = make_rename(g, &c, AT_FDCWD, ARG(0), AT_FDCWD, ARG(1), 0); break;
      case __NR_creat: r = make_open(g, &c, AT_FDCWD, ARG(0), O_CREAT | O_WRONLY | O_TRUNC, (mode_t)ARG(1)); break;
      case __NR_open: r = make_open(g, &c, AT_FDCWD, ARG(0), INT(1), (mode_t)ARG(2)); break;
#endif
      case __NR_mkdirat: r = make_dir(g, &c, INT(0), ARG(1), (mode_t)ARG(2)); break;
      case __NR_mknodat: r = make_node(g, &c, INT(0), ARG(1), (mode_t)ARG(2), (unsigned)ARG(3)); break;
      case __NR_symlinkat: r = make_symlink(g, &c, ARG(0), INT(1), ARG(2)); break;
      case __NR_linkat: r = make_link(g, &c, INT(0), ARG(1), INT(2), ARG(3), INT(4)); break;
#ifdef __NR_renameat
      case __NR_renameat: r = make_rename(g, &c, INT(0), ARG(1), INT(2), ARG(3), 0); break;
#endif
      case __NR_renameat2: r = make_rename(g, &c, INT(0), ARG(1), INT(2), ARG(3), (unsigned)ARG(4)); break;
      case __NR_openat: r = make_open(g, &c, INT(0), ARG(1), INT(2), (mode_t)ARG(3)); break;
      case __NR_bind: r = make_bind(g, &c, INT(0), ARG(1), (uint32_t)ARG(2)); break;
      default: r = -ENOSYS;
    }
  }
  caller_close(&c);
  if (r == ANSWERED) return;
  struct seccomp_notif_resp resp = {.id = req->id, .val = 0, .error = (int32_t)(r < 0 ? r : 0), .flags = 0};
  ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
}
