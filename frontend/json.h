/* json.h: the JSON of `tes --serve` (docs/serve.md): a reader that parses one value from a
 * request line, with errors that name the byte offset, and the writer's escaping. Strings are
 * UTF-8 with their length (a "\u0000" escape may put a NUL inside); a lone surrogate escape
 * reads as U+FFFD. The writer escapes control characters and turns bytes that are not UTF-8
 * into U+FFFD, so whatever a cell prints gives valid JSON. */
#ifndef TES_JSON_H
#define TES_JSON_H

#include <stdbool.h>
#include <stddef.h>

#include "ir/strbuf.h"

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } JsonKind;

enum { JSON_MAX_DEPTH = 64 }; /* arrays and objects nested deeper are an error */

typedef struct Json Json;
struct Json {
  JsonKind kind;
  bool b;        /* JSON_BOOL */
  double num;    /* JSON_NUMBER */
  char *text;    /* JSON_NUMBER: the literal as written; JSON_STRING: the decoded bytes */
  size_t len;    /* of text */
  int n;         /* JSON_ARRAY, JSON_OBJECT: the items (and, for an object, their keys) */
  Json **items;
  Json **keys;   /* JSON_STRING values */
};

/* Parses text[0..len) as one JSON value with only blanks around it. NULL on a malformed text,
 * with *err (malloc'd) saying what and at which byte offset. */
Json *json_parse(const char *text, size_t len, char **err);
void json_free(Json *v);
/* An object's member `key` (the last one, if repeated); NULL if absent or v is no object. */
const Json *json_get(const Json *v, const char *key);

/* Writes v as compact JSON (a number as it was written). */
void json_write(StrBuf *b, const Json *v);
/* Writes s[0..n) as a JSON string: quoted, '"', '\\' and control characters escaped, bytes
 * that do not form UTF-8 written as U+FFFD. */
void json_put_str(StrBuf *b, const char *s, size_t n);

/* Code points in s[0..n) (each byte that is not UTF-8 counts as one), and the byte offset of
 * code point `cp` (n when past the end). */
size_t json_utf8_count(const char *s, size_t n);
size_t json_utf8_offset(const char *s, size_t n, size_t cp);

#endif
