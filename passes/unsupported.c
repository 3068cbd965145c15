/* Compile-time warnings for what the simulation cannot see.
 *
 * Three sources: calls to functions the table classes UNSUPPORTED (fork,
 * pthread_cancel...), inline asm whose text uses an instruction that
 * escapes the simulation (raw system calls, time-stamp counters, hardware
 * randomness, atomics), and the intrinsics clang emits for the same
 * instructions (__rdtsc(), _rdrand32_step()...).  Each is one warning per
 * source location: copies of a call made by inlining or unrolling share the
 * location and are reported once.  Without debug info the message names the
 * enclosing function instead, and one warning per function and cause is
 * given.
 *
 * The texts, fixed here because tests and users grep for them:
 *   call to 'fork' is not simulated by detsim: <table note>
 *   inline asm using 'rdtsc' is not simulated by detsim: <why>
 *   intrinsic 'llvm.x86.rdtsc' is not simulated by detsim: <why>
 * followed, without debug info, by " (in function 'f')".
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "detsim_pass.h"
#include "pass_internal.h"

#define WHY_SYSCALL "a raw system call bypasses every model (futex, clock, getrandom) unless the run traps it (DETSIM_OPTIONS trap_syscalls, on in a world)"
#define WHY_TSC "it reads the real time-stamp counter unless the run traps it (DETSIM_OPTIONS trap_tsc, on by default)"
#define WHY_RANDOM "it reads hardware randomness, not the seed's random stream"
#define WHY_ATOMIC "an atomic in asm gets no yield point, so no other thread can run between its steps"

/* Instructions recognised in inline asm text.  `suffixes` are the AT&T
 * operand-size letters the mnemonic may carry (xchgl, cmpxchgq). */
static const struct asm_pattern {
  const char *mnemonic;
  const char *suffixes;
  const char *why;
} asm_patterns[] = {
    {"syscall", "", WHY_SYSCALL},
    {"sysenter", "", WHY_SYSCALL},
    {"rdtsc", "", WHY_TSC},
    {"rdtscp", "", WHY_TSC},
    {"rdrand", "wlq", WHY_RANDOM},
    {"rdseed", "wlq", WHY_RANDOM},
    {"lock", "", WHY_ATOMIC},
    {"xchg", "bwlq", WHY_ATOMIC},
    {"cmpxchg", "bwlq", WHY_ATOMIC},
    {"cmpxchg8b", "", WHY_ATOMIC},
    {"cmpxchg16b", "", WHY_ATOMIC},
};

/* Intrinsics, by exact name or by prefix (a trailing '.'). */
static const struct intrinsic_pattern {
  const char *name;
  const char *why;
} intrinsic_patterns[] = {
    {"llvm.x86.rdtsc", WHY_TSC},
    {"llvm.x86.rdtscp", WHY_TSC},
    {"llvm.readcyclecounter", WHY_TSC},
    {"llvm.x86.rdrand.", WHY_RANDOM},
    {"llvm.x86.rdseed.", WHY_RANDOM},
};

/* A message being built; messages are short and truncation is harmless. */
struct text {
  char buf[512];
  size_t len;
};

static void append(struct text *t, const char *s, size_t n) {
  size_t room = sizeof t->buf - 1 - t->len;
  if (n > room)
    n = room;
  memcpy(t->buf + t->len, s, n);
  t->len += n;
  t->buf[t->len] = '\0';
}

static void append_str(struct text *t, const char *s) {
  append(t, s, strlen(s));
}

/* The key that identifies a warning's source location: file:line:col, or
 * the enclosing function when there is no debug location. */
static void location_key(LLVMValueRef inst, struct text *key) {
  LLVMMetadataRef loc = LLVMInstructionGetDebugLoc(inst);
  if (loc == NULL) {
    size_t len = 0;
    const char *fn =
        LLVMGetValueName2(LLVMGetBasicBlockParent(LLVMGetInstructionParent(inst)), &len);
    append_str(key, "fn:");
    append(key, fn, len);
    return;
  }
  LLVMMetadataRef file = LLVMDIScopeGetFile(LLVMDILocationGetScope(loc));
  if (file != NULL) {
    unsigned len = 0;
    const char *dir = LLVMDIFileGetDirectory(file, &len);
    append(key, dir, len);
    append_str(key, "/");
    const char *name = LLVMDIFileGetFilename(file, &len);
    append(key, name, len);
  }
  char pos[32];
  snprintf(pos, sizeof pos, ":%u:%u", LLVMDILocationGetLine(loc),
           LLVMDILocationGetColumn(loc));
  append_str(key, pos);
}

/* Remembers `what` at the location of `inst`; returns 0 if that pair was
 * already reported. */
static int first_report(struct detsim_module *st, LLVMValueRef inst,
                        const char *what) {
  struct text key = {.len = 0};
  append_str(&key, what);
  append_str(&key, "@");
  location_key(inst, &key);
  for (size_t i = 0; i < st->warned_len; i++) {
    if (strcmp(st->warned[i].key, key.buf) == 0)
      return 0;
  }
  if (st->warned_len == st->warned_cap) {
    st->warned_cap = st->warned_cap == 0 ? 8 : st->warned_cap * 2;
    struct detsim_warned *grown =
        realloc(st->warned, st->warned_cap * sizeof *grown);
    if (grown == NULL)
      abort();
    st->warned = grown;
  }
  st->warned[st->warned_len].key = strdup(key.buf);
  if (st->warned[st->warned_len].key == NULL)
    abort();
  st->warned_len++;
  return 1;
}

void detsim__free_warned(struct detsim_module *st) {
  for (size_t i = 0; i < st->warned_len; i++)
    free(st->warned[i].key);
  free(st->warned);
  st->warned = NULL;
  st->warned_len = st->warned_cap = 0;
}

static void warn(struct detsim_module *st, LLVMValueRef inst, struct text *msg) {
  if (!first_report(st, inst, msg->buf))
    return;
  if (LLVMInstructionGetDebugLoc(inst) == NULL) {
    size_t len = 0;
    const char *fn =
        LLVMGetValueName2(LLVMGetBasicBlockParent(LLVMGetInstructionParent(inst)), &len);
    append_str(msg, " (in function '");
    append(msg, fn, len);
    append_str(msg, "')");
  }
  detsim__warn(inst, msg->buf);
}

/* Does asm token `tok` (lower-cased, `len` bytes) spell pattern `p`? */
static int token_is(const char *tok, size_t len, const struct asm_pattern *p) {
  size_t n = strlen(p->mnemonic);
  if (len < n || memcmp(tok, p->mnemonic, n) != 0)
    return 0;
  return len == n || (len == n + 1 && tok[n] != '\0' &&
                      strchr(p->suffixes, tok[n]) != NULL);
}

/* `int $0x80`: in IR asm text a literal '$' is written "$$". */
static int is_int80(const char *tok, size_t len) {
  while (len > 0 && *tok == '$') {
    tok++;
    len--;
  }
  return (len == 4 && memcmp(tok, "0x80", 4) == 0) ||
         (len == 3 && memcmp(tok, "128", 3) == 0);
}

/* Splits asm text into words (letters, digits, '_', '$') and lists the
 * patterns it uses, each once, with their reasons, each once. */
static void scan_asm(const char *s, size_t n, struct text *used,
                     struct text *why) {
  char tok[32], prev[32] = "";
  size_t i = 0;
  int found[sizeof asm_patterns / sizeof asm_patterns[0] + 1] = {0};
  while (i < n) {
    if (!(isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '$')) {
      i++;
      continue;
    }
    size_t len = 0;
    while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_' || s[i] == '$')) {
      if (len < sizeof tok - 1)
        tok[len++] = (char)tolower((unsigned char)s[i]);
      i++;
    }
    tok[len] = '\0';
    size_t count = sizeof asm_patterns / sizeof asm_patterns[0];
    for (size_t p = 0; p < count; p++) {
      if (token_is(tok, len, &asm_patterns[p]))
        found[p] = 1;
    }
    if (strcmp(prev, "int") == 0 && is_int80(tok, len))
      found[count] = 1;
    memcpy(prev, tok, len + 1);
  }

  size_t count = sizeof asm_patterns / sizeof asm_patterns[0];
  const char *reasons[sizeof asm_patterns / sizeof asm_patterns[0] + 1];
  size_t nreasons = 0;
  for (size_t p = 0; p <= count; p++) {
    if (!found[p])
      continue;
    const char *name = p < count ? asm_patterns[p].mnemonic : "int $0x80";
    const char *reason = p < count ? asm_patterns[p].why : WHY_SYSCALL;
    append_str(used, used->len == 0 ? "'" : ", '");
    append_str(used, name);
    append_str(used, "'");
    int seen = 0;
    for (size_t r = 0; r < nreasons; r++)
      seen |= reasons[r] == reason;
    if (!seen)
      reasons[nreasons++] = reason;
  }
  for (size_t r = 0; r < nreasons; r++) {
    if (r > 0)
      append_str(why, "; ");
    append_str(why, reasons[r]);
  }
}

static void check_asm(struct detsim_module *st, LLVMValueRef inst,
                      LLVMValueRef asm_value) {
  size_t n = 0;
  const char *s = LLVMGetInlineAsmAsmString(asm_value, &n);
  struct text used = {.len = 0}, why = {.len = 0};
  scan_asm(s, n, &used, &why);
  if (used.len == 0)
    return;
  struct text msg = {.len = 0};
  append_str(&msg, "inline asm using ");
  append_str(&msg, used.buf);
  append_str(&msg, " is not simulated by detsim: ");
  append_str(&msg, why.buf);
  warn(st, inst, &msg);
}

static void check_intrinsic(struct detsim_module *st, LLVMValueRef inst,
                            LLVMValueRef callee) {
  size_t len = 0;
  const char *name = LLVMGetValueName2(callee, &len);
  for (size_t p = 0; p < sizeof intrinsic_patterns / sizeof intrinsic_patterns[0]; p++) {
    const char *want = intrinsic_patterns[p].name;
    size_t n = strlen(want);
    int prefix = want[n - 1] == '.';
    if (prefix ? (len > n && memcmp(name, want, n) == 0)
               : (len == n && memcmp(name, want, n) == 0)) {
      struct text msg = {.len = 0};
      append_str(&msg, "intrinsic '");
      append(&msg, name, len);
      append_str(&msg, "' is not simulated by detsim: ");
      append_str(&msg, intrinsic_patterns[p].why);
      warn(st, inst, &msg);
      return;
    }
  }
}

void detsim__check_unsupported(struct detsim_module *st, LLVMValueRef inst) {
  LLVMOpcode op = LLVMGetInstructionOpcode(inst);
  if (op != LLVMCall && op != LLVMInvoke && op != LLVMCallBr)
    return;
  LLVMValueRef called = LLVMGetCalledValue(inst);
  if (called != NULL && LLVMIsAInlineAsm(called) != NULL) {
    check_asm(st, inst, called);
    return;
  }
  LLVMValueRef callee = detsim__direct_callee(inst);
  if (callee == NULL)
    return;
  if (LLVMGetIntrinsicID(callee) != 0) {
    check_intrinsic(st, inst, callee);
    return;
  }
  const struct detsim_fn *info = detsim__callee_info(st, callee);
  if (info == NULL || info->cls != DETSIM_CLASS_UNSUPPORTED)
    return;
  struct text msg = {.len = 0};
  append_str(&msg, "call to '");
  append_str(&msg, info->name);
  append_str(&msg, "' is not simulated by detsim: ");
  append_str(&msg, info->note);
  warn(st, inst, &msg);
}
