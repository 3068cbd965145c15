/* The class table of runtime/classes.inc, as arrays (see st_classes.h). */
#include "st_classes.h"

#include <string.h>

static const char *const names[ST_CLASS_COUNT] = {
#define DETSIM_CLASS(name, status, desc) #name,
#include "../../runtime/classes.inc"
#undef DETSIM_CLASS
};
static const int statuses[ST_CLASS_COUNT] = {
#define DETSIM_CLASS(name, status, desc) status,
#include "../../runtime/classes.inc"
#undef DETSIM_CLASS
};
static const char *const descs[ST_CLASS_COUNT] = {
#define DETSIM_CLASS(name, status, desc) desc,
#include "../../runtime/classes.inc"
#undef DETSIM_CLASS
};

const char *st_class_name(int cls) { return cls >= 0 && cls < ST_CLASS_COUNT ? names[cls] : "?"; }
int st_class_status(int cls) { return cls >= 0 && cls < ST_CLASS_COUNT ? statuses[cls] : -1; }
const char *st_class_desc(int cls) { return cls >= 0 && cls < ST_CLASS_COUNT ? descs[cls] : "?"; }

int st_class_find(const char *name, int len) {
  for (int i = 0; i < ST_CLASS_COUNT; i++)
    if ((int)strlen(names[i]) == len && !strncmp(names[i], name, (size_t)len)) return i;
  return -1;
}
