/* macros.c: what the preprocessor sees under detsim-cc (-E tests). */
#include <detsim.h>
int detsim_macro = __DETSIM__;
#ifdef __DETSIM_VERIFY__
int detsim_verify_macro = __DETSIM_VERIFY__;
#else
int detsim_verify_macro_absent = 1;
#endif
