/* time-seed: a pseudo-random generator seeded from a value that is not the
 * program's choice.
 *
 * Under detsim the clock, pids and addresses are the simulation's (virtual
 * time; the world's pids; no address randomization), so a seed taken from
 * time(), clock_gettime, gettimeofday, getpid or `&local` replays from
 * DETSIM_SEED: that is a note, about native runs, which draw a new seed each
 * time and never say which, so a failure seen natively cannot be replayed.
 * A seed from a value the simulation cannot see (rdtsc, rdtscp, rdrand,
 * rdseed: intrinsics or inline asm) differs on every run even under detsim:
 * that is a warning.  getrandom and /dev/urandom are the seed's streams
 * under detsim: not findings.
 *
 * Seeds are the first argument of srand, srandom, srand48, seed48, lcong48,
 * initstate and their _r forms, and what is stored in a variable or field
 * whose name says seed or rng.  Values are followed through variables
 * (`t = time(0); srand(t)`), the out-parameters of clock calls
 * (`clock_gettime(.., &ts)`), the outputs of asm that reads the counter, and
 * the return values of the translation unit's own functions, to a fixpoint
 * of at most LINT_MAX_TAINT_PASSES passes.  An address counts once it is
 * cast to an integer (`(uintptr_t)&x`), not as a pointer kept to read
 * through.  A seed-named variable is named where its value came from, not
 * again where it is copied into another (`r.seed = seed`).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lint.h"

enum src { SRC_NONE, SRC_VIRTUAL, SRC_REAL };

struct taint {
  CXCursor decl; /* canonical */
  enum src cls;
  char what[96]; /* "time()", "__rdtsc()", "the address of 'x'" */
  bool reported;
};

struct seed_state {
  struct lint_tu *t;
  struct taint *items;
  size_t n;
  bool changed;
  CXCursor fn; /* the function being walked (null outside one) */
};

static const char *const virtual_calls[] = {
    "time", "clock_gettime", "gettimeofday", "clock", "times", "ftime", "timespec_get",
    "getpid", "getppid", "gettid", "pthread_self",
};

/* The clock calls that fill the object an argument points to. */
static const char *const out_param_calls[] = {
    "time", "clock_gettime", "gettimeofday", "ftime", "timespec_get", "times",
};

static bool in_list(const char *name, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(name, list[i]) == 0) return true;
  return false;
}
#define IN_LIST(name, list) in_list(name, list, sizeof list / sizeof *list)

static struct taint *find(struct seed_state *s, CXCursor decl) {
  decl = clang_getCanonicalCursor(decl);
  for (size_t i = 0; i < s->n; i++)
    if (clang_equalCursors(s->items[i].decl, decl)) return &s->items[i];
  return NULL;
}

static void taint(struct seed_state *s, CXCursor decl, enum src cls, const char *what) {
  if (cls == SRC_NONE || clang_Cursor_isNull(decl)) return;
  struct taint *x = find(s, decl);
  if (x == NULL) {
    if (s->n >= LINT_MAX_TAINTED) {
      fprintf(stderr, "detsim-lint: error: more than %d values followed by time-seed (LINT_MAX_TAINTED)\n",
              LINT_MAX_TAINTED);
      exit(LINT_EXIT_USAGE);
    }
    x = &s->items[s->n++];
    *x = (struct taint){.decl = clang_getCanonicalCursor(decl), .cls = SRC_NONE};
  }
  if (cls > x->cls) {
    x->cls = cls;
    snprintf(x->what, sizeof x->what, "%s", what);
    s->changed = true;
  }
}

struct eval {
  struct seed_state *s;
  enum src cls;
  char what[96];
  int in_call_args; /* an address passed to a call is not the seed itself */
  int int_casts;    /* an address is entropy once cast to an integer */
  bool skip_seeds;  /* values that come through seed-named variables and
                       functions were named where those got them */
};

static bool names_a_seed(CXCursor decl);

static void raise_to(struct eval *e, enum src cls, const char *what) {
  if (cls > e->cls) {
    e->cls = cls;
    snprintf(e->what, sizeof e->what, "%s", what);
  }
}

static enum CXChildVisitResult eval_visit(CXCursor c, CXCursor parent, CXClientData data);

static void eval_into(struct eval *e, CXCursor c) {
  if (eval_visit(c, clang_getNullCursor(), e) == CXChildVisit_Recurse) clang_visitChildren(c, eval_visit, e);
}

static void eval_children(struct eval *e, CXCursor c) {
  clang_visitChildren(c, eval_visit, e);
}

static enum CXChildVisitResult eval_visit(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct eval *e = data;
  char buf[128];
  switch (clang_getCursorKind(c)) {
  case CXCursor_CallExpr: {
    char name[96];
    lint_callee_name(c, name, sizeof name);
    const char *insn = name[0] ? lint_intrinsic_insn(name) : NULL;
    if (insn != NULL && (strncmp(insn, "rdtsc", 5) == 0 || strcmp(insn, "rdrand") == 0 ||
                         strcmp(insn, "rdseed") == 0)) {
      snprintf(buf, sizeof buf, "%s()", name);
      raise_to(e, SRC_REAL, buf);
    } else if (name[0] && IN_LIST(name, virtual_calls)) {
      snprintf(buf, sizeof buf, "%s()", name);
      raise_to(e, SRC_VIRTUAL, buf);
    } else if (name[0]) {
      struct taint *x = find(e->s, clang_getCursorReferenced(c));
      if (x != NULL && !(e->skip_seeds && names_a_seed(clang_getCursorReferenced(c)))) {
        snprintf(buf, sizeof buf, "%s() (%s)", name, x->what);
        raise_to(e, x->cls, buf);
      }
    }
    e->in_call_args++;
    eval_children(e, c);
    e->in_call_args--;
    return CXChildVisit_Continue;
  }
  case CXCursor_DeclRefExpr: {
    CXCursor d = clang_getCursorReferenced(c);
    if (clang_getCursorKind(d) == CXCursor_VarDecl || clang_getCursorKind(d) == CXCursor_ParmDecl) {
      struct taint *x = find(e->s, d);
      if (x != NULL && !(e->skip_seeds && names_a_seed(d))) raise_to(e, x->cls, x->what);
    }
    return CXChildVisit_Continue;
  }
  case CXCursor_UnaryOperator:
    if (clang_getCursorUnaryOperatorKind(c) == CXUnaryOperator_AddrOf && e->in_call_args == 0 &&
        e->int_casts > 0) {
      char text[LINT_MAX_TEXT];
      lint_text(e->s->t->tu, c, text, sizeof text);
      snprintf(buf, sizeof buf, "the address '%.60s'", text);
      raise_to(e, SRC_VIRTUAL, buf);
      return CXChildVisit_Continue;
    }
    return CXChildVisit_Recurse;
  case CXCursor_CStyleCastExpr: {
    /* (uintptr_t)&x: the address as a number.  A pointer kept as a pointer
     * (`p = &a[i]`) is not: what it points to is the program's. */
    enum CXTypeKind k = clang_getCanonicalType(clang_getCursorType(c)).kind;
    bool to_int = k >= CXType_Bool && k <= CXType_Int128; /* the integer kinds */
    e->int_casts += to_int;
    eval_children(e, c);
    e->int_casts -= to_int;
    return CXChildVisit_Continue;
  }
  default:
    return CXChildVisit_Recurse;
  }
}

static struct eval eval_expr(struct seed_state *s, CXCursor expr) {
  struct eval e = {.s = s, .cls = SRC_NONE};
  eval_into(&e, expr);
  return e;
}

/* The variable an lvalue stores into (`s.x[2]`: s), or a null cursor. */
static CXCursor root_var(CXCursor lvalue) {
  for (int depth = 0; depth < 64; depth++) {
    enum CXCursorKind k = clang_getCursorKind(lvalue);
    if (k == CXCursor_DeclRefExpr) return clang_getCursorReferenced(lvalue);
    CXCursor kids[3];
    if (lint_children(lvalue, kids, 3) < 1) break;
    if (k == CXCursor_UnaryOperator && clang_getCursorUnaryOperatorKind(lvalue) != CXUnaryOperator_AddrOf &&
        clang_getCursorUnaryOperatorKind(lvalue) != CXUnaryOperator_Deref)
      break;
    lvalue = kids[0];
  }
  return clang_getNullCursor();
}

/* Pass 1 (repeated): what each variable and function may hold. */
static enum CXChildVisitResult learn(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct seed_state *s = data;
  if (lint_in_system_header(c)) return CXChildVisit_Continue;
  CXCursor kids[LINT_MAX_CHILDREN];
  switch (clang_getCursorKind(c)) {
  case CXCursor_VarDecl: {
    CXCursor init = clang_Cursor_getVarDeclInitializer(c);
    if (!clang_Cursor_isNull(init)) {
      struct eval e = eval_expr(s, init);
      taint(s, c, e.cls, e.what);
    }
    break;
  }
  case CXCursor_BinaryOperator:
  case CXCursor_CompoundAssignOperator: {
    enum CXBinaryOperatorKind op = clang_getCursorBinaryOperatorKind(c);
    if (op >= CXBinaryOperator_Assign && op <= CXBinaryOperator_OrAssign &&
        lint_children(c, kids, 3) == 2) {
      struct eval e = eval_expr(s, kids[1]);
      taint(s, root_var(kids[0]), e.cls, e.what);
    }
    break;
  }
  case CXCursor_CallExpr: {
    char name[96], what[128];
    lint_callee_name(c, name, sizeof name);
    const char *insn = name[0] ? lint_intrinsic_insn(name) : NULL;
    bool out_real = insn != NULL && (strcmp(insn, "rdrand") == 0 || strcmp(insn, "rdseed") == 0 ||
                                     strcmp(insn, "rdtscp") == 0);
    if (!out_real && !(name[0] && IN_LIST(name, out_param_calls))) break;
    snprintf(what, sizeof what, "%s()", name);
    int nargs = clang_Cursor_getNumArguments(c);
    for (int i = 0; i < nargs; i++) {
      CXCursor arg = clang_Cursor_getArgument(c, (unsigned)i);
      taint(s, root_var(arg), out_real ? SRC_REAL : SRC_VIRTUAL, what);
    }
    break;
  }
  case CXCursor_GCCAsmStmt:
  case CXCursor_MSAsmStmt: {
    char names[LINT_MAX_TEXT];
    lint_asm_insns(s->t->tu, c, names, sizeof names);
    const char *which = strstr(names, "'rdtsc") ? "rdtsc" : strstr(names, "'rdrand'") ? "rdrand"
                        : strstr(names, "'rdseed'") ? "rdseed" : NULL;
    if (which == NULL) break;
    char what[96];
    snprintf(what, sizeof what, "asm '%s'", which);
    size_t n = lint_children(c, kids, LINT_MAX_CHILDREN);
    for (size_t i = 0; i < n; i++) taint(s, root_var(kids[i]), SRC_REAL, what);
    break;
  }
  case CXCursor_FunctionDecl: {
    CXCursor outer = s->fn;
    s->fn = c;
    clang_visitChildren(c, learn, s);
    s->fn = outer;
    return CXChildVisit_Continue;
  }
  case CXCursor_ReturnStmt:
    /* A function returns what its return statements compute. */
    if (!clang_Cursor_isNull(s->fn) && lint_children(c, kids, 2) >= 1) {
      struct eval e = eval_expr(s, kids[0]);
      taint(s, s->fn, e.cls, e.what);
    }
    break;
  default:
    break;
  }
  return CXChildVisit_Recurse;
}

static const char *const seed_calls[] = {
    "srand", "srandom", "srand48", "seed48", "lcong48", "initstate",
    "srandom_r", "srand48_r", "seed48_r", "lcong48_r", "initstate_r",
};

static bool names_a_seed(CXCursor decl) {
  CXString s = clang_getCursorSpelling(decl);
  char lower[128];
  snprintf(lower, sizeof lower, "%s", clang_getCString(s));
  clang_disposeString(s);
  for (char *p = lower; *p; p++) *p = (char)tolower((unsigned char)*p);
  return strstr(lower, "seed") != NULL || strstr(lower, "rng") != NULL;
}

static void report(struct seed_state *s, CXCursor at, const char *sink, const struct eval *e) {
  if (e->cls == SRC_REAL)
    lint_report(s->t, at, LINT_CHECK_TIME_SEED, LINT_WARNING,
                "%s seeded from %s, which detsim cannot see: it differs on every run, so one "
                "DETSIM_SEED takes different histories; seed from time(), getrandom() or a "
                "fixed value",
                sink, e->what);
  else
    lint_report(s->t, at, LINT_CHECK_TIME_SEED, LINT_NOTE,
                "%s seeded from %s: deterministic under detsim (virtual clock and pids, no "
                "address randomization), so the run replays from DETSIM_SEED; natively each run "
                "draws a seed it never prints, so a native failure cannot be replayed: print the "
                "seed or take it from the environment",
                sink, e->what);
}

/* Pass 2: the seeds. */
static enum CXChildVisitResult sinks(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct seed_state *s = data;
  if (lint_in_system_header(c)) return CXChildVisit_Continue;
  char sink[160];
  switch (clang_getCursorKind(c)) {
  case CXCursor_CallExpr: {
    char name[96];
    lint_callee_name(c, name, sizeof name);
    if (!name[0] || !IN_LIST(name, seed_calls) || clang_Cursor_getNumArguments(c) < 1) break;
    CXCursor arg = clang_Cursor_getArgument(c, 0);
    struct eval e = eval_expr(s, arg);
    if (e.cls == SRC_NONE) break;
    snprintf(sink, sizeof sink, "%s", name);
    report(s, c, sink, &e);
    /* The variable it came through is this seed: not reported again. */
    struct taint *x = find(s, root_var(arg));
    if (x != NULL) x->reported = true;
    break;
  }
  default:
    break;
  }
  return CXChildVisit_Recurse;
}

static enum CXChildVisitResult named_sinks(CXCursor c, CXCursor parent, CXClientData data) {
  (void)parent;
  struct seed_state *s = data;
  if (lint_in_system_header(c)) return CXChildVisit_Continue;
  CXCursor kids[3];
  char sink[160];
  CXCursor target = clang_getNullCursor(), value = clang_getNullCursor();
  enum CXCursorKind k = clang_getCursorKind(c);
  if (k == CXCursor_VarDecl) {
    target = c;
    value = clang_Cursor_getVarDeclInitializer(c);
  } else if ((k == CXCursor_BinaryOperator || k == CXCursor_CompoundAssignOperator) &&
             clang_getCursorBinaryOperatorKind(c) >= CXBinaryOperator_Assign &&
             clang_getCursorBinaryOperatorKind(c) <= CXBinaryOperator_OrAssign &&
             lint_children(c, kids, 3) == 2) {
    value = kids[1];
    /* `st.seed = ...` names the field; `seed = ...` the variable. */
    target = clang_getCursorReferenced(kids[0]);
    if (clang_Cursor_isNull(target)) target = root_var(kids[0]);
  }
  if (clang_Cursor_isNull(target) || clang_Cursor_isNull(value) || !names_a_seed(target))
    return CXChildVisit_Recurse;
  struct taint *x = find(s, target);
  if (x != NULL && x->reported) return CXChildVisit_Recurse;
  struct eval e = {.s = s, .cls = SRC_NONE, .skip_seeds = true};
  eval_into(&e, value);
  if (e.cls == SRC_NONE) return CXChildVisit_Recurse;
  CXString name = clang_getCursorSpelling(target);
  snprintf(sink, sizeof sink, "'%s' (a generator's seed or state)", clang_getCString(name));
  clang_disposeString(name);
  report(s, c, sink, &e);
  return CXChildVisit_Recurse;
}

void lint_seed_tu(struct lint_tu *t) {
  struct seed_state s = {.t = t, .fn = clang_getNullCursor()};
  s.items = calloc(LINT_MAX_TAINTED, sizeof *s.items);
  if (s.items == NULL) {
    fprintf(stderr, "detsim-lint: error: out of memory\n");
    exit(LINT_EXIT_USAGE);
  }
  CXCursor root = clang_getTranslationUnitCursor(t->tu);
  for (int pass = 0; pass < LINT_MAX_TAINT_PASSES; pass++) {
    s.changed = false;
    clang_visitChildren(root, learn, &s);
    if (!s.changed) break;
  }
  clang_visitChildren(root, sinks, &s);
  clang_visitChildren(root, named_sinks, &s);
  free(s.items);
}
