/* Writes a test of every line of runtime/intercept_table.def, so that a line
 * added to the table is tested without anyone writing a case for it.
 *
 *   table_cases c         a C file: one function `call_<name>` per table
 *                         function that is not YIELD, calling it
 *   table_cases checks    FileCheck lines for that file's IR: REWRITE calls
 *                         go to __detsim_<name>, the others keep their name
 *   table_cases decls     FileCheck lines: no REWRITE name is still declared
 *   table_cases warnings  FileCheck lines for the compiler's warnings: one
 *                         per UNSUPPORTED function, with the table's note
 *
 * YIELD lines (libatomic calls) are tested by hand in libatomic-*.
 */
#include <stdio.h>
#include <string.h>

enum cls { REWRITE, YIELD, PASSTHROUGH, UNSUPPORTED };

static const struct line {
  const char *name;
  enum cls cls;
  const char *note;
} lines[] = {
#define DETSIM_FN(name, canonical, cls, group, note) {#name, cls, note},
#include "runtime/intercept_table.def"
#undef DETSIM_FN
};

#define COUNT (sizeof lines / sizeof lines[0])

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "";
  unsigned rewrite = 0, unsupported = 0;
  for (size_t i = 0; i < COUNT; i++) {
    const struct line *l = &lines[i];
    if (l->cls == YIELD)
      continue;
    rewrite += l->cls == REWRITE;
    unsupported += l->cls == UNSUPPORTED;
    if (strcmp(mode, "c") == 0) {
      printf("void %s(void);\nvoid call_%s(void) { %s(); }\n", l->name, l->name, l->name);
    } else if (strcmp(mode, "checks") == 0) {
      printf("CHECK-LABEL: @call_%s()\n", l->name);
      printf("CHECK-NEXT: call void @%s%s()\n", l->cls == REWRITE ? "__detsim_" : "", l->name);
    } else if (strcmp(mode, "decls") == 0) {
      if (l->cls == REWRITE)
        printf("DECL-NOT: declare {{.*}} @%s(\n", l->name);
    } else if (strcmp(mode, "warnings") == 0) {
      if (l->cls == UNSUPPORTED)
        printf("WARN: warning: call to '%s' is not simulated by detsim: %s (in function 'call_%s')\n",
               l->name, l->note, l->name);
    } else {
      fprintf(stderr, "usage: table_cases c|checks|decls|warnings\n");
      return 2;
    }
  }
  if (strcmp(mode, "decls") == 0)
    printf("DECL: !detsim.instrumented =\n");
  /* A table without these classes would make the checks vacuous (the
   * UNSUPPORTED lines shrink as calls become simulated: one still checks
   * the warning path). */
  if (rewrite < 50 || unsupported < 1) {
    fprintf(stderr, "table_cases: only %u REWRITE and %u UNSUPPORTED lines\n", rewrite, unsupported);
    return 1;
  }
  return 0;
}
