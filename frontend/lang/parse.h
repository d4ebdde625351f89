/* parse.h: the front end's entry point: source text in, a Unit (arena + AST) out. */
#ifndef TES_PARSE_H
#define TES_PARSE_H

#include "frontend/lang/ast.h"

typedef struct ParseError {
  SrcLoc loc;       /* loc.src borrowed from the Source given to parse_source */
  char msg[256];    /* lowercase, says what was found and what was expected */
  bool incomplete;  /* the input ended inside a bracket, a triple-quoted string, after a
                       `\`, or where an indented block must follow: a REPL reads more */
} ParseError;

/* Lexes and parses the whole text of src. Returns a Unit (refcnt 1) whose root is an
 * AST_MODULE, or NULL with *err filled. Names are unresolved (see resolve.h). Never aborts on
 * any input; nesting deeper than 200 brackets or blocks is an error, not a crash. */
Unit *parse_source(Source *src, ParseError *err);

#endif
