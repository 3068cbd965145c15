/* spin-wait: a loop that waits for another thread by reading plain memory.
 *
 * Under detsim one thread runs at a time and the scheduler switches only at
 * yield points (calls into the runtime, atomic and volatile accesses:
 * passes/yield.c).  A loop whose way out depends on shared memory it never
 * writes, with no yield point in it, waits for a thread that cannot run: it
 * spins until the watchdog ends the run inconclusive.  A finding needs all of:
 *  - an exit: the loop's condition (unless a constant), or the condition of
 *    an `if` in its body that breaks, returns or jumps out;
 *  - an exit that reads shared memory: a variable with static storage, or
 *    memory through a pointer (`*p`, `p->f`, `p[i]`), not const;
 *  - nothing in the loop (condition, body, increment) writes what the exits
 *    read (a variable, a field, or takes its address), so only another thread
 *    can end it;
 *  - no yield point in the loop: no call (other than __builtin_expect and
 *    the pause hints, which do nothing, and the translation unit's own
 *    "readers"), no atomic builtin, no access of an _Atomic or volatile
 *    object (the pass yields at those, so a volatile spin runs fine under
 *    detsim: not a finding).
 * A reader is a function defined here that only reads: no call but of
 * other readers (LINT_MAX_READER_DEPTH deep) and the do-nothing builtins,
 * no atomic, volatile or asm, no store but to its own locals
 * (`static bool ready(const struct q *q) { return q->done; }`).  A reader
 * called in an exit is a shared read the lint cannot see into, so the loop
 * must then write nothing at all.
 * Inline asm in the loop is no yield point (`while (!flag) asm("pause")`).
 */
#include <stdlib.h>
#include <string.h>

#include "lint.h"

struct decls {
  CXCursor items[LINT_MAX_CHILDREN];
  size_t n;
};

static void decls_add(struct decls *d, CXCursor decl) {
  decl = clang_getCanonicalCursor(decl);
  for (size_t i = 0; i < d->n; i++)
    if (clang_equalCursors(d->items[i], decl)) return;
  if (d->n < LINT_MAX_CHILDREN) d->items[d->n++] = decl;
}

static bool decls_has(const struct decls *d, CXCursor decl) {
  decl = clang_getCanonicalCursor(decl);
  for (size_t i = 0; i < d->n; i++)
    if (clang_equalCursors(d->items[i], decl)) return true;
  return false;
}

struct loop_scan {
  CXTranslationUnit tu;
  bool yields;          /* a call, an atomic or a volatile access */
  struct decls written; /* what the loop writes or takes the address of */
};

static bool is_pure_call(CXCursor call) {
  static const char *const pure[] = {"__builtin_expect", "__builtin_expect_with_probability",
                                     "__builtin_assume", "__builtin_ia32_pause", "_mm_pause"};
  char name[128];
  lint_callee_name(call, name, sizeof name);
  for (size_t i = 0; i < sizeof pure / sizeof *pure; i++)
    if (strcmp(name, pure[i]) == 0) return true;
  return false;
}

static bool is_access(enum CXCursorKind k);

static bool is_pure_reader(CXTranslationUnit tu, CXCursor fn, int depth, bool *shared);
static bool shared_access(CXTranslationUnit tu, CXCursor c);

struct reader_scan {
  CXTranslationUnit tu;
  int depth;
  bool ok;
  bool shared; /* it reads memory another thread may write */
};

/* Whether an lvalue is one of the function's own locals (or parameters). */
static bool is_local_lvalue(CXCursor lvalue) {
  CXCursor kids[2];
  while (clang_getCursorKind(lvalue) == CXCursor_ParenExpr && lint_children(lvalue, kids, 2) == 1)
    lvalue = kids[0];
  if (clang_getCursorKind(lvalue) != CXCursor_DeclRefExpr) return false;
  CXCursor d = clang_getCursorReferenced(lvalue);
  enum CXCursorKind k = clang_getCursorKind(d);
  return k == CXCursor_ParmDecl || (k == CXCursor_VarDecl && clang_Cursor_hasVarDeclGlobalStorage(d) == 0);
}

static enum CXChildVisitResult scan_reader(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct reader_scan *r = data;
  enum CXCursorKind k = clang_getCursorKind(c);
  CXCursor kids[3];
  if (k == CXCursor_CallExpr && !is_pure_call(c) &&
      !is_pure_reader(r->tu, clang_getCursorDefinition(clang_getCursorReferenced(c)), r->depth + 1,
                      &r->shared))
    r->ok = false;
  else if (k == CXCursor_GCCAsmStmt || k == CXCursor_MSAsmStmt || lint_is_atomic_builtin(r->tu, c))
    r->ok = false;
  else if (is_access(k) && (lint_type_is_atomic(clang_getCursorType(c)) ||
                            clang_isVolatileQualifiedType(clang_getCursorType(c))))
    r->ok = false;
  else if ((k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator) &&
           clang_getCursorBinaryOperatorKind(c) >= CXBinaryOperator_Assign &&
           clang_getCursorBinaryOperatorKind(c) <= CXBinaryOperator_OrAssign &&
           lint_children(c, kids, 3) >= 1 && !is_local_lvalue(kids[0]))
    r->ok = false;
  else if (k == CXCursor_UnaryOperator && lint_children(c, kids, 3) >= 1) {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
    if ((op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PostDec ||
         op == CXUnaryOperator_PreInc || op == CXUnaryOperator_PreDec) &&
        !is_local_lvalue(kids[0]))
      r->ok = false;
  }
  if (r->ok && is_access(k) && shared_access(r->tu, c)) r->shared = true;
  return r->ok ? CXChildVisit_Recurse : CXChildVisit_Break;
}

/* Whether `fn` is a reader; `*shared` is set when it reads shared memory. */
static bool is_pure_reader(CXTranslationUnit tu, CXCursor fn, int depth, bool *shared) {
  if (depth > LINT_MAX_READER_DEPTH || clang_Cursor_isNull(fn) ||
      clang_getCursorKind(fn) != CXCursor_FunctionDecl || !clang_isCursorDefinition(fn))
    return false;
  struct reader_scan r = {tu, depth, true, false};
  clang_visitChildren(fn, scan_reader, &r);
  if (r.ok && r.shared) *shared = true;
  return r.ok;
}

static bool is_reader_call(CXTranslationUnit tu, CXCursor call, bool *shared) {
  bool ignored = false;
  return is_pure_reader(tu, clang_getCursorDefinition(clang_getCursorReferenced(call)), 1,
                        shared ? shared : &ignored);
}

static bool is_access(enum CXCursorKind k) {
  return k == CXCursor_DeclRefExpr || k == CXCursor_MemberRefExpr ||
         k == CXCursor_ArraySubscriptExpr || k == CXCursor_UnaryOperator;
}

/* Every variable and field an lvalue names (`p->next->v`: p, next, v). */
static enum CXChildVisitResult collect_refs(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_DeclRefExpr || k == CXCursor_MemberRefExpr) {
    CXCursor d = clang_getCursorReferenced(c);
    if (!clang_Cursor_isNull(d)) decls_add(data, d);
  }
  return CXChildVisit_Recurse;
}

static void add_lvalue(struct decls *d, CXCursor lvalue) {
  collect_refs(lvalue, clang_getNullCursor(), d);
  clang_visitChildren(lvalue, collect_refs, d);
}

static enum CXChildVisitResult scan_loop(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct loop_scan *s = data;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_CallExpr && !is_pure_call(c) && !is_reader_call(s->tu, c, NULL)) s->yields = true;
  if (lint_is_atomic_builtin(s->tu, c)) s->yields = true;
  if (is_access(k)) {
    CXType ty = clang_getCursorType(c);
    if (lint_type_is_atomic(ty) || clang_isVolatileQualifiedType(ty)) s->yields = true;
  }
  CXCursor kids[3];
  if (k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator) {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
    if (op >= CXBinaryOperator_Assign && op <= CXBinaryOperator_OrAssign &&
        lint_children(c, kids, 3) >= 1)
      add_lvalue(&s->written, kids[0]);
  } else if (k == CXCursor_UnaryOperator) {
    enum CXUnaryOperatorKind op = clang_getCursorUnaryOperatorKind(c);
    if ((op == CXUnaryOperator_PostInc || op == CXUnaryOperator_PostDec ||
         op == CXUnaryOperator_PreInc || op == CXUnaryOperator_PreDec ||
         op == CXUnaryOperator_AddrOf) &&
        lint_children(c, kids, 3) >= 1)
      add_lvalue(&s->written, kids[0]);
  }
  return CXChildVisit_Recurse;
}

static void scan_part(struct loop_scan *s, CXCursor part) {
  scan_loop(part, clang_getNullCursor(), s);
  clang_visitChildren(part, scan_loop, s);
}

/* Whether the memory an access reads may be written by another thread. */
static bool shared_access(CXTranslationUnit tu, CXCursor c) {
  CXCursor kids[3];
  switch (clang_getCursorKind(c)) {
  case CXCursor_DeclRefExpr: {
    CXCursor d = clang_getCursorReferenced(c);
    return clang_getCursorKind(d) == CXCursor_VarDecl && clang_Cursor_hasVarDeclGlobalStorage(d) == 1;
  }
  case CXCursor_MemberRefExpr: {
    char text[LINT_MAX_TEXT];
    lint_text(tu, c, text, sizeof text);
    const char *arrow = strstr(text, "->");
    if (arrow != NULL) return true;
    return lint_children(c, kids, 3) >= 1 && shared_access(tu, kids[0]);
  }
  case CXCursor_ArraySubscriptExpr:
    if (lint_children(c, kids, 3) < 1) return false;
    if (clang_getCanonicalType(clang_getCursorType(kids[0])).kind == CXType_Pointer) return true;
    return shared_access(tu, kids[0]);
  case CXCursor_UnaryOperator:
    return clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_Deref;
  case CXCursor_UnexposedExpr: /* an implicit conversion around an access */
  case CXCursor_ParenExpr:
    return lint_children(c, kids, 3) >= 1 && shared_access(tu, kids[0]);
  default:
    return false;
  }
}

struct exit_scan {
  CXTranslationUnit tu;
  const struct decls *written;
  bool self_written;  /* the loop writes something an exit reads */
  CXCursor shared;    /* the first shared plain access an exit reads */
  bool have_shared;
  bool opaque;        /* an exit calls a reader: reads the lint cannot see */
};

static enum CXChildVisitResult scan_exit(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct exit_scan *e = data;
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_DeclRefExpr || k == CXCursor_MemberRefExpr) {
    CXCursor d = clang_getCursorReferenced(c);
    if (!clang_Cursor_isNull(d) && decls_has(e->written, d)) e->self_written = true;
  }
  bool reads_shared = false;
  if (k == CXCursor_CallExpr && !is_pure_call(c) && is_reader_call(e->tu, c, &reads_shared)) {
    e->opaque = true;
    if (!e->have_shared && reads_shared) {
      e->shared = c;
      e->have_shared = true;
    }
  }
  if (!e->have_shared && is_access(k) && shared_access(e->tu, c) &&
      !clang_isConstQualifiedType(clang_getCursorType(c))) {
    e->shared = c;
    e->have_shared = true;
  }
  return CXChildVisit_Recurse;
}

static bool is_exit_stmt(CXCursor c) {
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_BreakStmt || k == CXCursor_ReturnStmt || k == CXCursor_GotoStmt) return true;
  if (k != CXCursor_CompoundStmt) return false;
  CXCursor kids[LINT_MAX_CHILDREN];
  size_t n = lint_children(c, kids, LINT_MAX_CHILDREN);
  for (size_t i = 0; i < n; i++) {
    enum CXCursorKind kk = clang_getCursorKind(kids[i]);
    if (kk == CXCursor_BreakStmt || kk == CXCursor_ReturnStmt || kk == CXCursor_GotoStmt) return true;
  }
  return false;
}

struct exits {
  CXCursor conds[LINT_MAX_LOOP_EXITS];
  size_t n;
  bool too_many; /* then the loop is not judged: an exit left out could be its way out */
};

/* The conditions of the `if`s in a loop body that leave the loop (not those
 * inside inner loops and switches, whose break is theirs). */
static enum CXChildVisitResult find_exits(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct exits *x = data;
  switch (clang_getCursorKind(c)) {
  case CXCursor_WhileStmt:
  case CXCursor_DoStmt:
  case CXCursor_ForStmt:
  case CXCursor_SwitchStmt:
    return CXChildVisit_Continue;
  case CXCursor_IfStmt: {
    CXCursor kids[4];
    size_t n = lint_children(c, kids, 4);
    bool exits = false;
    for (size_t i = 1; i < n; i++) exits = exits || is_exit_stmt(kids[i]);
    if (exits && n >= 2) {
      if (x->n < LINT_MAX_LOOP_EXITS) x->conds[x->n++] = kids[0];
      else x->too_many = true;
    }
    return CXChildVisit_Recurse;
  }
  default:
    return CXChildVisit_Recurse;
  }
}

/* The offsets of a for statement's two ';' and its ')' in its header. */
static bool for_header(CXTranslationUnit tu, CXCursor loop, unsigned *semi1, unsigned *semi2,
                       unsigned *rparen) {
  CXToken *tokens = NULL;
  unsigned n = 0, semis = 0;
  int depth = 0;
  bool ok = false;
  clang_tokenize(tu, clang_getCursorExtent(loop), &tokens, &n);
  for (unsigned i = 0; i < n && !ok; i++) {
    CXString s = clang_getTokenSpelling(tu, tokens[i]);
    const char *sp = clang_getCString(s);
    unsigned off;
    clang_getExpansionLocation(clang_getTokenLocation(tu, tokens[i]), NULL, NULL, NULL, &off);
    if (strcmp(sp, "(") == 0) depth++;
    else if (strcmp(sp, ")") == 0 && --depth == 0) {
      *rparen = off;
      ok = semis == 2;
    } else if (depth == 1 && strcmp(sp, ";") == 0) {
      if (semis == 0) *semi1 = off;
      else *semi2 = off;
      semis++;
    }
    clang_disposeString(s);
  }
  clang_disposeTokens(tu, tokens, n);
  return ok;
}

static unsigned start_offset(CXCursor c) {
  unsigned off;
  clang_getExpansionLocation(clang_getRangeStart(clang_getCursorExtent(c)), NULL, NULL, NULL, &off);
  return off;
}

void lint_spin_loop(struct lint_tu *t, CXCursor loop) {
  CXCursor kids[8];
  size_t n = lint_children(loop, kids, 8);
  if (n == 0) return;
  CXCursor parts[8]; /* what runs each iteration: condition, body, increment */
  size_t n_parts = 0;
  CXCursor cond = clang_getNullCursor(), body;
  switch (clang_getCursorKind(loop)) {
  case CXCursor_WhileStmt:
    if (n < 2) return;
    cond = kids[n - 2];
    body = kids[n - 1];
    break;
  case CXCursor_DoStmt:
    if (n < 2) return;
    body = kids[0];
    cond = kids[1];
    break;
  default: { /* for: its parts are known by where they start */
    unsigned semi1, semi2, rparen;
    if (!for_header(t->tu, loop, &semi1, &semi2, &rparen)) return;
    body = kids[n - 1];
    for (size_t i = 0; i + 1 < n; i++) {
      unsigned off = start_offset(kids[i]);
      if (off > semi1 && off < semi2) cond = kids[i];
      else if (off > semi2 && off < rparen) parts[n_parts++] = kids[i];
    }
    break;
  }
  }
  struct exits exits = {.n = 0};
  if (!clang_Cursor_isNull(cond)) {
    long long value;
    if (lint_eval_int(cond, &value)) {
      if (value == 0) return; /* do { } while (0) */
    } else {
      exits.conds[exits.n++] = cond;
    }
    parts[n_parts++] = cond;
  }
  parts[n_parts++] = body;
  find_exits(body, loop, &exits);
  clang_visitChildren(body, find_exits, &exits);
  if (exits.n == 0 || exits.too_many) return; /* no way out at all: not a wait for anything */

  struct loop_scan *s = calloc(1, sizeof *s);
  if (s == NULL) abort();
  s->tu = t->tu;
  for (size_t i = 0; i < n_parts; i++) scan_part(s, parts[i]);
  if (!s->yields) {
    struct exit_scan e = {.tu = t->tu, .written = &s->written};
    for (size_t i = 0; i < exits.n && !e.self_written; i++) {
      scan_exit(exits.conds[i], loop, &e);
      clang_visitChildren(exits.conds[i], scan_exit, &e);
    }
    /* What a reader reads is unknown: any write in the loop may be it. */
    if (e.opaque && s->written.n > 0) e.self_written = true;
    if (!e.self_written && e.have_shared) {
      char what[LINT_MAX_TEXT];
      lint_text(t->tu, e.shared, what, sizeof what);
      lint_report(t, loop, LINT_CHECK_SPIN_WAIT, LINT_WARNING,
                  "loop waits on '%s', plain memory that nothing in the loop writes, with no "
                  "call, atomic or volatile access in it: under detsim no other thread runs while "
                  "it spins (no yield point), so it spins until the watchdog ends the run; read it "
                  "with atomic_load (a yield point) or wait on a condition variable",
                  what);
    }
  }
  free(s);
}
