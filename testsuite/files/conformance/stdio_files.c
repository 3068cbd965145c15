/* stdio on regular files: fopen modes w, r, a, r+; fprintf and fputs
 * buffered until fflush (the file's size shows it); fgets line by line;
 * fseek/ftell/rewind; fread/fwrite; fopen of a missing file in mode r. */
#include "files_common.h"

int main(void) {
  files_setup();
  char line[128];
  FILE *f = fopen(at("log.txt"), "w");
  expect("fopen w", f != NULL);
  for (int i = 1; i <= 3; i++) fprintf(f, "line %d of %d\n", i, 3);
  printf("size before fflush: %ld\n", file_size(at("log.txt")));
  show("fflush", fflush(f));
  printf("size after fflush: %ld\n", file_size(at("log.txt")));
  show("ftell", ftell(f));
  show("fclose", fclose(f));

  f = fopen(at("log.txt"), "a");
  fputs("appended\n", f);
  fclose(f);

  f = fopen(at("log.txt"), "r");
  int n = 0;
  while (fgets(line, sizeof line, f)) printf("fgets %d: %s", ++n, line);
  printf("feof=%d ferror=%d\n", feof(f), ferror(f));
  show("fseek to 5", fseek(f, 5, SEEK_SET));
  printf("after fseek: %s", fgets(line, sizeof line, f) ? line : "(none)\n");
  show("ftell", ftell(f));
  rewind(f);
  show("fgetc after rewind", fgetc(f));
  fclose(f);

  f = fopen(at("log.txt"), "r+");
  show("fseek to 0 in r+", fseek(f, 0, SEEK_SET));
  show("fwrite LINE", (long)fwrite("LINE", 1, 4, f));
  show("fseek SEEK_END", fseek(f, 0, SEEK_END));
  show("ftell at the end", ftell(f));
  fclose(f);
  char buf[256];
  printf("content:\n%s", slurp(at("log.txt"), buf, sizeof buf));

  f = fopen(at("bin"), "w+");
  unsigned char out[64], in[64];
  for (int i = 0; i < 64; i++) out[i] = (unsigned char)(i * 7);
  show("fwrite 64 bytes", (long)fwrite(out, 1, sizeof out, f));
  rewind(f);
  show("fread 64 bytes", (long)fread(in, 1, sizeof in, f));
  printf("same bytes: %d\n", memcmp(in, out, sizeof in) == 0);
  fclose(f);

  errno = 0;
  f = fopen(at("missing"), "r");
  printf("fopen r of a missing file: %s %s\n", f ? "opened" : "NULL", strerrorname_np(errno));
  files_teardown();
  return 0;
}
