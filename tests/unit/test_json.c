/* test_json.c: frontend/json.c, the JSON of tes --serve: values, escapes and surrogate pairs,
 * malformed texts with the byte offset they name, the nesting limit, and the writer's
 * escaping of control characters and of bytes that are not UTF-8. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "frontend/json.h"

static Json *parse(const char *text) {
  char *err = NULL;
  Json *v = json_parse(text, strlen(text), &err);
  if (!v) printf("unexpected: %s\n", err);
  free(err);
  return v;
}

/* The error message of a text that must not parse ("" if it parsed); static. */
static const char *error_of(const char *text, size_t len) {
  static char msg[200];
  char *err = NULL;
  Json *v = json_parse(text, len, &err);
  msg[0] = 0;
  if (v) json_free(v);
  if (err) snprintf(msg, sizeof msg, "%s", err);
  free(err);
  return msg;
}

static const char *bad(const char *text) { return error_of(text, strlen(text)); }

/* v written back (static) */
static const char *written(const Json *v) {
  static char out[4096];
  StrBuf b = STRBUF_INIT;
  json_write(&b, v);
  snprintf(out, sizeof out, "%s", sb_cstr(&b));
  sb_free(&b);
  return out;
}

static const char *put_str(const char *s, size_t n) {
  static char out[4096];
  StrBuf b = STRBUF_INIT;
  json_put_str(&b, s, n);
  snprintf(out, sizeof out, "%s", sb_cstr(&b));
  sb_free(&b);
  return out;
}

static void test_values(void) {
  Json *v = parse(" {\"type\" : \"execute\", \"id\": [1, -2.5e3, true, false, null, {}],"
                  "\"n\": 0, \"type\": \"again\"}\n");
  CHECK(v && v->kind == JSON_OBJECT && v->n == 4);
  const Json *id = json_get(v, "id");
  CHECK(id && id->kind == JSON_ARRAY && id->n == 6);
  CHECK(id->items[0]->kind == JSON_NUMBER && id->items[0]->num == 1);
  CHECK(id->items[1]->num == -2500 && strcmp(id->items[1]->text, "-2.5e3") == 0);
  CHECK(id->items[2]->kind == JSON_BOOL && id->items[2]->b);
  CHECK(id->items[3]->kind == JSON_BOOL && !id->items[3]->b);
  CHECK(id->items[4]->kind == JSON_NULL);
  CHECK(id->items[5]->kind == JSON_OBJECT && id->items[5]->n == 0);
  /* a repeated key: the last one counts */
  CHECK(strcmp(json_get(v, "type")->text, "again") == 0);
  CHECK(json_get(v, "missing") == NULL && json_get(id, "type") == NULL);
  /* numbers are written back as they were written */
  CHECK_TEXT(written(id), "[1,-2.5e3,true,false,null,{}]");
  json_free(v);
  v = parse("\"\"");
  CHECK(v && v->kind == JSON_STRING && v->len == 0 && v->text[0] == 0);
  json_free(v);
}

static void test_escapes(void) {
  Json *v = parse("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\\u0041\\u00e9\\u20ac\"");
  CHECK(v && strcmp(v->text, "a\"b\\c/d\b\f\n\r\tA\xc3\xa9\xe2\x82\xac") == 0);
  json_free(v);
  /* a surrogate pair is one code point (U+1F600, four bytes) */
  v = parse("\"\\ud83d\\ude00!\"");
  CHECK(v && v->len == 5 && memcmp(v->text, "\xf0\x9f\x98\x80!", 5) == 0);
  json_free(v);
  /* lone halves read as U+FFFD */
  v = parse("\"\\ud83dx\\ude00\\ud800\\u0041\"");
  CHECK(v && strcmp(v->text, "\xef\xbf\xbdx\xef\xbf\xbd\xef\xbf\xbd" "A") == 0);
  json_free(v);
  /* \u0000 keeps its place inside the length */
  v = parse("\"a\\u0000b\"");
  CHECK(v && v->len == 3 && memcmp(v->text, "a\0b", 3) == 0);
  json_free(v);
  /* raw UTF-8 passes through */
  v = parse("\"caf\xc3\xa9\"");
  CHECK(v && strcmp(v->text, "caf\xc3\xa9") == 0);
  json_free(v);
}

static void test_malformed(void) {
  CHECK_TEXT(bad(""), "malformed JSON at byte 0: expected a value");
  CHECK_TEXT(bad("   "), "malformed JSON at byte 3: expected a value");
  CHECK_TEXT(bad("{\"a\":1"), "malformed JSON at byte 6: expected '\"', ',' or '}'");
  CHECK_TEXT(bad("{\"a\" 1}"), "malformed JSON at byte 5: expected ':'");
  CHECK_TEXT(bad("{1:2}"), "malformed JSON at byte 1: expected '\"', ',' or '}'");
  CHECK_TEXT(bad("[1,]"), "malformed JSON at byte 3: expected a value");
  CHECK_TEXT(bad("[1 2]"), "malformed JSON at byte 3: expected ',' or ']'");
  CHECK_TEXT(bad("{} x"), "malformed JSON at byte 3: text after the value");
  CHECK_TEXT(bad("\"abc"), "malformed JSON at byte 0: unterminated string");
  CHECK_TEXT(bad("\"a\nb\""), "malformed JSON at byte 2: control character in a string");
  CHECK_TEXT(bad("\"\\x\""), "malformed JSON at byte 1: unknown escape in a string");
  CHECK_TEXT(bad("\"\\u12g4\""), "malformed JSON at byte 1: bad \\u escape (four hex digits expected)");
  CHECK_TEXT(bad("\"\\u12\""), "malformed JSON at byte 1: bad \\u escape (four hex digits expected)");
  CHECK_TEXT(bad("\"\xff\""), "malformed JSON at byte 1: invalid UTF-8 in a string");
  CHECK_TEXT(bad("\"\xc0\xaf\""), "malformed JSON at byte 1: invalid UTF-8 in a string");
  CHECK_TEXT(bad("\"\xed\xa0\x80\""), "malformed JSON at byte 1: invalid UTF-8 in a string");
  CHECK_TEXT(bad("01"), "malformed JSON at byte 0: leading zero in a number");
  CHECK_TEXT(bad("1."), "malformed JSON at byte 2: expected digits after '.'");
  CHECK_TEXT(bad("1e+"), "malformed JSON at byte 3: expected digits in the exponent");
  CHECK_TEXT(bad("-"), "malformed JSON at byte 0: expected a value");
  CHECK_TEXT(bad("tru"), "malformed JSON at byte 0: expected a value");
  CHECK_TEXT(bad("nan"), "malformed JSON at byte 0: expected a value");
  CHECK_TEXT(error_of("[1]\0", 4), "malformed JSON at byte 3: text after the value");
}

static void test_depth(void) {
  char text[2 * JSON_MAX_DEPTH + 8];
  int d = JSON_MAX_DEPTH;
  for (int i = 0; i < d; i++) text[i] = '[', text[d + i] = ']';
  text[2 * d] = 0;
  Json *v = parse(text);
  CHECK(v != NULL); /* exactly the limit parses */
  json_free(v);
  memmove(text + 1, text, 2 * (size_t)d + 1);
  text[0] = '[';
  strcat(text, "]");
  char want[80];
  snprintf(want, sizeof want, "malformed JSON at byte %d: nested too deeply", d);
  CHECK_TEXT(bad(text), want);
  /* a deep object inside an array: the same limit */
  StrBuf b = STRBUF_INIT;
  for (int i = 0; i < 100000; i++) sb_puts(&b, "{\"a\":");
  CHECK(strstr(error_of(b.s, b.len), "nested too deeply") != NULL);
  sb_free(&b);
}

static void test_writer(void) {
  CHECK_TEXT(put_str("a\"b\\c\n\t\r", 8), "\"a\\\"b\\\\c\\n\\t\\r\"");
  CHECK_TEXT(put_str("\x01\x1f\x7f", 3), "\"\\u0001\\u001f\\u007f\"");
  CHECK_TEXT(put_str("a\0b", 3), "\"a\\u0000b\"");
  CHECK_TEXT(put_str("caf\xc3\xa9 \xf0\x9f\x98\x80", 10), "\"caf\xc3\xa9 \xf0\x9f\x98\x80\"");
  /* bytes that are not UTF-8, each a U+FFFD: a stray continuation, a cut sequence, an
   * overlong form, a surrogate, past U+10FFFF */
  CHECK_TEXT(put_str("\x80x", 2), "\"\xef\xbf\xbdx\"");
  CHECK_TEXT(put_str("\xe2\x82", 2), "\"\xef\xbf\xbd\xef\xbf\xbd\"");
  CHECK_TEXT(put_str("\xc0\xaf", 2), "\"\xef\xbf\xbd\xef\xbf\xbd\"");
  CHECK_TEXT(put_str("\xed\xa0\x80", 3), "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
  CHECK_TEXT(put_str("\xf4\x90\x80\x80", 4), "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
  /* what the writer makes, the reader takes back */
  const char raw[] = "x\x01\xff\"\\\n\xf0\x9f\x98\x80";
  Json *v = parse(put_str(raw, sizeof raw - 1));
  CHECK(v && strcmp(v->text, "x\x01\xef\xbf\xbd\"\\\n\xf0\x9f\x98\x80") == 0);
  json_free(v);
  v = parse("{\"k\":[\"\\u00e9\",{\"n\":null}],\"t\":true}");
  CHECK_TEXT(written(v), "{\"k\":[\"\xc3\xa9\",{\"n\":null}],\"t\":true}");
  json_free(v);
}

static void test_code_points(void) {
  const char *s = "s = '\xc3\xa9'; \xf0\x9f\x98\x80x";
  size_t n = strlen(s);
  CHECK(json_utf8_count(s, n) == 11);
  CHECK(json_utf8_offset(s, n, 5) == 5);  /* at 'é' */
  CHECK(json_utf8_offset(s, n, 6) == 7);  /* after it */
  CHECK(json_utf8_offset(s, n, 10) == 14); /* after the emoji */
  CHECK(json_utf8_offset(s, n, 99) == n);
  CHECK(json_utf8_count("\xff\xfe", 2) == 2); /* a stray byte counts as one */
}

int main(void) {
  test_values();
  test_escapes();
  test_malformed();
  test_depth();
  test_writer();
  test_code_points();
  return finish();
}
