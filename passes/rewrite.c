/* REWRITE: every call to a table function goes to `__detsim_<name>`.
 *
 * The declaration itself is renamed, which replaces direct calls and
 * address-taken uses (a function pointer handed to a library) at once and
 * keeps the function type, linkage and parameter attributes.  Two cases need
 * a fresh declaration instead: the module already declares
 * `__detsim_<name>` (uses move to it), or the function has an
 * available_externally body (a copy of the library's code for inlining,
 * which must not be kept under the runtime's name).
 *
 * Attributes that promise what the runtime does not keep are dropped from
 * the declaration and from every call: the runtime synchronises (a yield
 * point may switch threads), may block forever, frees memory, calls back
 * into the program (thread start routines, once routines) and keeps the
 * pointers it is given (a mutex stays registered).  Under LTO the post-link
 * optimiser would otherwise trust these promises.  ABI attributes (signext,
 * byval, sret) and noreturn stay.
 */
#include <stdio.h>
#include <string.h>

#include "pass_internal.h"

static const char *const unsafe_fn_attrs[] = {
    "memory", "nosync", "willreturn", "nofree", "speculatable", "nocallback",
};
static const char *const unsafe_param_attrs[] = {
    "nocapture", "readnone", "readonly", "writeonly",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static unsigned attr_kind(const char *name) {
  return LLVMGetEnumAttributeKindForName(name, strlen(name));
}

static void strip_function(LLVMValueRef fn) {
  for (size_t i = 0; i < COUNT(unsafe_fn_attrs); i++)
    LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                                   attr_kind(unsafe_fn_attrs[i]));
  unsigned params = LLVMCountParams(fn);
  for (unsigned p = 1; p <= params; p++) {
    for (size_t i = 0; i < COUNT(unsafe_param_attrs); i++)
      LLVMRemoveEnumAttributeAtIndex(fn, p, attr_kind(unsafe_param_attrs[i]));
  }
}

static void strip_call(LLVMValueRef call) {
  for (size_t i = 0; i < COUNT(unsafe_fn_attrs); i++)
    LLVMRemoveCallSiteEnumAttribute(call, LLVMAttributeFunctionIndex,
                                    attr_kind(unsafe_fn_attrs[i]));
  unsigned args = LLVMGetNumArgOperands(call);
  for (unsigned a = 1; a <= args; a++) {
    for (size_t i = 0; i < COUNT(unsafe_param_attrs); i++)
      LLVMRemoveCallSiteEnumAttribute(call, a, attr_kind(unsafe_param_attrs[i]));
  }
}

/* Every call whose callee is `fn` (not calls that merely pass it along). */
static void strip_calls(LLVMValueRef fn) {
  for (LLVMUseRef use = LLVMGetFirstUse(fn); use != NULL;
       use = LLVMGetNextUse(use)) {
    LLVMValueRef user = LLVMGetUser(use);
    if (LLVMIsAInstruction(user) != NULL && detsim__direct_callee(user) == fn)
      strip_call(user);
  }
}

/* A declaration named `name` with the type and attributes of `from`. */
static LLVMValueRef declare_like(struct detsim_module *st, LLVMValueRef from,
                                 const char *name) {
  LLVMValueRef fn = LLVMAddFunction(st->m, name, LLVMGlobalGetValueType(from));
  unsigned params = LLVMCountParams(from);
  for (long idx = -1; idx <= (long)params; idx++) {
    LLVMAttributeIndex i = (LLVMAttributeIndex)idx; /* -1: the function */
    unsigned n = LLVMGetAttributeCountAtIndex(from, i);
    if (n == 0)
      continue;
    LLVMAttributeRef attrs[64];
    if (n > COUNT(attrs))
      n = COUNT(attrs);
    LLVMGetAttributesAtIndex(from, i, attrs);
    for (unsigned a = 0; a < n; a++)
      LLVMAddAttributeAtIndex(fn, i, attrs[a]);
  }
  return fn;
}

static void rewrite_one(struct detsim_module *st, LLVMValueRef fn,
                        const struct detsim_fn *info) {
  char name[128];
  int n = snprintf(name, sizeof name, "__detsim_%s", info->name);
  if (n < 0 || (size_t)n >= sizeof name)
    return; /* no table name is this long; never rename to a truncated one */

  LLVMValueRef target = LLVMGetNamedFunction(st->m, name);
  if (target == NULL && LLVMIsDeclaration(fn)) {
    LLVMSetValueName2(fn, name, (size_t)n);
    target = fn;
  } else {
    if (target == NULL)
      target = declare_like(st, fn, name);
    LLVMReplaceAllUsesWith(fn, target);
    LLVMDeleteFunction(fn);
  }
  strip_function(target);
  strip_calls(target);
  st->changed = 1;
}

void detsim__rewrite_declarations(struct detsim_module *st) {
  for (size_t i = 0; i < st->known_len; i++) {
    if (st->known[i].info->cls == DETSIM_CLASS_REWRITE)
      rewrite_one(st, st->known[i].fn, st->known[i].info);
  }
}
