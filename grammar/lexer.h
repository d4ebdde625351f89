/* lexer.h: what grammar/lexer.re and grammar/parser.y share (private to grammar/): the lexer's
 * state, string-literal pieces, and the parse context that collects the first error. */
#ifndef TES_LEXER_H
#define TES_LEXER_H

#include <stdbool.h>
#include <stddef.h>

#include "frontend/lang/parse.h"
#include "parser.h"

/* Limits that turn hostile input into a SyntaxError instead of a stack overflow. */
enum {
  LEX_MAX_PARENS = 200,   /* open brackets at once */
  LEX_MAX_INDENT = 100,   /* indentation levels */
  LEX_MAX_FSTR_DEPTH = 8, /* f-strings inside f-string replacement fields */
};

/* One parse_source call: the arena nodes go to and the first error. Sub-parsers of f-string
 * replacement fields share it. */
#define LEX_ERROR TOK_TES_YYerror /* bison's token for "the lexer reported an error" */

typedef struct ParseCtx {
  Arena *arena;
  Source *src;
  ParseError *err;
  bool failed;
  int fstr_depth;
  /* INT nodes holding 2**63: legal only as the operand of unary minus, which folds them to
   * INT64_MIN and clears their entry; a survivor is "integer literal too large". */
  NodeList bigints;
} ParseCtx;

typedef enum { LEX_FILE, LEX_EXPR } LexMode; /* a whole source, or one f-string field */

typedef struct LexBracket {
  char ch;
  int line, col;
} LexBracket;

/* The first token of a logical line, to name a block's header in messages. */
typedef struct LexHead {
  int tok, line;
  const char *text;
} LexHead;

/* A string literal token, before adjacent literals are joined. */
typedef struct StrPiece {
  struct StrPiece *next;
  SrcLoc loc;       /* the first character, prefix included */
  bool raw, fmt;    /* r and f prefixes */
  const char *body; /* between the quotes, undecoded */
  size_t len;
  int body_line, body_col;
  char *dec; /* decoded bytes (not for f-strings) */
  size_t dec_len;
} StrPiece;

struct Lexer {
  ParseCtx *ctx;
  LexMode mode;
  const char *cur;        /* next byte; the text ends with a NUL sentinel */
  const char *line_start; /* column of p on this line: p - line_start + col0 */
  int line, col0;
  bool started;         /* the start token went out */
  bool at_bol;          /* the next byte begins a physical line at bracket depth 0 */
  bool line_has_tokens; /* the logical line so far has a real token: a NEWLINE is due */
  bool at_eof;          /* the sentinel was reached: only NEWLINE/DEDENT/END follow */
  const char *cont_end; /* just past the last `\` line continuation */
  int pending_dedents;
  int dedent_line, dedent_col;
  int nindent; /* indentation levels above column 0 */
  int indcol[LEX_MAX_INDENT + 1], altcol[LEX_MAX_INDENT + 1]; /* tab width 8 and 1 */
  int nparens;
  LexBracket parens[LEX_MAX_PARENS];
  const char *tok; /* the last token's text, for error messages */
  size_t tok_len;
  LexHead head[2];       /* the first tokens of the last two logical lines */
  int end_line, end_col; /* just past the last real token: where errors at the end point */
  /* results of the parse */
  NodeList stmts; /* LEX_FILE */
  Node *expr;     /* LEX_EXPR */
};

/* text[len] must be NUL; no NUL may occur before it. line/col: where text[0] sits in the
 * source (f-string fields are parsed in place, so their nodes get true locations). */
void lex_init(Lexer *lx, ParseCtx *ctx, const char *text, LexMode mode, int line, int col);
int tes_yylex(TES_YYSTYPE *lval, TES_YYLTYPE *lloc, Lexer *lx);

/* After a syntax error in a whole source: lexes on to the end and reports the innermost
 * bracket, open at the error, that is never closed: Python blames it instead (`f(1 2` is
 * "'(' was never closed"). */
bool lex_unclosed_bracket(Lexer *lx, LexBracket *b);

/* Whether text[0..len) is UTF-8, as Python requires of a source; false with a SyntaxError
 * recorded at the first bad byte, worded as Python's codec words it ("can't decode byte 0xff
 * in position 3: invalid start byte"). */
bool lex_check_utf8(ParseCtx *ctx, const char *text, size_t len);

/* Records the first error of the parse; always returns false. */
bool lex_error(ParseCtx *ctx, int line, int col, bool incomplete, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* A state no input reaches: the parse fails with an internal error that asks for a report, as
 * ir/support.h's TES_UNREACHABLE would say, but the REPL lives on. Always returns false. */
#define LEX_UNREACHABLE(ctx) lex_unreachable((ctx), __FILE__, __LINE__)
bool lex_unreachable(ParseCtx *ctx, const char *file, int line);
SrcLoc lex_loc(const ParseCtx *ctx, int line, int col);

/* Joins adjacent literals into one STR, or one FSTR if any is an f-string. NULL on error. */
Node *lex_string_node(ParseCtx *ctx, StrPiece *first);

/* Grows an arena array of n elements of `size` bytes so element n fits (capacity is implicit:
 * max(4, n rounded up to a power of two)). */
void *lex_grow(Arena *a, void *items, int n, size_t size);

/* parser.y: parses one f-string replacement field, text[0..len), found at line/col. */
Node *lex_parse_field(ParseCtx *ctx, const char *text, size_t len, int line, int col);

#endif
