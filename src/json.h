/* A small JSON writer: builds one document into a buffer, escaping
 * strings (control characters as \uXXXX, invalid UTF-8 as U+FFFD). */
#ifndef SBX_JSON_H
#define SBX_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

#define SBX_JSON_MAX_DEPTH 64

struct sbx_json {
	struct sbx_buf buf;
	int depth;
	bool need_comma[SBX_JSON_MAX_DEPTH];
	bool after_key;
};

void sbx_json_obj_begin(struct sbx_json *j);
void sbx_json_obj_end(struct sbx_json *j);
void sbx_json_arr_begin(struct sbx_json *j);
void sbx_json_arr_end(struct sbx_json *j);
void sbx_json_key(struct sbx_json *j, const char *key);
void sbx_json_str(struct sbx_json *j, const char *s); /* NULL writes null */
void sbx_json_strn(struct sbx_json *j, const char *s, size_t n);
void sbx_json_int(struct sbx_json *j, int64_t v);
void sbx_json_uint(struct sbx_json *j, uint64_t v);
void sbx_json_bool(struct sbx_json *j, bool v);
void sbx_json_null(struct sbx_json *j);
void sbx_json_strv(struct sbx_json *j, const struct sbx_strv *sv);

/* Returns the document and resets j; the caller frees the result. */
char *sbx_json_steal(struct sbx_json *j);

/* Appends s to b as a JSON string literal, quotes included. Control
 * characters (C0, DEL, the C1 range U+0080-U+009F) and the code points
 * that reorder or break a line on screen (U+2028-U+202E, U+2066-U+2069)
 * are written as \uXXXX escapes, bytes that are not UTF-8 as \ufffd. */
void sbx_json_escape(struct sbx_buf *b, const char *s, size_t n);

#endif
