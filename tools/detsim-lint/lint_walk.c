/* One walk of a translation unit's AST, outside system headers, handing each
 * node to the checks that look at its kind.  time-seed walks on its own
 * (lint_seed.c): it first learns which values come from a clock.
 *
 * What never runs is not walked: the operand of sizeof and _Alignof, and
 * the expressions inside types (`__typeof__(&popen) p = ...`, a cast to
 * `(__typeof__(&f))`, `__typeof__(f) f` declaring a function, a typedef's,
 * a field's or a parameter's type); only
 * a declaration's initializer and a cast's operand are. */
#include <string.h>

#include "lint.h"

static bool is_file_scope_asm(CXTranslationUnit tu, CXCursor c) {
  if (clang_getCursorKind(c) != CXCursor_UnexposedDecl) return false;
  char first[16];
  lint_first_token(tu, c, first, sizeof first);
  return strcmp(first, "asm") == 0 || strcmp(first, "__asm__") == 0 || strcmp(first, "__asm") == 0;
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData data);

static void walk_into(CXCursor c, CXCursor parent, struct lint_tu *t) {
  if (visit(c, parent, t) == CXChildVisit_Recurse) clang_visitChildren(c, visit, t);
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct lint_tu *t = data;
  if (lint_in_system_header(c)) return CXChildVisit_Continue;
  switch (clang_getCursorKind(c)) {
  case CXCursor_UnaryExpr: /* sizeof, _Alignof */
  case CXCursor_TypedefDecl:
  case CXCursor_FieldDecl:
  case CXCursor_ParmDecl:
    return CXChildVisit_Continue;
  case CXCursor_VarDecl: {
    CXCursor init = clang_Cursor_getVarDeclInitializer(c);
    if (!clang_Cursor_isNull(init)) walk_into(init, c, t);
    return CXChildVisit_Continue;
  }
  case CXCursor_FunctionDecl: { /* its body; an expression child is in its type */
    CXCursor kids[LINT_MAX_CHILDREN];
    size_t n = lint_children(c, kids, LINT_MAX_CHILDREN);
    for (size_t i = 0; i < n; i++)
      if (!clang_isExpression(clang_getCursorKind(kids[i]))) walk_into(kids[i], c, t);
    return CXChildVisit_Continue;
  }
  case CXCursor_CStyleCastExpr: {
    CXCursor kids[8];
    size_t n = lint_children(c, kids, 8);
    if (n > 0) walk_into(kids[n - 1], c, t);
    return CXChildVisit_Continue;
  }
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
