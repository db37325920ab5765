/*
 * A notified caller as the supervisor reaches it (its memory, root, cwd and descriptors through
 * the host's /proc), and path resolution as that caller's kernel would do it: one component at
 * a time, each opened O_NOFOLLOW relative to the last, symlinks read and followed here against
 * the caller's root, ".." never above it, and in the sandbox's /proc, "self" meaning the caller.
 * The result is the parent directory as a descriptor and the last component as a name: what
 * the call is then performed relative to, so nothing is resolved twice.
 */
#include "guard-internal.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PROC_ROOT_INO 1

int caller_open(struct caller *c, int listener, const struct seccomp_notif *req) {
  memset(c, 0, sizeof *c);
  c->listener = listener;
  c->id = req->id;
  c->tid = (pid_t)req->pid;
  c->dir = c->mem = -1;
  if (c->tid <= 0) return -EPERM;
  char name[16];
  snprintf(name, sizeof name, "%d", c->tid);
  c->dir = openat(guard_proc, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
  /* Only now is the directory known to be the caller's, not a later process with its number. */
  if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &c->id) != 0) return -ESRCH;
  return c->dir < 0 ? -EPERM : 0;
}

void caller_close(struct caller *c) {
  if (c->dir >= 0) close(c->dir);
  if (c->mem >= 0) close(c->mem);
  c->dir = c->mem = -1;
}

int caller_read(struct caller *c, uint64_t addr, void *buf, size_t size) {
  if (c->mem < 0) c->mem = openat(c->dir, "mem", O_RDONLY | O_CLOEXEC);
  if (c->mem < 0) return -EPERM;
  ssize_t n = pread(c->mem, buf, size, (off_t)addr);
  return n == (ssize_t)size ? 0 : -EFAULT;
}

/* Copies a NUL-terminated string once, a page at a time (it may end just before an unmapped one). */
int caller_string(struct caller *c, uint64_t addr, char *buf, size_t size) {
  if (c->mem < 0) c->mem = openat(c->dir, "mem", O_RDONLY | O_CLOEXEC);
  if (c->mem < 0) return -EPERM;
  size_t got = 0;
  while (got < size) {
    size_t chunk = 4096 - ((addr + got) & 4095);
    if (chunk > size - got) chunk = size - got;
    ssize_t n = pread(c->mem, buf + got, chunk, (off_t)(addr + got));
    if (n <= 0) return -EFAULT;
    char *nul = memchr(buf + got, 0, (size_t)n);
    if (nul) return (int)(nul - buf);
    got += (size_t)n;
  }
  return -ENAMETOOLONG;
}

/* The last number on a status line ("NSpid:\t812\t2": the innermost namespace's). */
static long last_number(const char *line) {
  const char *end = strchrnul(line, '\n');
  const char *p = end;
  while (p > line && p[-1] >= '0' && p[-1] <= '9') p--;
  return strtol(p, NULL, 10);
}

int caller_status(struct caller *c) {
  if (c->status_read) return 0;
  int fd = openat(c->dir, "status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -ESRCH;
  char buf[4096];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return -ESRCH;
  buf[n] = 0;
  const char *line = strstr(buf, "\nUmask:");
  const char *tgid = strstr(buf, "\nNStgid:");
  const char *pid = strstr(buf, "\nNSpid:");
  if (!line || !tgid || !pid) return -ESRCH;
  c->umask = (mode_t)strtol(line + 7, NULL, 8) & 0777;
  c->ns_tgid = (pid_t)last_number(tgid + 1);
  c->ns_tid = (pid_t)last_number(pid + 1);
  c->status_read = 1;
  return 0;
}

/*
 * The caller's root directory: the sandbox's, the same for every process in it (none has the
 * capability to chroot), so it is opened once, from the first caller.
 */
static int sandbox_root = -1;
static struct stat sandbox_root_st;

int caller_root(struct caller *c) {
  if (sandbox_root >= 0) return sandbox_root;
  int fd = openat(c->dir, "root", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return -ESRCH;
  if (fstat(fd, &sandbox_root_st) != 0) {
    close(fd);
    return -ESRCH;
  }
  sandbox_root = fd;
  return fd;
}

/* A descriptor for where the caller's relative paths start: its cwd, or its directory descriptor. */
int caller_dirfd(struct caller *c, int dfd) {
  char name[32];
  if (dfd == AT_FDCWD) {
    snprintf(name, sizeof name, "cwd");
  } else if (dfd < 0) {
    return -EBADF;
  } else {
    snprintf(name, sizeof name, "fd/%d", dfd);
  }
  int fd = openat(c->dir, name, O_PATH | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? -EBADF : -errno;
  return fd;
}

/*
 * Whether the caller may follow the magic links under /proc/<ns_pid>: its own thread group only.
 * (The kernel would also let it reach other processes of its Landlock domain; the supervisor
 * cannot tell domains apart, so it grants less rather than more.)
 */
int caller_owns(struct caller *c, pid_t ns_pid) {
  return caller_status(c) == 0 && (ns_pid == c->ns_tgid || ns_pid == c->ns_tid);
}

static int is_procfs(int fd) {
  struct statfs s;
  return fstatfs(fd, &s) == 0 && s.f_type == PROC_SUPER_MAGIC;
}

/* Moves *cur to its parent, except at the caller's root, where ".." stays. */
static int dotdot(struct caller *c, int *cur, struct stat *st) {
  int root = caller_root(c);
  if (root < 0) return root;
  if (st->st_dev == sandbox_root_st.st_dev && st->st_ino == sandbox_root_st.st_ino) return 0;
  int up = openat(*cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
  if (up < 0) return -errno;
  close(*cur);
  *cur = up;
  return fstat(up, st) == 0 ? 0 : -errno;
}

/* Puts `head` (and a slash) in front of `rest`, in `buf`, which `rest` may point into. */
static int prepend(char *buf, size_t size, const char *head, const char *rest) {
  size_t h = strlen(head), r = strlen(rest);
  if (h + 1 + r + 1 > size) return -ENAMETOOLONG;
  memmove(buf + h + 1, rest, r + 1);
  memcpy(buf, head, h);
  buf[h] = '/';
  return 0;
}

int walk(struct caller *c, int start, pid_t pid, const char *path, struct place *out, int *links) {
  size_t length = strlen(path);
  if (length == 0) return -ENOENT;
  if (length >= PATH_MAX) return -ENAMETOOLONG;
  char buf[2 * PATH_MAX];
  memcpy(buf, path, length + 1);
  char *p = buf;
  int root = caller_root(c);
  if (root < 0) return root;
  if (*p == '/') {
    start = root;
    pid = 0;
  }
  int cur = fcntl(start, F_DUPFD_CLOEXEC, 0);
  struct stat st;
  if (cur < 0 || fstat(cur, &st) != 0) {
    if (cur >= 0) close(cur);
    return -EBADF;
  }
  dev_t pid_dev = st.st_dev;
  int r = 0;
  for (;;) {
    while (*p == '/') p++;
    if (!*p) {
      /* Only slashes were left: the path names the directory itself ("/", or a link to "/"). */
      out->dir = cur;
      strcpy(out->name, ".");
      out->slash = 1;
      out->proc_pid = pid;
      return 0;
    }
    char *end = strchrnul(p, '/');
    size_t len = (size_t)(end - p);
    if (len > NAME_MAX) {
      r = -ENAMETOOLONG;
      break;
    }
    char comp[NAME_MAX + 1];
    memcpy(comp, p, len);
    comp[len] = 0;
    char *rest = end;
    while (*rest == '/') rest++;
    if (!*rest) {
      out->dir = cur;
      strcpy(out->name, comp);
      out->slash = *end == '/';
      out->proc_pid = pid;
      return 0;
    }
    p = rest;
    if (strcmp(comp, ".") == 0) continue;
    if (strcmp(comp, "..") == 0) {
      if ((r = dotdot(c, &cur, &st)) < 0) break;
      if (st.st_dev != pid_dev || st.st_ino == PROC_ROOT_INO) pid = 0;
      continue;
    }
    pid_t entered = 0;
    if (pid == 0 && st.st_ino == PROC_ROOT_INO && is_procfs(cur)) {
      /* The sandbox's /proc: "self" is the caller, not the supervisor (which it cannot see). */
      if (strcmp(comp, "self") == 0 || strcmp(comp, "thread-self") == 0) {
        if ((r = caller_status(c)) < 0) break;
        char head[64];
        if (comp[0] == 's') snprintf(head, sizeof head, "%d", c->ns_tgid);
        else snprintf(head, sizeof head, "%d/task/%d", c->ns_tgid, c->ns_tid);
        if ((r = prepend(buf, sizeof buf, head, p)) < 0) break;
        p = buf;
        continue;
      }
      char *digits;
      long number = strtol(comp, &digits, 10);
      if (!*digits && number > 0) entered = (pid_t)number;
    }
    int next = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    struct stat nst;
    if (next < 0) {
      r = -errno;
      break;
    }
    if (fstat(next, &nst) != 0) {
      r = -errno;
      close(next);
      break;
    }
    if (S_ISLNK(nst.st_mode)) {
      if (++*links > GUARD_MAX_LINKS) {
        r = -ELOOP;
        close(next);
        break;
      }
      if (pid > 0 && is_procfs(next)) {
        /* A magic link (/proc/PID/cwd, /proc/PID/fd/N): its target is no path; the kernel jumps. */
        close(next);
        if (!caller_owns(c, pid)) {
          r = -EACCES;
          break;
        }
        next = openat(cur, comp, O_PATH | O_CLOEXEC);
        if (next < 0 || fstat(next, &nst) != 0) {
          r = next < 0 ? -errno : -EBADF;
          if (next >= 0) close(next);
          break;
        }
        if (!S_ISDIR(nst.st_mode)) {
          r = -ENOTDIR;
          close(next);
          break;
        }
        close(cur);
        cur = next;
        st = nst;
        if (st.st_dev != pid_dev) pid = 0;
        continue;
      }
      char target[PATH_MAX];
      ssize_t n = readlinkat(next, "", target, sizeof target);
      close(next);
      if (n < 0 || n >= (ssize_t)sizeof target) {
        r = n < 0 ? -errno : -ENAMETOOLONG;
        break;
      }
      target[n] = 0;
      if ((r = prepend(buf, sizeof buf, target, p)) < 0) break;
      p = buf;
      if (*p == '/') {
        close(cur);
        cur = fcntl(root, F_DUPFD_CLOEXEC, 0);
        if (cur < 0) return -EMFILE;
        st = sandbox_root_st;
        pid = 0;
      }
      continue;
    }
    if (!S_ISDIR(nst.st_mode)) {
      r = -ENOTDIR;
      close(next);
      break;
    }
    close(cur);
    cur = next;
    if (entered) {
      pid = entered;
      pid_dev = st.st_dev;
    } else if (nst.st_dev != pid_dev) {
      pid = 0;
    }
    st = nst;
  }
  close(cur);
  return r;
}

/*
 * The common case in one call: openat2 resolves the directory part where the caller's kernel
 * would (RESOLVE_IN_ROOT from the caller's root for an absolute path, exactly its resolution;
 * RESOLVE_BENEATH from where a relative one starts), refusing magic links. Whatever it refuses
 * or fails on, and any directory in /proc (where "self" must be the caller), takes the walk,
 * which also gives the errors their caller's meaning. Returns 0, or -1 for "take the walk".
 */
static int quick(int base, int absolute, const char *path, struct place *out) {
  size_t n = strlen(path);
  while (n > 1 && path[n - 1] == '/') n--;
  const char *slash = memrchr(path, '/', n);
  const char *name = slash ? slash + 1 : path;
  size_t len = (size_t)(path + n - name);
  if (len == 0 || len > NAME_MAX || (name[0] == '.' && (len == 1 || (len == 2 && name[1] == '.')))) return -1;
  size_t dirlen = slash ? (size_t)(slash - path) : 0;
  int fd;
  if (dirlen == 0) {
    fd = fcntl(base, F_DUPFD_CLOEXEC, 0);
  } else {
    char dir[PATH_MAX];
    memcpy(dir, path, dirlen);
    dir[dirlen] = 0;
    struct open_how how = {
        .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
        .resolve = (absolute ? RESOLVE_IN_ROOT : RESOLVE_BENEATH) | RESOLVE_NO_MAGICLINKS,
    };
    fd = (int)syscall(SYS_openat2, base, dir, &how, sizeof how);
  }
  if (fd < 0) return -1;
  if (is_procfs(fd)) {
    close(fd);
    return -1;
  }
  out->dir = fd;
  memcpy(out->name, name, len);
  out->name[len] = 0;
  out->slash = path[n] == '/';
  out->proc_pid = 0;
  return 0;
}

int walk_from(struct caller *c, int dfd, const char *path, struct place *out, int *links) {
  if (path[0] == '/') {
    int root = caller_root(c);
    if (root < 0) return root;
    if (quick(root, 1, path, out) == 0) return 0;
    return walk(c, -1, 0, path, out, links);
  }
  if (path[0] == 0) return -ENOENT;
  int start = caller_dirfd(c, dfd);
  if (start < 0) return start;
  int r = quick(start, 0, path, out) == 0 ? 0 : walk(c, start, 0, path, out, links);
  close(start);
  return r;
}

int place_dot(struct caller *c, struct place *pl) {
  if (strcmp(pl->name, "..") != 0) return 0;
  struct stat st;
  if (fstat(pl->dir, &st) != 0) return -errno;
  int r = dotdot(c, &pl->dir, &st);
  strcpy(pl->name, ".");
  return r;
}

int follow_final(struct caller *c, struct place *pl, int *object, int *links) {
  *object = -1;
  for (;;) {
    if (strcmp(pl->name, ".") == 0 || strcmp(pl->name, "..") == 0) return 0;
    struct stat st;
    if (fstatat(pl->dir, pl->name, &st, AT_SYMLINK_NOFOLLOW) != 0) return errno == ENOENT ? 0 : -errno;
    if (!S_ISLNK(st.st_mode)) return 0;
    if (++*links > GUARD_MAX_LINKS) return -ELOOP;
    if (pl->proc_pid > 0 && is_procfs(pl->dir)) {
      if (!caller_owns(c, pl->proc_pid)) return -EACCES;
      *object = openat(pl->dir, pl->name, O_PATH | O_CLOEXEC);
      return *object < 0 ? -errno : 0;
    }
    char target[PATH_MAX];
    ssize_t n = readlinkat(pl->dir, pl->name, target, sizeof target);
    if (n < 0 || n >= (ssize_t)sizeof target) return n < 0 ? -errno : -ENAMETOOLONG;
    target[n] = 0;
    struct place next;
    int r = walk(c, pl->dir, pl->proc_pid, target, &next, links);
    if (r < 0) return r;
    place_close(pl);
    *pl = next;
  }
}

void place_close(struct place *pl) {
  if (pl->dir >= 0) close(pl->dir);
  pl->dir = -1;
}

/* The last component as the call should see it: with its trailing slash, which the kernel checks. */
int place_name(const struct place *pl, char *buf, size_t size) {
  int n = snprintf(buf, size, "%s%s", pl->name, pl->slash ? "/" : "");
  return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}
