/* DETSIM_OPTIONS text (key=value:key=value), read as the runtime reads it:
 * a key set twice takes its last value. */
#ifndef ST_OPTIONS_H
#define ST_OPTIONS_H

#include <stdbool.h>

/* The last value of `key` (malloc'd), or NULL when the text does not set it. */
char *st_options_value(const char *options, const char *key);
bool st_options_have(const char *options, const char *key);
/* `key` is set true, in the runtime's spellings (1, true, yes). */
bool st_options_true(const char *options, const char *key);
/* The text without any setting of `key` (malloc'd). */
char *st_options_without(const char *options, const char *key);

#endif
