/* Small helpers over libclang's cursors, shared by the checks.  Locations
 * are expansion locations throughout: a finding inside a macro is reported
 * where the macro is used, as the compiler does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lint.h"

struct collect {
  CXCursor *out;
  size_t n, max;
};

static enum CXChildVisitResult collect_child(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct collect *k = data;
  if (k->n >= k->max) {
    fprintf(stderr, "detsim-lint: error: a node with more than %d children (LINT_MAX_CHILDREN)\n",
            LINT_MAX_CHILDREN);
    exit(LINT_EXIT_USAGE);
  }
  k->out[k->n++] = c;
  return CXChildVisit_Continue;
}

size_t lint_children(CXCursor c, CXCursor *out, size_t max) {
  struct collect k = {out, 0, max};
  clang_visitChildren(c, collect_child, &k);
  return k.n;
}

bool lint_in_system_header(CXCursor c) {
  CXSourceLocation loc = clang_getRangeStart(clang_getCursorExtent(c));
  return clang_Location_isInSystemHeader(loc) != 0;
}

/* Identifier-like tokens keep a space between them ("unsigned int"). */
static bool wordy(const char *s) {
  return *s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
         (*s >= '0' && *s <= '9');
}

void lint_text(CXTranslationUnit tu, CXCursor c, char *buf, size_t len) {
  CXToken *tokens = NULL;
  unsigned n = 0;
  clang_tokenize(tu, clang_getCursorExtent(c), &tokens, &n);
  size_t used = 0;
  bool prev_wordy = false;
  buf[0] = '\0';
  for (unsigned i = 0; i < n; i++) {
    CXString s = clang_getTokenSpelling(tu, tokens[i]);
    const char *t = clang_getCString(s);
    bool w = wordy(t);
    int k = snprintf(buf + used, len - used, "%s%s", prev_wordy && w ? " " : "", t);
    clang_disposeString(s);
    prev_wordy = w;
    if (k < 0 || (size_t)k >= len - used) {
      if (len > 4) strcpy(buf + len - 4, "...");
      break;
    }
    used += (size_t)k;
  }
  clang_disposeTokens(tu, tokens, n);
}

void lint_first_token(CXTranslationUnit tu, CXCursor c, char *buf, size_t len) {
  CXToken *tokens = NULL;
  unsigned n = 0;
  buf[0] = '\0';
  clang_tokenize(tu, clang_getCursorExtent(c), &tokens, &n);
  if (n > 0) {
    CXString s = clang_getTokenSpelling(tu, tokens[0]);
    snprintf(buf, len, "%s", clang_getCString(s));
    clang_disposeString(s);
  }
  clang_disposeTokens(tu, tokens, n);
}

void lint_callee_name(CXCursor call, char *buf, size_t len) {
  buf[0] = '\0';
  CXCursor callee = clang_getCursorReferenced(call);
  if (clang_Cursor_isNull(callee) || clang_getCursorKind(callee) != CXCursor_FunctionDecl) return;
  CXString s = clang_getCursorSpelling(callee);
  snprintf(buf, len, "%s", clang_getCString(s));
  clang_disposeString(s);
}

bool lint_is_atomic_builtin(CXTranslationUnit tu, CXCursor c) {
  if (clang_getCursorKind(c) != CXCursor_UnexposedExpr) return false;
  char first[64];
  lint_first_token(tu, c, first, sizeof first);
  return strncmp(first, "__atomic_", 9) == 0 || strncmp(first, "__c11_atomic_", 13) == 0 ||
         strncmp(first, "atomic_", 7) == 0;
}

bool lint_eval_int(CXCursor c, long long *value) {
  CXEvalResult r = clang_Cursor_Evaluate(c);
  if (r == NULL) return false;
  bool ok = clang_EvalResult_getKind(r) == CXEval_Int;
  if (ok) *value = clang_EvalResult_getAsLongLong(r);
  clang_EvalResult_dispose(r);
  return ok;
}

bool lint_type_is_atomic(CXType t) {
  return t.kind == CXType_Atomic || clang_getCanonicalType(t).kind == CXType_Atomic;
}
