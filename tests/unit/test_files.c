/* tests/unit/test_files.c: io/file.c, the command's outputs (cli/files.c)
 * and the ox_out stream (io/buf.c).
 * Encoding into a file through the bounded chunk gives the bytes encoding into
 * a buffer gives, for every format, across chunk boundaries, with the .npz
 * CRCs patched in; a FIFO, a folder and a device are refused without waiting;
 * paths that name one file are refused; temporaries are where and what they
 * should be; a discarded run removes its temporaries and the folders it made
 * (only those, only when empty). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "cli/files.h"
#include "io/io.h"

static ox_arena *A;
static char dir[] = "/tmp/onnxop-test-files-XXXXXX";

static const char *at(const char *name) {
  static char p[4][512];
  static int k;
  k = (k + 1) % 4;
  snprintf(p[k], sizeof p[k], "%s/%s", dir, name);
  return p[k];
}

static int exists(const char *name) {
  struct stat st;
  return !lstat(at(name), &st);
}

/* The names in dir that contain part. */
static int count_names(const char *part) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *de; d && (de = readdir(d));) n += strstr(de->d_name, part) != NULL;
  if (d) closedir(d);
  return n;
}

static ox_value *floats(int64_t n) {
  ox_value *v = NULL;
  ox_err e = {0};
  if (ox_tensor_new(A, OX_FLOAT, 1, &n, &v, &e)) return NULL;
  for (int64_t i = 0; i < n; i++) ((float *)v->u.t.data)[i] = (float)i * 0.5f;
  return v;
}

static ox_value *strings(void) {
  static const char *const s[] = {"a", "", "h\xc3\xa9llo", "\xe2\x82\xac\xf0\x9f\x98\x80"};
  ox_value *v = NULL;
  ox_err e = {0};
  int64_t n = 4;
  if (ox_tensor_new(A, OX_STRING, 1, &n, &v, &e)) return NULL;
  for (int i = 0; i < 4; i++) ((ox_str *)v->u.t.data)[i] = (ox_str){s[i], (int64_t)strlen(s[i])};
  return v;
}

/* Encode v (fmt) into a buffer and, through ox_save_value, into a file: the
 * same bytes. */
static void same_bytes(const char *name, ox_format fmt, const ox_value *v) {
  ox_buf b = {0};
  ox_err e = {0};
  int rc;
  const ox_value *vals[2] = {v, v};
  const char *names[2] = {"first", "second"};
  switch (fmt) {
  case OX_FMT_PB: rc = ox_pb_encode(v, "x", &b, &e); break;
  case OX_FMT_JSON: rc = ox_json_encode(v, "x", &b, &e); break;
  case OX_FMT_NPY: rc = ox_npy_encode(v, &b, &e); break;
  default: rc = ox_npz_encode(2, vals, names, &b, &e); break;
  }
  CHECK_EQ_I(rc, 0);
  rc = fmt == OX_FMT_NPZ ? ox_save_npz(at(name), 2, vals, names, &e) : ox_save_value(at(name), fmt, v, "x", &e);
  CHECK_EQ_I(rc, 0);
  CHECK_EQ_I(ox_commit_files(&e), 0);
  uint8_t *data = NULL;
  size_t len = 0;
  CHECK_EQ_I(ox_read_file(A, at(name), &data, &len, &e), 0);
  CHECK_EQ_I(len, b.n);
  CHECK(data && b.p && len == b.n && !memcmp(data, b.p, len));
  if (fmt == OX_FMT_NPZ) { /* the patched CRCs check out when read back */
    ox_value *w = NULL;
    CHECK_EQ_I(ox_npz_decode(A, data, len, "second", NULL, &w, NULL, &e), 0);
  }
  ox_buf_free(&b);
}

static void test_streaming(void) {
  ox_value *big = floats(3 << 18); /* 3 MiB: three chunks and a bit */
  ox_value *small = floats(5), *str = strings();
  same_bytes("big.pb", OX_FMT_PB, big);
  same_bytes("big.npy", OX_FMT_NPY, big);
  same_bytes("big.npz", OX_FMT_NPZ, big); /* the first member's CRC goes into a header already written */
  same_bytes("small.npz", OX_FMT_NPZ, small); /* ... and into one still in the chunk */
  same_bytes("big.json", OX_FMT_JSON, floats(1 << 17));
  same_bytes("str.pb", OX_FMT_PB, str);
  same_bytes("str.json", OX_FMT_JSON, str);
  same_bytes("str.npy", OX_FMT_NPY, str);
  same_bytes("str.npz", OX_FMT_NPZ, str);

  /* ox_out_patch: into the buffer, and into the file past the chunk */
  ox_buf b = {0};
  ox_out o;
  ox_out_buf(&o, &b);
  ox_out_put(&o, "abcdef", 6);
  CHECK_EQ_I(ox_out_patch(&o, 2, "XY", 2), 0);
  CHECK_EQ_I(ox_out_patch(&o, 5, "XY", 2), -1); /* past the end */
  CHECK_EQ_I(o.err, EINVAL);
  CHECK_EQ_S((char *)b.p, "abXYef");
  ox_out_finish(&o);
  ox_buf_free(&b);
}

static void test_reading(void) {
  const char *why = NULL;
  CHECK(mkfifo(at("fifo"), 0600) == 0);
  CHECK(ox_open_regular(at("fifo"), &why) == NULL); /* would wait for a writer without O_NONBLOCK */
  CHECK_EQ_S(why, "not a regular file (a FIFO)");
  CHECK(ox_open_regular(dir, &why) == NULL);
  CHECK_EQ_S(why, "not a regular file (a folder)");
  CHECK(ox_open_regular("/dev/null", &why) == NULL);
  CHECK_EQ_S(why, "not a regular file (a character device)");
  CHECK(ox_open_regular(at("nope"), &why) == NULL);
  CHECK_EQ_S(why, strerror(ENOENT));
  FILE *f = ox_open_regular(at("big.pb"), &why);
  CHECK(f != NULL);
  if (f) { /* and it reads as a blocking stream */
    CHECK(!(fcntl(fileno(f), F_GETFL) & O_NONBLOCK));
    fclose(f);
  }
  ox_err e = {0};
  uint8_t *data;
  size_t len;
  CHECK_EQ_I(ox_read_file(A, at("fifo"), &data, &len, &e), OX_EINPUT);
  CHECK_EQ_S(e.msg, "cannot open: not a regular file (a FIFO)");
}

static void test_claims(void) {
  ox_err e = {0};
  CHECK_EQ_I(ox_claim_output("", &e), OX_EUSAGE);
  ox_err_clear(&e);
  CHECK_EQ_I(ox_claim_output(at("a.pb"), &e), 0);
  CHECK_EQ_I(ox_claim_output(at("./a.pb"), &e), OX_EUSAGE);
  CHECK(strstr(e.msg, "is given for two outputs (also as '") != NULL);
  ox_err_clear(&e);
  CHECK_EQ_I(ox_claim_output(at("a.pb"), &e), OX_EUSAGE);
  ox_err_clear(&e);
  CHECK_EQ_I(ox_claim_output(at("nodir/a.pb"), &e), OX_EINPUT);
  ox_err_clear(&e);
  CHECK_EQ_I(ox_claim_output(at("sub/"), &e), OX_EINPUT);
  ox_err_clear(&e);
  CHECK_EQ_I(ox_claim_output(dir, &e), OX_EINPUT); /* a folder */
  ox_err_clear(&e);
  ox_discard_files();

  /* a temporary: next to its output, OUT.tmp.<12 characters>, 0666 & ~umask */
  mode_t old = umask(027);
  ox_out o;
  CHECK_EQ_I(ox_out_open(&o, at("t.pb"), &e), 0);
  CHECK_EQ_I(count_names("t.pb.tmp."), 1);
  DIR *d = opendir(dir);
  for (struct dirent *de; d && (de = readdir(d));)
    if (!strncmp(de->d_name, "t.pb.tmp.", 9)) {
      struct stat st;
      CHECK_EQ_I(strlen(de->d_name), 9 + 12);
      CHECK(!lstat(at(de->d_name), &st) && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0640);
    }
  if (d) closedir(d);
  umask(old);
  CHECK_EQ_I(ox_out_close(&o, &e), 0);
  CHECK(!exists("t.pb"));
  ox_discard_files();
  CHECK_EQ_I(count_names("t.pb.tmp."), 0);
  CHECK(!exists("t.pb"));
}

static void test_made_folders(void) {
  ox_err e = {0};
  /* made folders go, deepest first; one that existed stays, as does one that
   * is not empty */
  CHECK(mkdir(at("keep"), 0777) == 0);
  CHECK_EQ_I(ox_mkdir_p(at("keep/m/n/o"), strlen(at("keep/m/n/o")), &e), 0);
  CHECK_EQ_I(ox_mkdir_p(at("keep/full/x"), strlen(at("keep/full/x")), &e), 0);
  FILE *f = fopen(at("keep/full/file"), "w");
  if (f) fclose(f);
  CHECK_EQ_I(ox_save_value(at("keep/m/n/o/y.pb"), OX_FMT_PB, floats(3), "y", &e), 0);
  ox_discard_files();
  CHECK(exists("keep"));
  CHECK(!exists("keep/m"));
  CHECK(!exists("keep/full/x"));
  CHECK(exists("keep/full/file"));
  /* after a commit, they stay */
  CHECK_EQ_I(ox_mkdir_p(at("made/a"), strlen(at("made/a")), &e), 0);
  CHECK_EQ_I(ox_save_value(at("made/a/y.pb"), OX_FMT_PB, floats(3), "y", &e), 0);
  CHECK_EQ_I(ox_commit_files(&e), 0);
  CHECK(exists("made/a/y.pb"));
  ox_discard_files();
  CHECK(exists("made/a/y.pb"));
  /* a failed mkdir -p removes what it made on the way */
  char longname[400];
  memset(longname, 'd', sizeof longname - 1);
  longname[sizeof longname - 1] = 0;
  char p[600];
  snprintf(p, sizeof p, "long/%s", longname);
  CHECK_EQ_I(ox_mkdir_p(at(p), strlen(at(p)), &e), OX_EINPUT);
  CHECK(strstr(e.msg, strerror(ENAMETOOLONG)) != NULL);
  CHECK(exists("long"));
  ox_discard_files();
  CHECK(!exists("long"));
}

/* Folders: no symlink past the part of the path the command line gave is
 * followed, and outputs go into the folder ox_mkdir_p checked, whatever the
 * path names by the time they are written. */
static void test_folder_links(void) {
  ox_err e = {0};
  CHECK(mkdir(at("victim"), 0777) == 0);
  CHECK(mkdir(at("s"), 0777) == 0);
  CHECK(symlink(at("victim"), at("s/t")) == 0);
  /* s/t planted, s named: refused, nothing made or written */
  ox_err_clear(&e);
  CHECK_EQ_I(ox_mkdir_p(at("s/t/test_data_set_0"), strlen(at("s")), &e), OX_EINPUT);
  CHECK(strstr(e.msg, "s/t: a symbolic link where onnxop writes a folder of its own") != NULL);
  ox_discard_files();
  CHECK(!exists("victim/test_data_set_0"));
  /* s/t named: followed, as the user wrote it */
  ox_err_clear(&e);
  CHECK_EQ_I(ox_mkdir_p(at("s/t/test_data_set_0"), strlen(at("s/t")), &e), 0);
  ox_discard_files();
  CHECK(!exists("victim/test_data_set_0")); /* made, and removed again */
  /* a folder made, then swapped for a symlink before its outputs: they
   * still go into the folder made, never through the link */
  ox_err_clear(&e);
  CHECK_EQ_I(ox_mkdir_p(at("race/d"), strlen(at("race")), &e), 0);
  CHECK(rename(at("race/d"), at("race/moved")) == 0);
  CHECK(symlink(at("victim"), at("race/d")) == 0);
  CHECK_EQ_I(ox_mkdir_p(at("race/d"), strlen(at("race")), &e), OX_EINPUT); /* walked again: refused */
  CHECK_EQ_I(ox_save_value(at("race/d/y.pb"), OX_FMT_PB, floats(3), "y", &e), 0);
  CHECK_EQ_I(ox_commit_files(&e), 0);
  CHECK(exists("race/moved/y.pb"));
  CHECK(!exists("victim/y.pb"));
  /* the same for a folder the command line named (run --out-dir DIR) */
  ox_err_clear(&e);
  CHECK_EQ_I(ox_mkdir_p(at("named"), strlen(at("named")), &e), 0);
  CHECK(rename(at("named"), at("named_moved")) == 0);
  CHECK(symlink(at("victim"), at("named")) == 0);
  CHECK_EQ_I(ox_save_value(at("named/y.pb"), OX_FMT_PB, floats(3), "y", &e), 0);
  CHECK_EQ_I(ox_commit_files(&e), 0);
  CHECK(exists("named_moved/y.pb"));
  CHECK(!exists("victim/y.pb"));
  /* a discarded run removes what it made in the folder it made it in, not
   * in a folder a symlink swapped in has put under that name */
  ox_err_clear(&e);
  CHECK(mkdir(at("victim/m"), 0777) == 0);
  CHECK_EQ_I(ox_mkdir_p(at("swap/m"), strlen(at("swap")), &e), 0);
  CHECK(rename(at("swap"), at("swap_moved")) == 0);
  CHECK(symlink(at("victim"), at("swap")) == 0);
  ox_discard_files();
  CHECK(exists("victim/m"));
  CHECK(!exists("swap_moved/m"));
}

int main(void) {
  A = ox_arena_new();
  if (!mkdtemp(dir)) {
    perror(dir);
    return 1;
  }
  test_streaming();
  test_reading();
  test_claims();
  test_made_folders();
  test_folder_links();
  ox_arena_free(A);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
  return check_done("files");
}
