/* cli/files.c: the command's outputs, written all or nothing, and the
 * signal handlers that clean them up. The command's own state: the library
 * writes one file at a time (io/file.c) and has no process-wide list and no
 * signal handler.
 *
 * Outputs (files.h says how to use them; the man page's OUTPUTS section what
 * a user can count on). Each output path is claimed before anything is
 * computed: its folder is opened and kept open, so that the temporary, the
 * rename and any undo all happen in the folder that was checked, whatever is
 * renamed or symlinked meanwhile, and two paths naming one file are found
 * (same folder by device and inode, same name; or the same existing file).
 * A temporary is created next to its output by io's ox_temp_create
 * (O_CREAT|O_EXCL|O_NOFOLLOW, an unpredictable name), so a file or symlink
 * planted there is never opened; the encoders stream into it;
 * ox_commit_files renames every one into place, or puts back what it had
 * renamed when one rename fails. */
#define _GNU_SOURCE /* O_PATH */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "files.h"

/* ---- outputs: the run's state ----
 * Changed only on the main thread with the cleanup signals blocked, and read
 * by the signal handler on that thread (other threads pass it the signal), so
 * the handler always sees whole lists. */

typedef struct { int fd; dev_t dev; ino_t ino; } folder;

/* The keys a pending output is found by (each with its own hash table). */
enum { BY_PATH, BY_NAME /* folder and name */, BY_FILE /* device and inode */, NKEYS };

typedef struct {
  char *path;            /* as given (for messages; ox_out_open finds it by this) */
  const char *base;      /* its last component, inside path */
  int dir;               /* its folder, in dirs[] */
  int exists;            /* something is at base (not followed): its dev and inode */
  dev_t dev;
  ino_t ino;
  uint64_t hash[NKEYS];
  char *tmp;             /* the temporary's name in the folder (room bytes) */
  volatile sig_atomic_t has_tmp;
  char *old;             /* commit: what base held, kept under this name ("" none) */
  size_t room;
  int moved;             /* commit: old was moved aside (no hard link), not linked */
  int done;              /* commit: renamed into place */
} pending;

/* A folder ox_mkdir_p made: its name in its parent (in dirs[]). */
typedef struct { int parent; char *name; } made_folder;
/* A folder path as ox_mkdir_p walked it to: outputs claimed in it go into
 * that folder (dirs[dir]), not into whatever the path names by then. */
typedef struct { char *path; int dir; } walked;

static pending *pend;
static int npend, cap_pend;
static folder *dirs;
static int ndirs, cap_dirs;
static made_folder *made; /* in the order made */
static int nmade, cap_made;
static walked *paths;
static int npaths, cap_paths;
static int *dir_table; /* dirs[] by device and inode: index + 1, 0 empty */
static size_t cap_dir_table;
/* open addressing: pend index + 1, 0 empty; cap_table a power of 2 */
static int *table[NKEYS];
static size_t cap_table;

static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
static int installed;
static pid_t owner;
static pthread_t owner_thread;
static sigset_t saved_mask;

static void block(void) {
  sigset_t s;
  sigemptyset(&s);
  for (size_t i = 0; i < sizeof cleanup_signals / sizeof *cleanup_signals; i++) sigaddset(&s, cleanup_signals[i]);
  pthread_sigmask(SIG_BLOCK, &s, &saved_mask);
}
static void unblock(void) { pthread_sigmask(SIG_SETMASK, &saved_mask, NULL); }

/* Async-signal-safe: unlinkat and rmdir only. */
static void remove_all(void) {
  for (int i = 0; i < npend; i++)
    if (pend[i].has_tmp) {
      unlinkat(dirs[pend[i].dir].fd, pend[i].tmp, 0);
      pend[i].has_tmp = 0;
    }
  /* deepest first, each in the folder it was made in; fails when not empty */
  for (int i = nmade; i-- > 0;) unlinkat(dirs[made[i].parent].fd, made[i].name, AT_REMOVEDIR);
}

static void on_signal(int sig) {
  if (getpid() == owner) { /* not in a forked child (onnxop test's workers) */
    if (!pthread_equal(pthread_self(), owner_thread)) {
      /* the main thread may be changing the lists with the signal blocked:
       * it takes the signal when they are whole again */
      pthread_kill(owner_thread, sig);
      return;
    }
    remove_all();
  }
  /* die of the signal (status 128 + sig): it is blocked here until we return */
  signal(sig, SIG_DFL);
  raise(sig);
  sigset_t s;
  sigemptyset(&s);
  sigaddset(&s, sig);
  pthread_sigmask(SIG_UNBLOCK, &s, NULL);
}

/* Once, before the first folder or temporary is made. A signal the process
 * was started with ignored (nohup) stays ignored. */
static void install(void) {
  if (installed) return;
  installed = 1;
  owner = getpid();
  owner_thread = pthread_self();
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (size_t i = 0; i < sizeof cleanup_signals / sizeof *cleanup_signals; i++)
    sigaddset(&sa.sa_mask, cleanup_signals[i]);
  for (size_t i = 0; i < sizeof cleanup_signals / sizeof *cleanup_signals; i++) {
    struct sigaction old;
    if (!sigaction(cleanup_signals[i], NULL, &old) && old.sa_handler != SIG_IGN)
      sigaction(cleanup_signals[i], &sa, NULL);
  }
  /* past RLIMIT_FSIZE a write then fails with EFBIG, which is reported and
   * cleaned up, instead of SIGXFSZ killing the process mid-write */
  signal(SIGXFSZ, SIG_IGN);
}

/* Room for one more element in *arr (signals blocked). */
static int grow(void **arr, int *cap, int n, size_t size) {
  if (n < *cap) return 0;
  int nc = *cap ? *cap * 2 : 8;
  void *p = ox_heap_realloc(*arr, (size_t)nc * size);
  if (!p) return -1;
  *arr = p;
  *cap = nc;
  return 0;
}

/* Drop the lists (signals blocked): after a commit, or once cleaned up. */
static void forget(void) {
  for (int i = 0; i < npend; i++) free(pend[i].path), free(pend[i].tmp);
  for (int i = 0; i < ndirs; i++) close(dirs[i].fd);
  for (int i = 0; i < nmade; i++) free(made[i].name);
  for (int i = 0; i < npaths; i++) free(paths[i].path);
  for (int k = 0; k < NKEYS; k++) free(table[k]), table[k] = NULL;
  free(dir_table);
  dir_table = NULL;
  cap_dir_table = 0;
  free(pend);
  free(dirs);
  free(made);
  free(paths);
  pend = NULL, dirs = NULL, made = NULL, paths = NULL;
  npend = cap_pend = ndirs = cap_dirs = nmade = cap_made = npaths = cap_paths = 0;
  cap_table = 0;
}

/* ---- finding a pending output by path, by folder and name, by file ----
 * (hash tables, so that a model with 100000 outputs is not quadratic) */

static uint64_t fnv(uint64_t h, const void *p, size_t n) { /* FNV-1a */
  for (size_t i = 0; i < n; i++) h = (h ^ ((const uint8_t *)p)[i]) * 1099511628211ull;
  return h;
}

static void set_hashes(pending *p) {
  const uint64_t basis = 1469598103934665603ull;
  p->hash[BY_PATH] = fnv(basis, p->path, strlen(p->path));
  p->hash[BY_NAME] = fnv(fnv(basis, &p->dir, sizeof p->dir), p->base, strlen(p->base));
  p->hash[BY_FILE] = fnv(fnv(basis, &p->dev, sizeof p->dev), &p->ino, sizeof p->ino);
}

static int same_key(int k, const pending *a, const pending *b) {
  if (k == BY_PATH) return !strcmp(a->path, b->path);
  if (k == BY_NAME) return a->dir == b->dir && !strcmp(a->base, b->base);
  return a->exists && b->exists && a->dev == b->dev && a->ino == b->ino;
}

/* The pending output whose key k is key's, or NULL. */
static pending *lookup(int k, const pending *key) {
  if (!cap_table) return NULL;
  size_t m = cap_table - 1;
  for (size_t i = key->hash[k] & m; table[k][i]; i = (i + 1) & m)
    if (same_key(k, &pend[table[k][i] - 1], key)) return &pend[table[k][i] - 1];
  return NULL;
}

static void table_put(int k, int idx) {
  size_t m = cap_table - 1, i = pend[idx].hash[k] & m;
  while (table[k][i]) i = (i + 1) & m;
  table[k][i] = idx + 1;
}

/* Index pend[idx] (keeping the tables at most half full). */
static int index_pending(int idx) {
  if ((size_t)(idx + 1) * 2 > cap_table) {
    size_t cap = cap_table ? cap_table * 2 : 64;
    int *t[NKEYS];
    for (int k = 0; k < NKEYS; k++)
      if (!(t[k] = ox_heap_calloc(cap, sizeof **t))) {
        while (k--) free(t[k]);
        return -1;
      }
    for (int k = 0; k < NKEYS; k++) free(table[k]), table[k] = t[k];
    cap_table = cap;
    for (int j = 0; j < idx; j++)
      for (int k = 0; k < NKEYS; k++)
        if (k != BY_FILE || pend[j].exists) table_put(k, j);
  }
  for (int k = 0; k < NKEYS; k++)
    if (k != BY_FILE || pend[idx].exists) table_put(k, idx);
  return 0;
}

/* dirs[] by device and inode, the same way (a suite of thousands of cases
 * keeps thousands of folders) */

static uint64_t folder_hash(dev_t dev, ino_t ino) {
  const uint64_t basis = 1469598103934665603ull;
  return fnv(fnv(basis, &dev, sizeof dev), &ino, sizeof ino);
}

static int find_folder(dev_t dev, ino_t ino) {
  if (!cap_dir_table) return -1;
  size_t m = cap_dir_table - 1;
  for (size_t i = folder_hash(dev, ino) & m; dir_table[i]; i = (i + 1) & m) {
    const folder *f = &dirs[dir_table[i] - 1];
    if (f->dev == dev && f->ino == ino) return dir_table[i] - 1;
  }
  return -1;
}

static void folder_put(int idx) {
  size_t m = cap_dir_table - 1, i = folder_hash(dirs[idx].dev, dirs[idx].ino) & m;
  while (dir_table[i]) i = (i + 1) & m;
  dir_table[i] = idx + 1;
}

/* Room in the table for n folders (at most half full). */
static int index_folder(int n) {
  if ((size_t)n * 2 <= cap_dir_table) return 0;
  size_t cap = cap_dir_table ? cap_dir_table * 2 : 64;
  int *t = ox_heap_calloc(cap, sizeof *t);
  if (!t) return -1;
  free(dir_table);
  dir_table = t;
  cap_dir_table = cap;
  for (int j = 0; j < ndirs; j++) folder_put(j);
  return 0;
}

/* The folder fd (open, its stat in st) in dirs[]: its index, the fd kept
 * or, when dirs[] has that folder already, closed. -1 when out of memory
 * (fd closed). Signals blocked. */
static int keep_folder(int fd, const struct stat *st) {
  int k = find_folder(st->st_dev, st->st_ino);
  if (k >= 0) {
    close(fd);
    return k;
  }
  if (grow((void **)&dirs, &cap_dirs, ndirs, sizeof *dirs) || index_folder(ndirs + 1)) {
    close(fd);
    return -1;
  }
  dirs[ndirs] = (folder){fd, st->st_dev, st->st_ino};
  folder_put(ndirs);
  return ndirs++;
}

/* The folder ox_mkdir_p walked to by exactly this path, or -1. */
static int walked_to(const char *path) {
  for (int k = npaths; k-- > 0;)
    if (!strcmp(paths[k].path, path)) return paths[k].dir;
  return -1;
}

/* Component name of a folder (in dirs[parent]) that could not be opened or
 * made: the error, naming the whole path (a symlink: the path up to it). */
static int folder_error(int parent, const char *name, const char *dir, size_t upto, int er, ox_err *e) {
  struct stat st;
  if (er == ENOMEM) return ox_oom(e, NULL);
  if ((er == ENOTDIR || er == ELOOP) && !fstatat(dirs[parent].fd, name, &st, AT_SYMLINK_NOFOLLOW) &&
      S_ISLNK(st.st_mode))
    return ox_fail(e, OX_EINPUT, "%.*s: a symbolic link where onnxop writes a folder of its own; not followed "
                   "(onnxop follows only the links in the path it is given: remove it first)", (int)upto, dir);
  return ox_fail(e, OX_EINPUT, "%s: cannot create the folder: %s", dir, strerror(er));
}

int ox_mkdir_p(const char *dir, size_t named, ox_err *e) {
  if (!*dir) return ox_fail(e, OX_EUSAGE, "an empty path names no folder");
  install();
  int rc = 0, cur;
  /* from "/" or the working folder, one component at a time, each opened
   * from the folder above it (openat), never by the whole path again */
  int fd = open(dir[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
  struct stat st;
  if (fd < 0 || fstat(fd, &st)) {
    int er = errno;
    if (fd >= 0) close(fd);
    return ox_fail(e, OX_EINPUT, "%s: cannot create the folder: %s", dir, strerror(er));
  }
  block();
  cur = keep_folder(fd, &st);
  unblock();
  if (cur < 0) return ox_oom(e, NULL);
  for (const char *a = dir; *a && !rc;) {
    while (*a == '/') a++;
    const char *b = a;
    while (*b && *b != '/') b++;
    if (a == b) break;
    char *name = ox_heap_strndup(a, (size_t)(b - a));
    if (!name) {
      rc = ox_oom(e, NULL);
      break;
    }
    /* a component the command line named is followed as it wrote it; one
     * onnxop added (a suite's case, test_data_set_K) never is */
    int own = (size_t)(b - dir) > named;
    fd = openat(dirs[cur].fd, name, O_PATH | O_DIRECTORY | O_CLOEXEC | (own ? O_NOFOLLOW : 0));
    int er = errno;
    if (fd < 0 && er == ENOENT) {
      block(); /* made and recorded at once: a signal removes it again */
      if (!mkdirat(dirs[cur].fd, name, 0777)) {
        if (grow((void **)&made, &cap_made, nmade, sizeof *made)) {
          unlinkat(dirs[cur].fd, name, AT_REMOVEDIR);
          er = ENOMEM;
        } else {
          made[nmade++] = (made_folder){cur, name};
          name = NULL; /* made[] has it */
          er = 0;
        }
      } else {
        er = errno; /* EEXIST: made meanwhile, by another; opened below as any */
      }
      unblock();
      if (!er || er == EEXIST) { /* a folder made here: never a symlink put there since */
        const char *nm = name ? name : made[nmade - 1].name;
        own |= !name;
        fd = openat(dirs[cur].fd, nm, O_PATH | O_DIRECTORY | O_CLOEXEC | (own ? O_NOFOLLOW : 0));
        er = errno;
      }
    }
    if (fd < 0 || fstat(fd, &st)) {
      if (fd >= 0) er = errno, close(fd);
      rc = folder_error(cur, name ? name : made[nmade - 1].name, dir, (size_t)(b - dir), er, e);
    } else {
      block();
      int k = keep_folder(fd, &st);
      unblock();
      if (k < 0) rc = ox_oom(e, NULL);
      cur = k;
    }
    free(name);
    a = b;
  }
  /* outputs claimed in dir later go into the folder found here */
  if (!rc && walked_to(dir) != cur) {
    char *copy = ox_heap_strdup(dir);
    block();
    if (!copy || grow((void **)&paths, &cap_paths, npaths, sizeof *paths)) {
      free(copy);
      rc = ox_oom(e, NULL);
    } else {
      paths[npaths++] = (walked){copy, cur};
    }
    unblock();
  }
  return rc;
}

int ox_out_folder_fd(const char *dir) {
  int k = walked_to(dir);
  return k < 0 ? -1 : dirs[k].fd;
}

static pending *find_pending(const char *path) {
  pending key = {.path = (char *)path, .base = ""};
  set_hashes(&key);
  return lookup(BY_PATH, &key);
}

int ox_claim_output(const char *path, ox_err *e) {
  if (!path || !*path) return ox_fail(e, OX_EUSAGE, "an empty path names no file");
  const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
  if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
    return ox_fail(e, OX_EINPUT, "names a folder, not a file");
  if (strlen(base) > NAME_MAX) return ox_fail(e, OX_EINPUT, "cannot write: %s", strerror(ENAMETOOLONG));
  char *dname = slash ? ox_heap_strndup(path, slash == path ? 1 : (size_t)(slash - path)) : ox_heap_strdup(".");
  if (!dname) return ox_oom(e, NULL);
  install();
  /* a folder ox_mkdir_p walked to is the one it checked; another is opened
   * here (O_PATH: a folder we may write in but not list is fine) */
  int dir = walked_to(dname), dfd = -1, er = 0;
  struct stat ds, st;
  if (dir < 0) {
    dfd = open(dname, O_PATH | O_DIRECTORY | O_CLOEXEC), er = errno;
    if (dfd < 0 || fstat(dfd, &ds)) {
      if (dfd >= 0) er = errno, close(dfd);
      free(dname);
      return ox_fail(e, OX_EINPUT, "cannot write: %s", strerror(er));
    }
    dir = find_folder(ds.st_dev, ds.st_ino);
  }
  free(dname);
  int exists = !fstatat(dir >= 0 ? dirs[dir].fd : dfd, base, &st, AT_SYMLINK_NOFOLLOW);
  int rc = 0;
  /* dir < 0 (a new folder) cannot match a pending output's; -2 is no index */
  pending key = {.path = (char *)path, .base = base, .dir = dir < 0 ? -2 : dir, .exists = exists,
                 .dev = exists ? st.st_dev : 0, .ino = exists ? st.st_ino : 0};
  set_hashes(&key);
  const pending *same;
  if (exists && S_ISDIR(st.st_mode)) rc = ox_fail(e, OX_EINPUT, "is a folder");
  else if ((same = lookup(BY_NAME, &key)))
    rc = ox_fail(e, OX_EUSAGE, "is given for two outputs (also as '%s')", same->path);
  else if ((same = lookup(BY_FILE, &key)))
    rc = ox_fail(e, OX_EUSAGE, "is the same file as '%s' (a hard link)", same->path);
  /* room for "BASE.tmp.XXXXXXXXXXXX" (and .old.), BASE cut to OX_TEMP_KEPT bytes */
  size_t room = (strlen(base) < OX_TEMP_KEPT ? strlen(base) : OX_TEMP_KEPT) + 32;
  char *copy = rc ? NULL : ox_heap_strdup(path), *names = rc ? NULL : ox_heap_calloc(2, room);
  if (!rc && (!copy || !names)) rc = ox_oom(e, NULL);
  if (!rc) {
    block();
    if (dir < 0) {
      dir = keep_folder(dfd, &ds); /* kept, or closed */
      dfd = -1;
    }
    if (dir < 0 || grow((void **)&pend, &cap_pend, npend, sizeof *pend)) {
      rc = ox_oom(e, NULL);
    } else {
      pending *p = &pend[npend];
      *p = key;
      p->path = copy;
      p->base = copy + (base - path);
      p->dir = dir;
      p->tmp = names;
      p->old = names + room;
      p->room = room;
      set_hashes(p);
      if (index_pending(npend)) {
        rc = ox_oom(e, NULL);
      } else {
        npend++;
        copy = names = NULL;
      }
    }
    unblock();
  }
  free(copy);
  free(names);
  if (dfd >= 0 && (dir < 0 || dirs[dir].fd != dfd)) close(dfd);
  return rc;
}

int ox_out_open(ox_out *o, const char *path, ox_err *e) {
  ox_out_fd(o, -1);
  pending *p = find_pending(path);
  if (!p) {
    OX_TRY(ox_claim_output(path, e));
    p = &pend[npend - 1];
  }
  if (p->has_tmp) return ox_fail(e, OX_EUSAGE, "is given for two outputs");
  block(); /* created and recorded at once: a signal removes it again */
  int fd = ox_temp_create(dirs[p->dir].fd, p->base, p->tmp, p->room), er = errno;
  if (fd >= 0) p->has_tmp = 1;
  unblock();
  if (fd < 0) return ox_fail(e, OX_EINPUT, "cannot write: %s", strerror(er));
  ox_out_fd(o, fd);
  return 0;
}

int ox_write_file_tmp(const char *path, const ox_buf *b, ox_err *e) {
  ox_out o;
  OX_TRY(ox_out_open(&o, path, e));
  ox_out_put(&o, b->p, b->n);
  return ox_out_close(&o, e);
}

/* ---- commit: all or nothing ---- */

/* Test hook (tests/cli/files.py), in the test build only (core/arena.h):
 * ONNXOP_TEST_FAIL_RENAME=K makes the K-th rename into place fail with EIO,
 * as a full or failing disk could. */
static int rename_into_place(int dfd, const char *from, const char *to, int k) {
#ifdef OX_FAULT_INJECTION
  const char *hook = getenv("ONNXOP_TEST_FAIL_RENAME");
  if (hook && atoi(hook) == k) {
    errno = EIO;
    return -1;
  }
#else
  (void)k;
#endif
  return renameat(dfd, from, dfd, to);
}

/* Rename p's temporary over its output (the k-th rename), keeping what was
 * there under p->old so that a later failure can put it back. */
static int put_in_place(pending *p, int k, ox_err *e) {
  int dfd = dirs[p->dir].fd;
  struct stat st;
  p->old[0] = 0;
  if (!fstatat(dfd, p->base, &st, AT_SYMLINK_NOFOLLOW)) {
    if (S_ISDIR(st.st_mode)) return ox_fail(e, OX_EINPUT, "%s: is a folder", p->path);
    for (int tries = 0;; tries++) {
      char tag[13];
      ox_temp_tag(tag);
      snprintf(p->old, p->room, "%.*s.old.%s", OX_TEMP_KEPT, p->base, tag);
      /* a second name for the old file (a symlink stays a symlink) */
      if (!linkat(dfd, p->base, dfd, p->old, 0)) break;
      if (errno == EEXIST && tries < 100) continue;
      /* no hard links here (some file systems): move it aside instead */
      if (errno != EEXIST && !renameat(dfd, p->base, dfd, p->old)) {
        p->moved = 1;
        break;
      }
      int er = errno;
      p->old[0] = 0;
      return ox_fail(e, OX_EINPUT, "%s: cannot keep the file it replaces until the end: %s", p->path, strerror(er));
    }
  }
  if (rename_into_place(dfd, p->tmp, p->base, k)) {
    int er = errno;
    if (p->moved && !renameat(dfd, p->old, dfd, p->base)) p->old[0] = 0;
    else if (!p->moved && p->old[0] && !unlinkat(dfd, p->old, 0)) p->old[0] = 0;
    return ox_fail(e, OX_EINPUT, "%s: cannot rename into place: %s", p->path, strerror(er));
  }
  p->has_tmp = 0;
  p->done = 1;
  return 0;
}

/* What put_in_place did to the outputs before the one that failed, undone;
 * said at the end of e's message. */
static void undo(ox_err *e) {
  char note[1024] = "";
  size_t k = 0;
  for (int i = npend; i-- > 0;) {
    pending *p = &pend[i];
    int dfd = dirs[p->dir].fd;
    if (!p->done) continue;
    const char *sep = k ? ", " : "";
    if (p->old[0] && !renameat(dfd, p->old, dfd, p->base))
      k += (size_t)snprintf(note + k, sizeof note - k, "%s'%s' put back as it was", sep, p->path);
    else if (p->old[0])
      k += (size_t)snprintf(note + k, sizeof note - k, "%s'%s' NOT put back: its old content is in '%.*s%s'", sep,
                            p->path, (int)(p->base - p->path), p->path, p->old);
    else if (!unlinkat(dfd, p->base, 0))
      k += (size_t)snprintf(note + k, sizeof note - k, "%s'%s' removed", sep, p->path);
    else
      k += (size_t)snprintf(note + k, sizeof note - k, "%s'%s' NOT removed: %s", sep, p->path, strerror(errno));
    if (k >= sizeof note) k = sizeof note - 1;
    p->old[0] = 0;
  }
  if (k) {
    size_t m = strlen(e->msg);
    snprintf(e->msg + m, sizeof e->msg - m, "; undone: %s", note);
  }
}

int ox_commit_files(ox_err *e) {
  int rc = 0;
  block(); /* a signal now waits until the outputs are all in place, or none */
  for (int i = 0; i < npend && !rc; i++)
    if (pend[i].has_tmp) rc = put_in_place(&pend[i], i + 1, e);
  if (rc) undo(e);
  for (int i = 0; i < npend; i++)
    if (pend[i].old[0]) unlinkat(dirs[pend[i].dir].fd, pend[i].old, 0);
  if (rc) remove_all();
  forget();
  unblock();
  return rc;
}

void ox_discard_files(void) {
  block();
  remove_all();
  forget();
  unblock();
}

/* The encoders stream into the temporary (a bounded chunk at a time): a
 * value is never encoded whole in memory. */
int ox_save_value(const char *path, ox_format f, const ox_value *v, const char *name, ox_err *e) {
  if (f == OX_FMT_NPZ) return ox_save_npz(path, 1, &v, &name, e);
  if (f == OX_FMT_NPY) OX_TRY(ox_npy_can_hold(v, e)); /* before any file is made */
  ox_out o;
  OX_TRY(ox_out_open(&o, path, e));
  int rc = f == OX_FMT_JSON ? ox_json_write(v, name, &o, e)
           : f == OX_FMT_NPY ? ox_npy_write(v, &o, e)
                             : ox_pb_write(v, name, &o, e);
  int rc2 = ox_out_close(&o, e);
  return rc ? rc : rc2;
}

int ox_save_npz(const char *path, int n, const ox_value *const *v, const char *const *names, ox_err *e) {
  ox_out o;
  OX_TRY(ox_out_open(&o, path, e));
  int rc = ox_npz_write(n, v, names, &o, e);
  int rc2 = ox_out_close(&o, e);
  return rc ? rc : rc2;
}
