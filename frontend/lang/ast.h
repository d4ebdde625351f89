/* ast.h: the syntax tree of TES source. grammar/parser.y builds it, frontend/lang/resolve.c fills in
 * the scope fields, frontend/lang/interp.c walks it. One arena per parsed source (a Unit) holds every
 * node; a Unit is reference-counted because function values keep their bodies alive. */
#ifndef TES_AST_H
#define TES_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir/arena.h"

typedef struct Value Value;
/* A name: an interned, immortal str value, so names compare by pointer. The parser sees only
 * these functions of it (frontend/lang/value.c defines them); the interpreter reads the text
 * with value.h's SYM_STR. */
typedef Value Sym;
Sym *sym_intern(const char *s, size_t len);
Sym *sym_cstr(const char *s);
const char *sym_text(const Sym *name);
bool sym_is(const Sym *name, const char *s); /* name spells s */

/* The text of one script, `-c` string or REPL input. Kept alive by every Unit and exception
 * that points into it, so a diagnostic can print its line long after parsing. */
typedef struct Source {
  int refcnt;
  char *name; /* "path/to/file.tes", "<stdin>", "<string>" */
  char *text; /* the whole text, NUL-terminated */
  size_t len;
  /* Part of tes's own library (stdlib/): an error raised inside it is reported at the user's
   * call into it (diag.c), with the library frames still in the traceback. */
  bool library;
} Source;

Source *src_new(const char *name, const char *text, size_t len); /* copies both; refcnt 1 */
void src_incref(Source *s);
void src_decref(Source *s);
/* Start of 1-based line `line` in s and its length without the newline; NULL if out of range. */
const char *src_line(const Source *s, int line, int *len);

typedef struct SrcLoc {
  Source *src; /* borrowed from the Unit; exceptions take a reference */
  int line, col; /* 1-based; col counts bytes */
} SrcLoc;

typedef struct Node Node;
typedef struct NodeList {
  int n;
  Node **items;
} NodeList;

/* Every kind of node, expressions first. The comment gives the syntax and the payload. */
#define AST_KINDS(X)                                                                        \
  X(INT)        /* 42, 0x2a, 0b101, 1_000          u.ival */                                \
  X(FLOAT)      /* 1.5, 1e-3, 2.                   u.fval */                                \
  X(STR)        /* 'a' "b" '''c''' (adjacent concatenated, escapes decoded)  u.str */        \
  X(FSTR)       /* f'x={x:>4}'                     u.list: STR and FMTVAL parts */           \
  X(FMTVAL)     /* {expr!r:spec} inside an f-string u.fmt */                                \
  X(TRUE)       /* True */                                                                  \
  X(FALSE)      /* False */                                                                 \
  X(NONE)       /* None */                                                                  \
  X(ELLIPSIS)   /* ... */                                                                   \
  X(NAME)       /* x                                u.name */                               \
  X(ATTR)       /* obj.name                         u.attr */                               \
  X(SUBSCRIPT)  /* obj[index]; A[i, j] has a TUPLE index   u.sub */                         \
  X(SLICE)      /* lo:hi:step inside [], any part NULL     u.slice */                       \
  X(CALL)       /* fn(args)   u.call; args hold exprs, STARRED and KEYWORD nodes */          \
  X(KEYWORD)    /* name=value in a call; name NULL for **value   u.kw */                    \
  X(STARRED)    /* *value in a call or a list/tuple display   u.unary.a */                  \
  X(BINOP)      /* a + b etc.                      u.bin (op: BinOp) */                     \
  X(UNARY)      /* -a +a ~a not a                  u.unary (op: UnOp) */                    \
  X(AND)        /* a and b                         u.bin */                                 \
  X(OR)         /* a or b                          u.bin */                                 \
  X(COMPARE)    /* a < b <= c, in, not in, is, is not   u.cmp */                            \
  X(IFEXP)      /* t if c else f                   u.ifexp */                               \
  X(LAMBDA)     /* lambda params: expr             u.def (def->lambda_body set) */          \
  X(TUPLE)      /* (a, b)  a, b  ()                u.list */                                \
  X(LIST)       /* [a, b]                          u.list */                                \
  X(DICT)       /* {k: v, ...}                     u.dict */                                \
  X(LISTCOMP)   /* [elt for t in it if c ...]      u.comp (key NULL) */                     \
  X(DICTCOMP)   /* {key: elt for t in it ...}      u.comp */                                \
  X(COMPFOR)    /* for target in iter if c if d    u.compfor (only inside u.comp.gens) */   \
  /* statements */                                                                          \
  X(EXPRSTMT)   /* expr                            u.unary.a */                             \
  X(ASSIGN)     /* t1 = t2 = value                 u.assign */                              \
  X(AUGASSIGN)  /* target += value                 u.aug (op: BinOp) */                     \
  X(IF)         /* if/elif/else                    u.ifs; elif is an IF alone in orelse */  \
  X(FOR)        /* for target in iter: body else: orelse   u.loop */                        \
  X(WHILE)      /* while cond: body else: orelse   u.loop (target NULL, iter = cond) */     \
  X(BREAK)      /* break */                                                                 \
  X(CONTINUE)   /* continue */                                                              \
  X(PASS)       /* pass */                                                                  \
  X(DEF)        /* def name(params): body          u.def */                                 \
  X(RETURN)     /* return [value]                  u.unary.a (may be NULL) */               \
  X(IMPORT)     /* import a.b [as c], d            u.imp (one entry per name) */            \
  X(FROMIMPORT) /* from a.b import c [as d], e     u.imp */                                 \
  X(WITH)       /* with ctx [as target]: body; several items nest   u.with */               \
  X(ASSERT)     /* assert test[, msg]              u.bin (a = test, b = msg or NULL) */     \
  X(TRY)        /* try/except/else/finally         u.try_ */                                \
  X(EXCEPT)     /* except [type [as name]]: body   u.except (only in u.try_.handlers) */    \
  X(RAISE)      /* raise [exc]                     u.unary.a (may be NULL) */               \
  X(GLOBAL)     /* global a, b                     u.names */                               \
  X(DEL)        /* del t1, t2                      u.list (targets) */                      \
  X(MODULE)     /* the whole source                u.list (statements) */

typedef enum {
#define AST_ENUM(k) AST_##k,
  AST_KINDS(AST_ENUM)
#undef AST_ENUM
  AST_KIND_COUNT
} AstKind;

extern const char *const ast_kind_names[AST_KIND_COUNT]; /* "INT", "FLOAT", ... */

typedef enum {
  BIN_ADD, BIN_SUB, BIN_MUL, BIN_DIV, BIN_FLOORDIV, BIN_MOD, BIN_POW, BIN_MATMUL,
  BIN_LSHIFT, BIN_RSHIFT, BIN_AND, BIN_OR, BIN_XOR,
  BIN_OP_COUNT
} BinOp;
extern const char *const binop_symbols[BIN_OP_COUNT]; /* "+", "-", ..., "@", "<<", "&" */

typedef enum { UN_NEG, UN_POS, UN_INVERT, UN_NOT } UnOp;

typedef enum {
  CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_EQ, CMP_NE, CMP_IN, CMP_NOTIN, CMP_IS, CMP_ISNOT
} CmpOp;

/* Where a NAME lives, decided by frontend/lang/resolve.c after parsing. */
typedef enum {
  SCOPE_UNRESOLVED, /* as built by the parser */
  SCOPE_LOCAL,      /* slot `slot` of the current frame */
  SCOPE_FREE,       /* slot `slot` of the frame `depth` levels out (closure) */
  SCOPE_GLOBAL      /* the module's globals, then the builtins */
} ScopeKind;

typedef enum {
  PARAM_PLAIN,  /* a or a=default */
  PARAM_STAR,   /* *args */
  PARAM_KWONLY, /* k or k=default after *args or a bare * */
  PARAM_STARSTAR /* **kw */
} ParamKind;

typedef struct Param {
  Sym *name;
  Node *dflt; /* NULL: required */
  ParamKind kind;
  SrcLoc loc;
} Param;

/* A def or lambda. The parser fills the syntax; resolve.c fills the frame layout. */
typedef struct FuncDef {
  Sym *name;          /* "<lambda>" for lambdas */
  int nparams;
  Param *params;      /* in source order; a bare * appears as PARAM_STAR with name NULL */
  NodeList body;      /* def: statements */
  Node *lambda_body;  /* lambda: the expression (body is empty) */
  /* filled by resolve.c: */
  int nslots;         /* frame size: parameters first, in order, then other locals */
  bool plain_params;  /* every parameter PARAM_PLAIN (named, no * or **): a call with exactly
                         nparams positional arguments fills slots 0..nparams-1 in order */
  Sym **slot_names;   /* nslots names, for error messages and the debugger */
} FuncDef;

typedef struct ImportItem {
  const char *module; /* dotted path "a.b" */
  Sym *name;          /* FROMIMPORT: the imported name; IMPORT: NULL */
  Sym *asname;        /* NULL if no `as` */
  SrcLoc loc;
} ImportItem;

/* Where a global NAME was found last (dict_get_sym_cached): the versions of the globals and
 * the builtins it was read from, the entry number (~number in the builtins). 0: nothing yet. */
typedef struct SymCache {
  uint64_t gver, bver;
  int64_t ix;
} SymCache;

struct Node {
  AstKind kind;
  SrcLoc loc; /* the first character of the construct; for BINOP/COMPARE the operator */
  Value *konst; /* INT, FLOAT, STR: the literal as a value, made once by resolve.c and owned by
                   Unit.consts (the parser leaves it NULL) */
  union {
    int64_t ival;
    double fval;
    struct { char *s; size_t len; } str; /* NUL-terminated too; may contain NUL bytes */
    NodeList list;
    struct { Node *expr; Node *spec; char conv; } fmt; /* spec: STR/FSTR or NULL; conv 'r','s',0 */
    struct { Sym *id; ScopeKind scope; int depth; int slot; SymCache cache; } name;
    struct { Node *obj; Sym *name; } attr;
    struct { Node *obj; Node *index; } sub;
    struct { Node *lo, *hi, *step; } slice;
    struct { Node *fn; NodeList args; } call;
    struct { Sym *name; Node *value; } kw;
    struct { int op; Node *a, *b; } bin;
    struct { int op; Node *a; } unary;
    struct { Node *first; int n; CmpOp *ops; Node **rest; } cmp; /* first ops[0] rest[0] ... */
    struct { Node *cond, *then, *orelse; } ifexp;
    FuncDef *def;
    struct { NodeList keys, values; } dict;
    /* LISTCOMP/DICTCOMP run in a scope of their own, like Python 3's: resolve.c gives them a
     * FuncDef-like frame (scope) so their targets do not leak. */
    struct { Node *key; Node *elt; NodeList gens; FuncDef *scope; } comp;
    struct { Node *target; Node *iter; NodeList ifs; } compfor;
    struct { NodeList targets; Node *value; } assign;
    struct { int op; Node *target; Node *value; } aug;
    struct { Node *cond; NodeList body, orelse; } ifs;
    struct { Node *target; Node *iter; NodeList body, orelse; } loop;
    struct { int n; ImportItem *items; } imp;
    struct { Node *ctx; Node *target; NodeList body; } with;
    struct { NodeList body, handlers, orelse, finalbody; } try_;
    struct { Node *type; Sym *name; NodeList body; } except;
    struct { int n; Sym **names; } names;
  } u;
};

/* A parsed source: its arena, its text and its tree. Function values defined in it hold a
 * reference, so a REPL line's functions outlive the line. */
typedef struct Unit {
  int refcnt;
  Arena arena;
  Source *src;  /* one reference */
  Node *root;   /* AST_MODULE */
  Value *consts; /* VAL_LIST owning the literal values of Node.konst, or NULL; unit_decref
                    drops it */
} Unit;

Unit *unit_new(Source *src); /* takes a reference to src; empty tree */
void unit_incref(Unit *u);
void unit_decref(Unit *u);

/* Constructors used by the parser: allocate in the unit's arena, zeroed but for kind and loc. */
Node *ast_node(Arena *a, AstKind kind, SrcLoc loc);
void ast_list_push(Arena *a, NodeList *l, Node *n);

/* Prints the tree as s-expressions: a statement per line, blocks indented, each expression on
 * one line, e.g. (BINOP + (NAME x) (INT 1)) (tests and `tes --dump-ast`). */
void ast_dump(const Node *n, void *file /* FILE * */);

#endif
