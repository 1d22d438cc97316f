/* Stub for make check-darwin: the part of inih (libinih) sbxrun uses. */
#ifndef STUB_INI_H
#define STUB_INI_H
#include <stdio.h>
typedef int (*ini_handler)(void *user, const char *section, const char *name, const char *value);
typedef char *(*ini_reader)(char *str, int num, void *stream);
int ini_parse_stream(ini_reader reader, void *stream, ini_handler handler, void *user);
#endif
