/* inline-asm: every asm statement (GCC and MS style, and asm at file scope)
 * with instructions in it, naming those the simulation cannot see: system
 * call instructions, rdtsc/rdtscp, rdrand/rdseed, cpuid, pause (and its
 * `rep; nop` spelling), lock-prefixed and xchg read-modify-writes.  An asm
 * statement with an empty template (`asm volatile("" ::: "memory")`, a
 * compiler barrier) runs no instruction: not a finding.
 *
 * The template is read from the statement's tokens: its string literals up
 * to the first ':' (so operands and clobbers are not read as instructions).
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "lint.h"

const char *lint_insn_why(const char *insn) {
  if (strcmp(insn, "syscall") == 0 || strcmp(insn, "sysenter") == 0 ||
      strcmp(insn, "int $0x80") == 0)
    return "a system call the runtime never sees reaches the real kernel, where simulated "
           "descriptors, sockets and time mean nothing; call the libc function or syscall(2), "
           "which the simulation routes";
  if (strncmp(insn, "rdtsc", 5) == 0)
    return "it reads the real time-stamp counter, not virtual time; use clock_gettime, which "
           "is virtual under detsim";
  if (strcmp(insn, "rdrand") == 0 || strcmp(insn, "rdseed") == 0)
    return "real hardware randomness the seed does not drive, so one DETSIM_SEED takes "
           "different histories; use getrandom or random, which the seed drives";
  if (strcmp(insn, "cpuid") == 0)
    return "it shows the real CPU, not the simulated machine, so results depend on the host";
  if (strcmp(insn, "pause") == 0)
    return "a spin-wait hint with no yield point: a loop around it waits for a thread that "
           "cannot run while it spins; wait with an atomic load or a condition variable";
  return "an atomic read-modify-write the pass cannot see: no yield point before it, so no "
         "schedule interleaves another thread there; use C11 atomics or __atomic builtins";
}

/* Appends the C string literal `lit` (with its quotes) unescaped. */
static void append_literal(const char *lit, char *out, size_t len, size_t *used) {
  const char *p = strchr(lit, '"');
  if (p == NULL) return;
  for (p++; *p && *p != '"' && *used + 1 < len; p++) {
    char ch = *p;
    if (ch == '\\' && p[1]) {
      p++;
      ch = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
    }
    out[(*used)++] = ch;
  }
  out[*used] = '\0';
}

/* The asm template of `stmt` (its string literals before the first ':' at
 * the statement's outer parenthesis). */
/* The range to read an asm statement's tokens from.  An asm that a macro
 * expands to has an extent that starts in the macro's definition (maybe in
 * another file): then the tokens are read from where the asm is spelled,
 * LINT_MAX_ASM_SPAN bytes at most. */

static CXSourceRange asm_range(CXTranslationUnit tu, CXCursor stmt) {
  CXSourceRange extent = clang_getCursorExtent(stmt);
  CXSourceLocation start = clang_getRangeStart(extent);
  CXFile efile, sfile;
  unsigned eoff, soff;
  clang_getExpansionLocation(start, &efile, NULL, NULL, &eoff);
  clang_getSpellingLocation(start, &sfile, NULL, NULL, &soff);
  if (sfile == NULL || (clang_File_isEqual(efile, sfile) && eoff == soff)) return extent;
  size_t size = 0;
  if (clang_getFileContents(tu, sfile, &size) == NULL) return extent;
  unsigned end = soff + LINT_MAX_ASM_SPAN < size ? soff + LINT_MAX_ASM_SPAN : (unsigned)size;
  return clang_getRange(clang_getLocationForOffset(tu, sfile, soff),
                        clang_getLocationForOffset(tu, sfile, end));
}

static void asm_template(CXTranslationUnit tu, CXCursor stmt, char *out, size_t len) {
  CXToken *tokens = NULL;
  unsigned n = 0;
  size_t used = 0;
  out[0] = '\0';
  clang_tokenize(tu, asm_range(tu, stmt), &tokens, &n);
  int depth = 0;
  for (unsigned i = 0; i < n; i++) {
    CXString s = clang_getTokenSpelling(tu, tokens[i]);
    const char *sp = clang_getCString(s);
    bool stop = false;
    if (strcmp(sp, "(") == 0) depth++;
    else if (strcmp(sp, ")") == 0) stop = --depth <= 0;
    else if (depth == 1 && strcmp(sp, ":") == 0) stop = true;
    else if (depth == 1 && clang_getTokenKind(tokens[i]) == CXToken_Literal) append_literal(sp, out, len, &used);
    clang_disposeString(s);
    if (stop) break;
  }
  if (used == 0 && clang_getCursorKind(stmt) == CXCursor_MSAsmStmt) {
    /* __asm { ... } or __asm insn: the instruction words after __asm. */
    for (unsigned i = 1; i < n; i++) {
      CXString s = clang_getTokenSpelling(tu, tokens[i]);
      const char *sp = clang_getCString(s);
      size_t k = strlen(sp);
      if (strcmp(sp, "{") != 0 && strcmp(sp, "}") != 0 && used + k + 2 < len) {
        memcpy(out + used, sp, k);
        used += k;
        out[used++] = clang_getTokenKind(tokens[i]) == CXToken_Punctuation ? ' ' : '\n';
        out[used] = '\0';
      }
      clang_disposeString(s);
    }
  }
  clang_disposeTokens(tu, tokens, n);
}

static void add_name(char *names, size_t len, const char *name) {
  char quoted[64];
  snprintf(quoted, sizeof quoted, "'%s'", name);
  if (strstr(names, quoted) != NULL) return;
  size_t used = strlen(names);
  snprintf(names + used, len - used, "%s%s", used ? ", " : "", quoted);
}

/* Whether an operand list may name memory: `(...)` or an operand reference
 * (`%0`, `%[name]`, which an "m" constraint makes memory); `%%reg` is a
 * register.  xchg with memory is locked without a prefix. */
static bool may_be_memory(const char *ops) {
  for (const char *q = ops; *q; q++) {
    if (*q == '(') return true;
    if (*q == '%' && q[1] == '%') q++;
    else if (*q == '%' && (isdigit((unsigned char)q[1]) || q[1] == '[')) return true;
  }
  return false;
}

/* The instruction class of one line of asm ("" when none named). */
static void classify(const char *line, const char *next, char *names, size_t len, bool *any) {
  char word[32] = "", second[32] = "";
  const char *p = line;
  while (isspace((unsigned char)*p)) p++;
  /* A label "1:" or "name:" before the instruction. */
  const char *colon = strchr(p, ':');
  if (colon != NULL && strcspn(p, " \t") >= (size_t)(colon - p)) {
    p = colon + 1;
    while (isspace((unsigned char)*p)) p++;
  }
  if (*p == '\0' || *p == '.' || *p == '#' || *p == '/') return; /* blank, directive, comment */
  *any = true;
  sscanf(p, "%31s %31s", word, second);
  for (char *w = word; *w; w++) *w = (char)tolower((unsigned char)*w);
  for (char *w = second; *w; w++) *w = (char)tolower((unsigned char)*w);
  if (strcmp(word, "lock") == 0) {
    /* "lock; xaddl ...": the instruction is the next line's first word. */
    if (second[0] == '\0' && next != NULL) sscanf(next, "%31s", second);
    for (char *w = second; *w; w++) *w = (char)tolower((unsigned char)*w);
    char both[80];
    snprintf(both, sizeof both, "lock %s", second);
    add_name(names, len, both);
  } else if (strcmp(word, "rep") == 0 &&
             (strncmp(second, "nop", 3) == 0 || (next && strncmp(next + strspn(next, " \t"), "nop", 3) == 0))) {
    add_name(names, len, "pause");
  } else if (strcmp(word, "int") == 0 && strstr(second, "0x80") != NULL) {
    add_name(names, len, "int $0x80");
  } else if (strncmp(word, "xchg", 4) == 0 && may_be_memory(p + strlen(word))) {
    add_name(names, len, "xchg");
  } else if (strncmp(word, "rdrand", 6) == 0) {
    add_name(names, len, "rdrand");
  } else if (strncmp(word, "rdseed", 6) == 0) {
    add_name(names, len, "rdseed");
  } else {
    static const char *const exact[] = {"syscall", "sysenter", "rdtsc", "rdtscp", "cpuid", "pause"};
    for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
      if (strcmp(word, exact[i]) == 0) add_name(names, len, exact[i]);
  }
}

/* The named instructions of `stmt` into `names` ("'rdtsc', 'lock xadd'");
 * returns whether the template has any instruction at all. */
static bool scan(CXTranslationUnit tu, CXCursor stmt, char *names, size_t len) {
  char text[4 * LINT_MAX_TEXT];
  asm_template(tu, stmt, text, sizeof text);
  names[0] = '\0';
  bool any = false;
  char *save = NULL;
  char *lines[LINT_MAX_CHILDREN];
  size_t n = 0;
  for (char *line = strtok_r(text, "\n;", &save); line && n < LINT_MAX_CHILDREN;
       line = strtok_r(NULL, "\n;", &save))
    lines[n++] = line;
  for (size_t i = 0; i < n; i++) classify(lines[i], i + 1 < n ? lines[i + 1] : NULL, names, len, &any);
  return any;
}

void lint_asm_insns(CXTranslationUnit tu, CXCursor stmt, char *names, size_t len) {
  scan(tu, stmt, names, len);
}

void lint_asm_stmt(struct lint_tu *t, CXCursor stmt) {
  char names[LINT_MAX_TEXT];
  if (!scan(t->tu, stmt, names, sizeof names)) return;
  if (names[0] == '\0') {
    lint_report(t, stmt, LINT_CHECK_INLINE_ASM, LINT_WARNING,
                "asm statement: the pass does not see inside it, so its memory accesses get no "
                "yield point and its instructions run natively; keep shared memory, system calls "
                "and the machine out of asm, or write it in C");
    return;
  }
  /* The why of the first named instruction; the others are named. */
  char first[64];
  sscanf(names, "'%63[^']'", first);
  const char *insn = strncmp(first, "lock ", 5) == 0 ? "lock" : first;
  lint_report(t, stmt, LINT_CHECK_INLINE_ASM, LINT_WARNING, "asm statement runs %s: %s", names,
              lint_insn_why(insn));
}
