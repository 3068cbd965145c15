/* The notes of the table's UNSUPPORTED lines, as `why_<name>` strings
 * (included by intercept_process.c with UNSUPPORTED_NOTE defined). */
#define DETSIM_FN_REWRITE(name, note)
#define DETSIM_FN_YIELD(name, note)
#define DETSIM_FN_PASSTHROUGH(name, note)
#define DETSIM_FN_UNSUPPORTED(name, note) UNSUPPORTED_NOTE(name) note;
#define DETSIM_FN(name, canonical, class, group, note) DETSIM_FN_##class(name, note)
#include "intercept_table.def"
#undef DETSIM_FN
#undef DETSIM_FN_REWRITE
#undef DETSIM_FN_YIELD
#undef DETSIM_FN_PASSTHROUGH
#undef DETSIM_FN_UNSUPPORTED
