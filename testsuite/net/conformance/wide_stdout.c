/* Rule: a stdout used for wide output from the start works as glibc's own
 * (wprintf, fwprintf, fputws, putwchar, in the C locale's ASCII), also
 * after a dup2 of a pipe onto 1 (read back by the program); wide output on
 * another stream already used for bytes fails (-1). */
#include <wchar.h>

#include "conf.h"

int main(void) {
  int p[2];
  MUST(pipe(p) == 0);
  int saved = dup(1);
  MUST(dup2(p[1], 1) == 1);
  int a = wprintf(L"wide %ls %d\n", L"text", 5);
  int b = fwprintf(stdout, L"%lc%lc\n", L'o', L'k');
  int c = fputws(L"fputws line\n", stdout);
  wint_t d = putwchar(L'!');
  putwchar(L'\n');
  fflush(stdout);
  MUST(dup2(saved, 1) == 1);
  close(p[1]);
  char buf[256];
  ssize_t n = read_n(p[0], buf, sizeof buf - 1);
  buf[n < 0 ? 0 : n] = '\0';
  /* stderr was used for bytes first: wide output there fails. */
  fprintf(stderr, "bytes first\n");
  int late = fwprintf(stderr, L"wide after bytes\n");
  wprintf(L"wprintf=%d fwprintf=%d fputws_ok=%d putwchar=%d\n", a, b, c >= 0, d == L'!');
  wprintf(L"the pipe read:\n%s", buf);
  wprintf(L"stderr_wide_after_bytes=%d\n", late);
  return 0;
}
