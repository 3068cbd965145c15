/* raw-syscall and unsupported-call: what a call leaves the simulation for.
 *
 * raw-syscall: syscall(N, ...) with a constant N that runtime/syscall_table.def
 * classes UNSUPPORTED (or does not know: the table treats those the same),
 * a note for NOSYS numbers (ENOSYS under detsim, as on a kernel without
 * them: the program needs its fallback) and for numbers that are not
 * constants; and the intrinsics of instructions the simulation cannot see
 * (rdtsc, rdrand, ...).
 * unsupported-call: a call of (or a pointer taken to) a function that
 * runtime/intercept_table.def classes UNSUPPORTED, with its note as why.
 */
#include <string.h>

#include "lint.h"

static bool is_libc_function(CXCursor callee) {
  if (clang_Cursor_isNull(callee) || clang_getCursorKind(callee) != CXCursor_FunctionDecl)
    return false;
  if (clang_getCursorLinkage(callee) != CXLinkage_External) return false;
  /* A program's own definition of the name is its function, not libc's. */
  CXCursor def = clang_getCursorDefinition(callee);
  return clang_Cursor_isNull(def) || lint_in_system_header(def);
}

static void raw_syscall(struct lint_tu *t, CXCursor call) {
  if (clang_Cursor_getNumArguments(call) < 1) return;
  CXCursor arg = clang_Cursor_getArgument(call, 0);
  long long number;
  if (!lint_eval_int(arg, &number)) {
    char text[LINT_MAX_TEXT];
    lint_text(t->tu, arg, text, sizeof text);
    lint_report(t, call, LINT_CHECK_RAW_SYSCALL, LINT_NOTE,
                "syscall(%s, ...): the number is not a constant, so the lint cannot check it; "
                "under detsim a number the simulation does not support fails with ENOSYS and a report",
                text);
    return;
  }
  const char *name, *note;
  switch (lint_syscall_class(number, &name, &note)) {
  case LINT_SYS_OK:
    return;
  case LINT_SYS_NOSYS:
    lint_report(t, call, LINT_CHECK_RAW_SYSCALL, LINT_NOTE,
                "syscall(SYS_%s) under detsim: %s; the program must take its fallback path, "
                "so the simulation tests that path, not this one",
                name, note);
    return;
  case LINT_SYS_UNSUPPORTED:
    lint_report(t, call, LINT_CHECK_RAW_SYSCALL, LINT_WARNING,
                "syscall(SYS_%s) is not simulated by detsim (%s): under detsim it fails with ENOSYS "
                "and a report; use a call the simulation covers",
                name, note);
    return;
  case LINT_SYS_UNKNOWN:
    lint_report(t, call, LINT_CHECK_RAW_SYSCALL, LINT_WARNING,
                "syscall(%lld): a system call number detsim does not know "
                "(runtime/syscall_table.def): under detsim it fails with ENOSYS and a report",
                number);
    return;
  }
}

void lint_calls_call(struct lint_tu *t, CXCursor call) {
  char name[256];
  lint_callee_name(call, name, sizeof name);
  if (name[0] == '\0') return;
  const char *insn = lint_intrinsic_insn(name);
  if (insn != NULL) {
    lint_report(t, call, LINT_CHECK_RAW_SYSCALL, LINT_WARNING, "'%s' runs '%s': %s", name, insn,
                lint_insn_why(insn));
    return;
  }
  CXCursor callee = clang_getCursorReferenced(call);
  if (!is_libc_function(callee)) return;
  if (strcmp(name, "syscall") == 0) {
    raw_syscall(t, call);
    return;
  }
  const char *note = lint_unsupported_fn(name);
  if (note != NULL)
    lint_report(t, call, LINT_CHECK_UNSUPPORTED_CALL, LINT_WARNING,
                "call to '%s', which detsim does not simulate: %s (the runtime reports it when it "
                "runs)",
                name, note);
}

/* A function named without a call (its address taken): a later call
 * through the pointer escapes the same way.  A call's own callee reference
 * reports at the call's place, which lint_report has seen already. */
void lint_calls_ref(struct lint_tu *t, CXCursor ref) {
  CXCursor callee = clang_getCursorReferenced(ref);
  if (!is_libc_function(callee)) return;
  CXString s = clang_getCursorSpelling(callee);
  const char *name = clang_getCString(s);
  const char *note = lint_unsupported_fn(name);
  if (note != NULL)
    lint_report(t, ref, LINT_CHECK_UNSUPPORTED_CALL, LINT_WARNING,
                "'%s' used as a function pointer, which detsim does not simulate: %s", name, note);
  clang_disposeString(s);
}
