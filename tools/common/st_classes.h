/* The result classes of a run, read from the runtime's own table
 * (runtime/classes.inc), so the tools never disagree with the runtime on a
 * name or an exit status. */
#ifndef ST_CLASSES_H
#define ST_CLASSES_H

enum st_class {
#define DETSIM_CLASS(name, status, desc) ST_CLASS_##name,
#include "../../runtime/classes.inc"
#undef DETSIM_CLASS
  ST_CLASS_COUNT
};

/* The runtime's exit status for bad DETSIM_SEED / DETSIM_OPTIONS
 * (runtime/core/core.h, DETSIM_EXIT_USAGE). */
#define ST_RUNTIME_EXIT_USAGE 89

const char *st_class_name(int cls);
int st_class_status(int cls);
const char *st_class_desc(int cls);
/* The class named `name`, or -1. */
int st_class_find(const char *name, int len);

#endif
