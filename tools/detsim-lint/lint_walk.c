/* One walk of a translation unit's AST, outside system headers, handing each
 * node to the checks that look at its kind.  time-seed walks on its own
 * (lint_seed.c): it first learns which values come from a clock. */
#include <string.h>

#include "lint.h"

static bool is_file_scope_asm(CXTranslationUnit tu, CXCursor c) {
  if (clang_getCursorKind(c) != CXCursor_UnexposedDecl) return false;
  char first[16];
  lint_first_token(tu, c, first, sizeof first);
  return strcmp(first, "asm") == 0 || strcmp(first, "__asm__") == 0 || strcmp(first, "__asm") == 0;
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct lint_tu *t = data;
  if (lint_in_system_header(c)) return CXChildVisit_Continue;
  switch (clang_getCursorKind(c)) {
  case CXCursor_WhileStmt:
  case CXCursor_DoStmt:
  case CXCursor_ForStmt:
    if (t->enabled[LINT_CHECK_SPIN_WAIT]) lint_spin_loop(t, c);
    break;
  case CXCursor_GCCAsmStmt:
  case CXCursor_MSAsmStmt:
    lint_asm_stmt(t, c);
    break;
  case CXCursor_CallExpr:
    lint_calls_call(t, c);
    break;
  case CXCursor_DeclRefExpr:
    lint_calls_ref(t, c);
    break;
  default:
    if (is_file_scope_asm(t->tu, c)) lint_asm_stmt(t, c);
    break;
  }
  return CXChildVisit_Recurse;
}

void lint_walk(struct lint_tu *t) {
  clang_visitChildren(clang_getTranslationUnitCursor(t->tu), visit, t);
  if (t->enabled[LINT_CHECK_TIME_SEED]) lint_seed_tu(t);
}
