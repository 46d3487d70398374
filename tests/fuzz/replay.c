/* tests/fuzz/replay.c: runs a fuzz harness over files (the committed
 * regression corpus), without libFuzzer, so `make check` replays every input
 * that once crashed, under the sanitizers. Prints "fuzz-NAME: N passed, 0 failed";
 * a crash fails the run. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int run_file(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  uint8_t *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    if (n == cap) {
      cap = cap ? cap * 2 : 65536;
      uint8_t *nb = realloc(buf, cap);
      if (!nb) break;
      buf = nb;
    }
    size_t r = fread(buf + n, 1, cap - n, f);
    if (!r) break;
    n += r;
  }
  fclose(f);
  LLVMFuzzerTestOneInput(buf, n);
  free(buf);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: replay NAME DIR...\n");
    return 2;
  }
  int n = 0;
  for (int i = 2; i < argc; i++) {
    DIR *d = opendir(argv[i]);
    struct dirent *de;
    while (d && (de = readdir(d))) {
      if (de->d_name[0] == '.') continue;
      char p[4096];
      snprintf(p, sizeof p, "%s/%s", argv[i], de->d_name);
      if (!run_file(p)) n++;
    }
    if (d) closedir(d);
  }
  printf("fuzz-%s: %d passed, 0 failed\n", argv[1], n);
  return 0;
}
