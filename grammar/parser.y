/* parser.y: the TES grammar (bison, LALR), building the AST of frontend/lang/ast.h. Python 3's
 * grammar, less classes, generators and decorators. Expressions are parsed before we know
 * whether they are assignment targets; check_target then vets them. After the parse,
 * check_tree finds `break`/`return` out of place and trees too deep for the recursive walkers
 * that come later. */

%define api.pure full
%define api.prefix {tes_yy}
%define api.token.prefix {TOK_}
%define parse.error custom
%define parse.lac full
%locations
%param {Lexer *lx}
%expect 0

%code requires {
#include <stdbool.h>

#include "frontend/lang/ast.h"

typedef struct Lexer Lexer;
typedef struct StrPiece StrPiece;
/* Comma-separated expressions, before they become a TUPLE or stay one expression. */
typedef struct Seq { NodeList items; bool comma; } Seq;
typedef struct StrList { StrPiece *first, *last; } StrList;
typedef struct IfChain { Node *root, *last; } IfChain; /* `last` takes the next elif/else */
typedef struct ParamList { int n; Param *v; } ParamList;
typedef struct SymList { int n; Sym **v; SrcLoc loc; } SymList;
typedef struct ImportList { int n; ImportItem *v; } ImportList;
}

%code {
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lexer.h"

/* Deep trees would overflow the C stack of the recursive passes that follow (resolve, the
 * interpreter); Python has a similar compiler limit. */
#define YYMAXDEPTH 5000
enum { MAX_TREE_DEPTH = 1000 };

static void tes_yyerror(const TES_YYLTYPE *l, Lexer *lx, const char *msg);

#define A (lx->ctx->arena)
#define LOC(l) lex_loc(lx->ctx, (l).first_line, (l).first_column)
#define NODE(kind, l) ast_node(A, AST_##kind, LOC(l))
#define CHECK(x) do { if (!(x)) YYABORT; } while (0)
#define FAIL(l, msg) do { fail(lx, l, msg); YYABORT; } while (0)

typedef enum { USE_ASSIGN, USE_DELETE, USE_AUG } TargetUse;

static Node *binop(Lexer *lx, int op, Node *a, Node *b, TES_YYLTYPE l);
static Node *unary(Lexer *lx, int op, Node *a, TES_YYLTYPE l);
static Node *logic(Lexer *lx, AstKind k, Node *a, Node *b, TES_YYLTYPE l);
static Node *negate(Lexer *lx, Node *a, TES_YYLTYPE l);
static Node *compare_new(Lexer *lx, Node *a, int op, Node *b, TES_YYLTYPE l);
static void compare_push(Lexer *lx, Node *cmp, int op, Node *b);
static Node *seq_expr(Lexer *lx, Seq s, TES_YYLTYPE l);
static Node *seq_node(Lexer *lx, AstKind kind, Seq s, TES_YYLTYPE l);
static Seq seq1(Lexer *lx, Node *n);
static NodeList list1(Lexer *lx, Node *n);
static void list_cat(Lexer *lx, NodeList *to, NodeList from);
static bool check_target(Lexer *lx, Node *t, TargetUse use);
static bool annotated_target(Lexer *lx, Node *t);
static bool check_star_alone(Lexer *lx, Node *n);
static Node *call_new(Lexer *lx, Node *fn, NodeList args, TES_YYLTYPE l);
static Node *keyword(Lexer *lx, Node *name, Node *value, TES_YYLTYPE l);
static Node *comp_new(Lexer *lx, AstKind kind, Node *key, Node *elt, NodeList gens, TES_YYLTYPE l);
static Node *compfor_new(Lexer *lx, Node *target, Node *iter, TES_YYLTYPE l);
static Node *slice_new(Lexer *lx, Node *lo, Node *hi, Node *step, TES_YYLTYPE l, TES_YYLTYPE colon);
static Node *dict_push(Lexer *lx, Node *dict, Node *k, Node *v);
static Node *func_new(Lexer *lx, AstKind kind, Sym *name, ParamList ps, TES_YYLTYPE l);
static Param param(Lexer *lx, ParamKind kind, Sym *name, Node *dflt, TES_YYLTYPE l);
static ParamList params_push(Lexer *lx, ParamList ps, Param p);
static SymList syms_push(Lexer *lx, SymList s, Sym *name, TES_YYLTYPE l);
static const char *dotted(Lexer *lx, SymList s);
static ImportList imports_push(Lexer *lx, ImportList l, ImportItem it);
static ImportItem import_item(Lexer *lx, const char *module, Sym *name, Sym *asname, SrcLoc loc);
static Node *import_new(Lexer *lx, AstKind kind, ImportList l, const char *module, TES_YYLTYPE loc);
static Node *from_import(Lexer *lx, SymList module, ImportList l, TES_YYLTYPE loc);
static bool handlers_check(Lexer *lx, NodeList hs);
static void with_push(Lexer *lx, NodeList *items, Node *item);
static Node *with_nest(Lexer *lx, NodeList items, NodeList body);
static bool fail(Lexer *lx, TES_YYLTYPE l, const char *msg);
static bool decorate(Lexer *lx, NodeList decos, Node *def, NodeList *out);
}

%union {
  Node *node;
  NodeList list;
  Seq seq;
  Sym *sym;
  int op;
  StrPiece *str;
  StrList strs;
  IfChain ifc;
  Param param;
  ParamList params;
  SymList syms;
  ImportItem imp;
  ImportList imps;
}

%token START_FILE "start of input" START_FIELD "start of field"
%token NEWLINE "end of line" INDENT "indent" DEDENT "dedent"
%token <sym> NAME "name"
%token <node> INT "integer" FLOAT "float"
%token <str> STRING "string"
%token <op> AUGASSIGN "augmented assignment"
%token POW "'**'" FLOORDIV "'//'" LSHIFT "'<<'" RSHIFT "'>>'" LE "'<='" GE "'>='" EQ "'=='"
%token NE "'!='" ARROW "'->'" WALRUS "':='" ELLIPSIS "'...'"
%token FALSE "'False'" NONE "'None'" TRUE "'True'" AND "'and'" AS "'as'" ASSERT "'assert'"
%token BREAK "'break'" CONTINUE "'continue'" DEF "'def'" DEL "'del'" ELIF "'elif'"
%token ELSE "'else'" EXCEPT "'except'" FINALLY "'finally'" FOR "'for'" FROM "'from'"
%token GLOBAL "'global'" IF "'if'" IMPORT "'import'" IN "'in'" IS "'is'" LAMBDA "'lambda'"
%token NOT "'not'" OR "'or'" PASS "'pass'" RAISE "'raise'" RETURN "'return'" TRY "'try'"
%token WHILE "'while'" WITH "'with'"

%type <list> file_input stmt stmts simple_stmt small_stmts suite loop_else try_else try_finally
%type <list> handlers comp_fors call_args arglist with_items
%type <node> small_stmt expr_stmt compound_stmt if_stmt while_stmt for_stmt try_stmt with_stmt
%type <node> funcdef handler with_item import_stmt
%type <node> test opt_test or_test and_test not_test comparison cmp_chain expr xor_expr and_expr
%type <node> shift_expr arith_expr term factor power primary atom lambdef testlist_star
%type <node> test_or_star expr_or_star argument subscript subscripts dict_items comp_for
%type <list> targets subscript_list decorators
%type <seq> seq_star exprs_star exprlist exprlist_c
%type <op> comp_op
%type <strs> strings
%type <ifc> if_head
%type <param> param typed_param
%type <params> params param_list typed_params typed_param_list
%type <syms> names dotted_name
%type <imp> dotted_as import_as
%type <imps> dotted_as_list import_names

%%

start:
    START_FILE file_input   { lx->stmts = $2; (void)yynerrs; /* clang: set but unused */ }
  | START_FIELD seq_star    { CHECK(lx->expr = seq_expr(lx, $2, @2)); }
  ;

file_input:
    %empty                  { $$ = (NodeList){0}; }
  | file_input stmt         { $$ = $1; list_cat(lx, &$$, $2); }
  ;

stmt:
    simple_stmt
  | compound_stmt           { $$ = list1(lx, $1); }
  | decorators funcdef      { CHECK(decorate(lx, $1, $2, &$$)); }
  ;

/* `@d1 @d2 def f` is `def f` then `f = d1(d2(f))`: the decorators are evaluated after the def,
 * not before it as in Python (which only an expression with side effects can tell). */
decorators:
    '@' test NEWLINE                { $$ = list1(lx, $2); }
  | decorators '@' test NEWLINE     { $$ = $1; ast_list_push(A, &$$, $3); }
  ;

simple_stmt:
    small_stmts NEWLINE
  | small_stmts ';' NEWLINE
  ;

small_stmts:
    small_stmt                  { $$ = list1(lx, $1); }
  | small_stmts ';' small_stmt  { $$ = $1; ast_list_push(A, &$$, $3); }
  ;

small_stmt:
    expr_stmt
  | DEL exprlist_c          {
      $$ = NODE(DEL, @1);
      if ($2.comma || $2.items.n != 1) $$->u.list = $2.items;
      else $$->u.list = list1(lx, $2.items.items[0]);
      for (int i = 0; i < $$->u.list.n; i++)
        CHECK(check_target(lx, $$->u.list.items[i], USE_DELETE));
    }
  | PASS                    { $$ = NODE(PASS, @1); }
  | BREAK                   { $$ = NODE(BREAK, @1); }
  | CONTINUE                { $$ = NODE(CONTINUE, @1); }
  | RETURN                  { $$ = NODE(RETURN, @1); }
  | RETURN testlist_star    { $$ = NODE(RETURN, @1); $$->u.unary.a = $2; }
  | RAISE                   { $$ = NODE(RAISE, @1); }
  | RAISE test              { $$ = NODE(RAISE, @1); $$->u.unary.a = $2; }
  | RAISE test FROM test    { FAIL(@3, "not supported yet: 'raise ... from'"); }
  | GLOBAL names            {
      $$ = NODE(GLOBAL, @1);
      $$->u.names.n = $2.n; $$->u.names.names = $2.v;
    }
  | ASSERT test             { $$ = NODE(ASSERT, @1); $$->u.bin.a = $2; }
  | ASSERT test ',' test    { $$ = NODE(ASSERT, @1); $$->u.bin.a = $2; $$->u.bin.b = $4; }
  | import_stmt
  ;

expr_stmt:
    testlist_star           { $$ = NODE(EXPRSTMT, @1); $$->u.unary.a = $1; }
  | testlist_star AUGASSIGN testlist_star {
      CHECK(check_target(lx, $1, USE_AUG));
      $$ = NODE(AUGASSIGN, @1);
      $$->u.aug.op = $2; $$->u.aug.target = $1; $$->u.aug.value = $3;
    }
  | targets testlist_star   {
      $$ = NODE(ASSIGN, @1);
      $$->u.assign.targets = $1; $$->u.assign.value = $2;
    }
  /* Annotations mean nothing to TES (it has no __annotations__), so they are parsed and
   * dropped: `x: int = 1` is `x = 1`. */
  | testlist_star ':' test '=' testlist_star {
      CHECK(annotated_target(lx, $1));
      $$ = NODE(ASSIGN, @1); $$->u.assign.targets = list1(lx, $1); $$->u.assign.value = $5;
    }
  | testlist_star ':' test  { FAIL(@2, "not supported yet: annotations without a value"); }
  ;

targets:
    testlist_star '='           { CHECK(check_target(lx, $1, USE_ASSIGN)); $$ = list1(lx, $1); }
  | targets testlist_star '='   {
      CHECK(check_target(lx, $2, USE_ASSIGN));
      $$ = $1; ast_list_push(A, &$$, $2);
    }
  ;

names:
    NAME                    { $$ = syms_push(lx, (SymList){0}, $1, @1); }
  | names ',' NAME          { $$ = syms_push(lx, $1, $3, @3); }
  ;

import_stmt:
    IMPORT dotted_as_list   { $$ = import_new(lx, AST_IMPORT, $2, NULL, @1); }
  | IMPORT '*'              { FAIL(@2, "'import *' is not supported"); }
  | FROM dotted_name IMPORT import_names    { $$ = from_import(lx, $2, $4, @1); }
  | FROM dotted_name IMPORT '(' import_names ')'    { $$ = from_import(lx, $2, $5, @1); }
  | FROM dotted_name IMPORT '(' import_names ',' ')' { $$ = from_import(lx, $2, $5, @1); }
  | FROM dotted_name IMPORT '*'    { FAIL(@4, "'import *' is not supported"); }
  | FROM '.'                { FAIL(@2, "relative imports are not supported"); }
  | FROM ELLIPSIS           { FAIL(@2, "relative imports are not supported"); }
  ;

dotted_name:
    NAME                    { $$ = syms_push(lx, (SymList){0}, $1, @1); }
  | dotted_name '.' NAME    { $$ = syms_push(lx, $1, $3, @3); }
  ;

dotted_as:
    dotted_name             { $$ = import_item(lx, dotted(lx, $1), NULL, NULL, $1.loc); }
  | dotted_name AS NAME     { $$ = import_item(lx, dotted(lx, $1), NULL, $3, $1.loc); }
  ;

dotted_as_list:
    dotted_as                       { $$ = imports_push(lx, (ImportList){0}, $1); }
  | dotted_as_list ',' dotted_as    { $$ = imports_push(lx, $1, $3); }
  ;

import_as:
    NAME                    { $$ = import_item(lx, NULL, $1, NULL, LOC(@1)); }
  | NAME AS NAME            { $$ = import_item(lx, NULL, $1, $3, LOC(@1)); }
  ;

import_names:
    import_as                       { $$ = imports_push(lx, (ImportList){0}, $1); }
  | import_names ',' import_as      { $$ = imports_push(lx, $1, $3); }
  ;

compound_stmt: if_stmt | while_stmt | for_stmt | try_stmt | with_stmt | funcdef ;

suite:
    simple_stmt
  | NEWLINE INDENT stmts DEDENT     { $$ = $3; }
  ;

stmts:
    stmt
  | stmts stmt              { $$ = $1; list_cat(lx, &$$, $2); }
  ;

if_head:
    IF test ':' suite       {
      $$.root = $$.last = NODE(IF, @1);
      $$.root->u.ifs.cond = $2; $$.root->u.ifs.body = $4;
    }
  | if_head ELIF test ':' suite {
      Node *n = NODE(IF, @2);
      n->u.ifs.cond = $3; n->u.ifs.body = $5;
      $$ = $1; $$.last->u.ifs.orelse = list1(lx, n); $$.last = n;
    }
  ;

if_stmt:
    if_head                 { $$ = $1.root; }
  | if_head ELSE ':' suite  { $$ = $1.root; $1.last->u.ifs.orelse = $4; }
  ;

loop_else:
    %empty                  { $$ = (NodeList){0}; }
  | ELSE ':' suite          { $$ = $3; }
  ;

while_stmt:
    WHILE test ':' suite loop_else {
      $$ = NODE(WHILE, @1);
      $$->u.loop.iter = $2; $$->u.loop.body = $4; $$->u.loop.orelse = $5;
    }
  ;

for_stmt:
    FOR exprlist_c IN testlist_star ':' suite loop_else {
      $$ = NODE(FOR, @1);
      CHECK($$->u.loop.target = seq_expr(lx, $2, @2));
      CHECK(check_target(lx, $$->u.loop.target, USE_ASSIGN));
      $$->u.loop.iter = $4; $$->u.loop.body = $6; $$->u.loop.orelse = $7;
    }
  ;

try_stmt:
    TRY ':' suite handlers try_else try_finally {
      CHECK(handlers_check(lx, $4));
      $$ = NODE(TRY, @1);
      $$->u.try_.body = $3; $$->u.try_.handlers = $4;
      $$->u.try_.orelse = $5; $$->u.try_.finalbody = $6;
    }
  | TRY ':' suite FINALLY ':' suite {
      $$ = NODE(TRY, @1);
      $$->u.try_.body = $3; $$->u.try_.finalbody = $6;
    }
  ;

handlers:
    handler                 { $$ = list1(lx, $1); }
  | handlers handler        { $$ = $1; ast_list_push(A, &$$, $2); }
  ;

handler:
    EXCEPT ':' suite        { $$ = NODE(EXCEPT, @1); $$->u.except.body = $3; }
  | EXCEPT test ':' suite   {
      $$ = NODE(EXCEPT, @1);
      $$->u.except.type = $2; $$->u.except.body = $4;
    }
  | EXCEPT test AS NAME ':' suite {
      $$ = NODE(EXCEPT, @1);
      $$->u.except.type = $2; $$->u.except.name = $4; $$->u.except.body = $6;
    }
  ;

try_else:
    %empty                  { $$ = (NodeList){0}; }
  | ELSE ':' suite          { $$ = $3; }
  ;

try_finally:
    %empty                  { $$ = (NodeList){0}; }
  | FINALLY ':' suite       { $$ = $3; }
  ;

with_stmt:
    WITH with_items ':' suite       { $$ = with_nest(lx, $2, $4); $$->loc = LOC(@1); }
  ;

with_items:
    with_item                       { $$ = (NodeList){0}; with_push(lx, &$$, $1); }
  | with_items ',' with_item        { $$ = $1; with_push(lx, &$$, $3); }
  ;

with_item:
    test                    { $$ = NODE(WITH, @1); $$->u.with.ctx = $1; }
  | test AS expr            {
      CHECK(check_target(lx, $3, USE_ASSIGN));
      $$ = NODE(WITH, @1); $$->u.with.ctx = $1; $$->u.with.target = $3;
    }
  ;

funcdef:
    DEF NAME '(' typed_params ')' opt_returns ':' suite {
      CHECK($$ = func_new(lx, AST_DEF, $2, $4, @1));
      $$->u.def->body = $8;
    }
  ;

opt_returns:
    %empty
  | ARROW test              { (void)$2; }
  ;

/* def parameters may carry annotations (dropped, see expr_stmt); lambda parameters cannot,
 * their ':' ends the list. */
typed_params:
    %empty                  { $$ = (ParamList){0}; }
  | typed_param_list
  | typed_param_list ','
  ;

typed_param_list:
    typed_param                         { $$ = params_push(lx, (ParamList){0}, $1); }
  | typed_param_list ',' typed_param    { $$ = params_push(lx, $1, $3); }
  ;

typed_param:
    param
  | NAME ':' test           { $$ = param(lx, PARAM_PLAIN, $1, NULL, @1); }
  | NAME ':' test '=' test  { $$ = param(lx, PARAM_PLAIN, $1, $5, @1); }
  | '*' NAME ':' test       { $$ = param(lx, PARAM_STAR, $2, NULL, @1); }
  | POW NAME ':' test       { $$ = param(lx, PARAM_STARSTAR, $2, NULL, @1); }
  ;

params:
    %empty                  { $$ = (ParamList){0}; }
  | param_list
  | param_list ','
  ;

param_list:
    param                   { $$ = params_push(lx, (ParamList){0}, $1); }
  | param_list ',' param    { $$ = params_push(lx, $1, $3); }
  ;

param:
    NAME                    { $$ = param(lx, PARAM_PLAIN, $1, NULL, @1); }
  | NAME '=' test           { $$ = param(lx, PARAM_PLAIN, $1, $3, @1); }
  | '*' NAME                { $$ = param(lx, PARAM_STAR, $2, NULL, @1); }
  | '*'                     { $$ = param(lx, PARAM_STAR, NULL, NULL, @1); }
  | POW NAME                { $$ = param(lx, PARAM_STARSTAR, $2, NULL, @1); }
  ;

/* ---- expressions ---- */

testlist_star:
    seq_star                { CHECK($$ = seq_expr(lx, $1, @1)); }
  ;

seq_star:
    exprs_star
  | exprs_star ','          { $$ = $1; $$.comma = true; }
  ;

exprs_star:
    test_or_star                    { $$ = seq1(lx, $1); }
  | exprs_star ',' test_or_star     { $$ = $1; ast_list_push(A, &$$.items, $3); }
  ;

test_or_star:
    test
  | '*' expr                { $$ = NODE(STARRED, @1); $$->u.unary.a = $2; }
  ;

exprlist_c:
    exprlist
  | exprlist ','            { $$ = $1; $$.comma = true; }
  ;

exprlist:
    expr_or_star                    { $$ = seq1(lx, $1); }
  | exprlist ',' expr_or_star       { $$ = $1; ast_list_push(A, &$$.items, $3); }
  ;

expr_or_star:
    expr
  | '*' expr                { $$ = NODE(STARRED, @1); $$->u.unary.a = $2; }
  ;

test:
    or_test
  | or_test IF or_test ELSE test {
      $$ = NODE(IFEXP, @1);
      $$->u.ifexp.cond = $3; $$->u.ifexp.then = $1; $$->u.ifexp.orelse = $5;
    }
  | lambdef
  ;

opt_test:
    %empty                  { $$ = NULL; }
  | test
  ;

lambdef:
    LAMBDA params ':' test  {
      CHECK($$ = func_new(lx, AST_LAMBDA, sym_cstr("<lambda>"), $2, @1));
      $$->u.def->lambda_body = $4;
    }
  ;

or_test:
    and_test
  | or_test OR and_test     { $$ = logic(lx, AST_OR, $1, $3, @1); }
  ;

and_test:
    not_test
  | and_test AND not_test   { $$ = logic(lx, AST_AND, $1, $3, @1); }
  ;

not_test:
    NOT not_test            { $$ = unary(lx, UN_NOT, $2, @1); }
  | comparison
  ;

comparison:
    expr
  | cmp_chain
  ;

/* A chain grows only while it is being parsed, so (a < b) < c stays two comparisons. */
cmp_chain:
    expr comp_op expr       { $$ = compare_new(lx, $1, $2, $3, @2); }
  | cmp_chain comp_op expr  { $$ = $1; compare_push(lx, $1, $2, $3); }
  ;

comp_op:
    '<'                     { $$ = CMP_LT; }
  | '>'                     { $$ = CMP_GT; }
  | EQ                      { $$ = CMP_EQ; }
  | GE                      { $$ = CMP_GE; }
  | LE                      { $$ = CMP_LE; }
  | NE                      { $$ = CMP_NE; }
  | IN                      { $$ = CMP_IN; }
  | NOT IN                  { $$ = CMP_NOTIN; }
  | IS                      { $$ = CMP_IS; }
  | IS NOT                  { $$ = CMP_ISNOT; }
  ;

expr:
    xor_expr
  | expr '|' xor_expr       { $$ = binop(lx, BIN_OR, $1, $3, @2); }
  ;

xor_expr:
    and_expr
  | xor_expr '^' and_expr   { $$ = binop(lx, BIN_XOR, $1, $3, @2); }
  ;

and_expr:
    shift_expr
  | and_expr '&' shift_expr { $$ = binop(lx, BIN_AND, $1, $3, @2); }
  ;

shift_expr:
    arith_expr
  | shift_expr LSHIFT arith_expr    { $$ = binop(lx, BIN_LSHIFT, $1, $3, @2); }
  | shift_expr RSHIFT arith_expr    { $$ = binop(lx, BIN_RSHIFT, $1, $3, @2); }
  ;

arith_expr:
    term
  | arith_expr '+' term     { $$ = binop(lx, BIN_ADD, $1, $3, @2); }
  | arith_expr '-' term     { $$ = binop(lx, BIN_SUB, $1, $3, @2); }
  ;

term:
    factor
  | term '*' factor         { $$ = binop(lx, BIN_MUL, $1, $3, @2); }
  | term '/' factor         { $$ = binop(lx, BIN_DIV, $1, $3, @2); }
  | term FLOORDIV factor    { $$ = binop(lx, BIN_FLOORDIV, $1, $3, @2); }
  | term '%' factor         { $$ = binop(lx, BIN_MOD, $1, $3, @2); }
  | term '@' factor         { $$ = binop(lx, BIN_MATMUL, $1, $3, @2); }
  ;

factor:
    '+' factor              { $$ = unary(lx, UN_POS, $2, @1); }
  | '-' factor              { $$ = negate(lx, $2, @1); }
  | '~' factor              { $$ = unary(lx, UN_INVERT, $2, @1); }
  | power
  ;

/* ** binds tighter than a unary operator on its left, looser than one on its right. */
power:
    primary
  | primary POW factor      { $$ = binop(lx, BIN_POW, $1, $3, @2); }
  ;

primary:
    atom
  | primary '.' NAME        { $$ = NODE(ATTR, @3); $$->u.attr.obj = $1; $$->u.attr.name = $3; }
  | primary '(' call_args ')'   { CHECK($$ = call_new(lx, $1, $3, @1)); }
  | primary '[' subscripts ']'  {
      $$ = NODE(SUBSCRIPT, @2);
      $$->u.sub.obj = $1; $$->u.sub.index = $3;
    }
  ;

call_args:
    %empty                  { $$ = (NodeList){0}; }
  | arglist
  | arglist ','
  /* f(x for x in y): TES has no generators, so the argument is built eagerly as a list;
   * for the finite iterables TES has, sum(), any(), list() ... see the same items. */
  | test comp_fors          { $$ = list1(lx, comp_new(lx, AST_LISTCOMP, NULL, $1, $2, @1)); }
  ;

arglist:
    argument                { $$ = list1(lx, $1); }
  | arglist ',' argument    { $$ = $1; ast_list_push(A, &$$, $3); }
  ;

argument:
    test
  | test '=' test           { CHECK($$ = keyword(lx, $1, $3, @1)); }
  | '*' test                { $$ = NODE(STARRED, @1); $$->u.unary.a = $2; }
  | POW test                { $$ = NODE(KEYWORD, @1); $$->u.kw.value = $2; }
  ;

subscripts:
    subscript_list          { $$ = seq_expr(lx, (Seq){$1, false}, @1); }
  | subscript_list ','      { $$ = seq_expr(lx, (Seq){$1, true}, @1); }
  ;

subscript_list:
    subscript                       { $$ = list1(lx, $1); }
  | subscript_list ',' subscript    { $$ = $1; ast_list_push(A, &$$, $3); }
  ;

subscript:
    test
  | opt_test ':' opt_test               { $$ = slice_new(lx, $1, $3, NULL, @1, @2); }
  | opt_test ':' opt_test ':' opt_test  { $$ = slice_new(lx, $1, $3, $5, @1, @2); }
  ;

atom:
    NAME                    { $$ = NODE(NAME, @1); $$->u.name.id = $1; }
  | INT
  | FLOAT
  | strings                 { CHECK($$ = lex_string_node(lx->ctx, $1.first)); }
  | TRUE                    { $$ = NODE(TRUE, @1); }
  | FALSE                   { $$ = NODE(FALSE, @1); }
  | NONE                    { $$ = NODE(NONE, @1); }
  | ELLIPSIS                { $$ = NODE(ELLIPSIS, @1); }
  | '(' ')'                 { $$ = NODE(TUPLE, @1); }
  | '(' seq_star ')'        { CHECK($$ = seq_expr(lx, $2, @1)); }
  | '(' test comp_fors ')'  {
      FAIL(@1, "not supported yet: generator expressions (use a list comprehension)");
    }
  | '[' ']'                 { $$ = NODE(LIST, @1); }
  | '[' seq_star ']'        { $$ = seq_node(lx, AST_LIST, $2, @1); }
  | '[' test comp_fors ']'  { $$ = comp_new(lx, AST_LISTCOMP, NULL, $2, $3, @1); }
  | '{' '}'                 { $$ = NODE(DICT, @1); }
  | '{' dict_items '}'      { $$ = $2; $$->loc = LOC(@1); }
  | '{' dict_items ',' '}'  { $$ = $2; $$->loc = LOC(@1); }
  | '{' test ':' test comp_fors '}' { $$ = comp_new(lx, AST_DICTCOMP, $2, $4, $5, @1); }
  | '{' seq_star '}'        { FAIL(@1, "not supported yet: set displays"); }
  | '{' test comp_fors '}'  { FAIL(@1, "not supported yet: set comprehensions"); }
  ;

dict_items:
    test ':' test                   { $$ = dict_push(lx, NODE(DICT, @1), $1, $3); }
  | dict_items ',' test ':' test    { $$ = dict_push(lx, $1, $3, $5); }
  ;

strings:
    STRING                  { $$.first = $$.last = $1; }
  | strings STRING          { $$ = $1; $$.last->next = $2; $$.last = $2; }
  ;

comp_fors:
    comp_for                { $$ = list1(lx, $1); }
  | comp_fors comp_for      { $$ = $1; ast_list_push(A, &$$, $2); }
  ;

comp_for:
    FOR exprlist_c IN or_test {
      Node *t = seq_expr(lx, $2, @2);
      CHECK(t && check_target(lx, t, USE_ASSIGN));
      $$ = compfor_new(lx, t, $4, @1);
    }
  | comp_for IF or_test     { $$ = $1; ast_list_push(A, &$$->u.compfor.ifs, $3); }
  ;

%%

/* ---- node builders ---- */

static bool fail(Lexer *lx, TES_YYLTYPE l, const char *msg) {
  return lex_error(lx->ctx, l.first_line, l.first_column, false, "%s", msg);
}

static bool fail_node(Lexer *lx, const Node *n, const char *msg) {
  return lex_error(lx->ctx, n->loc.line, n->loc.col, false, "%s", msg);
}

static Node *binop(Lexer *lx, int op, Node *a, Node *b, TES_YYLTYPE l) {
  Node *n = NODE(BINOP, l);
  n->u.bin.op = op;
  n->u.bin.a = a;
  n->u.bin.b = b;
  return n;
}

static Node *logic(Lexer *lx, AstKind k, Node *a, Node *b, TES_YYLTYPE l) {
  Node *n = ast_node(A, k, LOC(l));
  n->u.bin.a = a;
  n->u.bin.b = b;
  return n;
}

static Node *unary(Lexer *lx, int op, Node *a, TES_YYLTYPE l) {
  Node *n = NODE(UNARY, l);
  n->u.unary.op = op;
  n->u.unary.a = a;
  return n;
}

/* -9223372036854775808 is INT64_MIN, though 9223372036854775808 alone is too large. */
static Node *negate(Lexer *lx, Node *a, TES_YYLTYPE l) {
  NodeList *big = &lx->ctx->bigints;
  for (int i = big->n - 1; a->kind == AST_INT && i >= 0; i--) {
    if (big->items[i] != a) continue;
    big->items[i] = NULL;
    a->loc = LOC(l);
    return a;
  }
  return unary(lx, UN_NEG, a, l);
}

static Node *compare_new(Lexer *lx, Node *a, int op, Node *b, TES_YYLTYPE l) {
  Node *n = NODE(COMPARE, l);
  n->u.cmp.first = a;
  compare_push(lx, n, op, b);
  return n;
}

static void compare_push(Lexer *lx, Node *cmp, int op, Node *b) {
  int n = cmp->u.cmp.n;
  cmp->u.cmp.ops = lex_grow(A, cmp->u.cmp.ops, n, sizeof(CmpOp));
  cmp->u.cmp.rest = lex_grow(A, cmp->u.cmp.rest, n, sizeof(Node *));
  cmp->u.cmp.ops[n] = (CmpOp)op;
  cmp->u.cmp.rest[n] = b;
  cmp->u.cmp.n = n + 1;
}

static NodeList list1(Lexer *lx, Node *n) {
  NodeList l = {0};
  ast_list_push(A, &l, n);
  return l;
}

static Seq seq1(Lexer *lx, Node *n) { return (Seq){list1(lx, n), false}; }

static void list_cat(Lexer *lx, NodeList *to, NodeList from) {
  for (int i = 0; i < from.n; i++) ast_list_push(A, to, from.items[i]);
}

static Node *seq_node(Lexer *lx, AstKind kind, Seq s, TES_YYLTYPE l) {
  Node *n = ast_node(A, kind, LOC(l));
  n->u.list = s.items;
  return n;
}

/* `a` stays itself, `a,` and `a, b` are a TUPLE; a lone `*a` is no value at all. */
static Node *seq_expr(Lexer *lx, Seq s, TES_YYLTYPE l) {
  if (s.comma || s.items.n != 1) return seq_node(lx, AST_TUPLE, s, l);
  Node *n = s.items.items[0];
  return check_star_alone(lx, n) ? n : NULL;
}

static bool check_star_alone(Lexer *lx, Node *n) {
  return n->kind != AST_STARRED || fail_node(lx, n, "can't use starred expression here");
}

static Node *slice_new(Lexer *lx, Node *lo, Node *hi, Node *step, TES_YYLTYPE l,
                       TES_YYLTYPE colon) {
  Node *n = NODE(SLICE, lo ? l : colon);
  n->u.slice.lo = lo;
  n->u.slice.hi = hi;
  n->u.slice.step = step;
  return n;
}

static Node *dict_push(Lexer *lx, Node *dict, Node *k, Node *v) {
  ast_list_push(A, &dict->u.dict.keys, k);
  ast_list_push(A, &dict->u.dict.values, v);
  return dict;
}

static Node *comp_new(Lexer *lx, AstKind kind, Node *key, Node *elt, NodeList gens, TES_YYLTYPE l) {
  Node *n = ast_node(A, kind, LOC(l));
  n->u.comp.key = key;
  n->u.comp.elt = elt;
  n->u.comp.gens = gens;
  return n;
}

static Node *compfor_new(Lexer *lx, Node *target, Node *iter, TES_YYLTYPE l) {
  Node *n = NODE(COMPFOR, l);
  n->u.compfor.target = target;
  n->u.compfor.iter = iter;
  return n;
}

/* What a target is called in Python's messages, or NULL if it may be assigned to. */
static const char *target_name(Lexer *lx, const Node *t) {
  switch (t->kind) {
  case AST_NAME:
  case AST_ATTR:
  case AST_SUBSCRIPT:
  case AST_TUPLE:
  case AST_LIST:
    return NULL;
  case AST_STARRED:
    return "starred";
  case AST_INT:
  case AST_FLOAT:
  case AST_STR:
    return "literal";
  case AST_FSTR:
    return "f-string expression";
  case AST_TRUE:
    return "True";
  case AST_FALSE:
    return "False";
  case AST_NONE:
    return "None";
  case AST_ELLIPSIS:
    return "Ellipsis";
  case AST_CALL:
    return "function call";
  case AST_BINOP:
  case AST_UNARY:
  case AST_AND:
  case AST_OR:
    return "expression";
  case AST_COMPARE:
    return "comparison";
  case AST_IFEXP:
    return "conditional expression";
  case AST_LAMBDA:
    return "lambda";
  case AST_DICT:
    return "dict literal";
  case AST_LISTCOMP:
    return "list comprehension";
  case AST_DICTCOMP:
    return "dict comprehension";
  case AST_FMTVAL:
  case AST_SLICE:
  case AST_KEYWORD:
  case AST_COMPFOR:
    return "expression";
  case AST_EXPRSTMT:
  case AST_ASSIGN:
  case AST_AUGASSIGN:
  case AST_IF:
  case AST_FOR:
  case AST_WHILE:
  case AST_BREAK:
  case AST_CONTINUE:
  case AST_PASS:
  case AST_DEF:
  case AST_RETURN:
  case AST_IMPORT:
  case AST_FROMIMPORT:
  case AST_WITH:
  case AST_ASSERT:
  case AST_TRY:
  case AST_EXCEPT:
  case AST_RAISE:
  case AST_GLOBAL:
  case AST_DEL:
  case AST_MODULE:
  case AST_KIND_COUNT:
    break;
  }
  LEX_UNREACHABLE(lx->ctx); /* statements are never targets */
  return "statement";
}

static bool check_unpack(Lexer *lx, Node *t, TargetUse use) {
  bool star = false;
  for (int i = 0; i < t->u.list.n; i++) {
    Node *e = t->u.list.items[i];
    if (e->kind == AST_STARRED && use == USE_ASSIGN) {
      if (star) return fail_node(lx, e, "multiple starred expressions in assignment");
      star = true;
      e = e->u.unary.a;
    }
    if (!check_target(lx, e, use)) return false;
  }
  return true;
}

static bool check_target(Lexer *lx, Node *t, TargetUse use) {
  const char *what = target_name(lx, t);
  if (use == USE_AUG && (t->kind == AST_TUPLE || t->kind == AST_LIST))
    what = t->kind == AST_TUPLE ? "tuple" : "list";
  if (!what) return (t->kind == AST_TUPLE || t->kind == AST_LIST) ? check_unpack(lx, t, use) : true;
  if (t->kind == AST_STARRED && use == USE_ASSIGN)
    return fail_node(lx, t, "starred assignment target must be in a list or tuple");
  if (use == USE_AUG)
    return lex_error(lx->ctx, t->loc.line, t->loc.col, false,
                     "'%s' is an illegal expression for augmented assignment", what);
  return lex_error(lx->ctx, t->loc.line, t->loc.col, false, "cannot %s %s",
                   use == USE_DELETE ? "delete" : "assign to", what);
}

static bool annotated_target(Lexer *lx, Node *t) {
  if (t->kind == AST_TUPLE)
    return fail_node(lx, t, "only single target (not tuple) can be annotated");
  if (t->kind == AST_LIST)
    return fail_node(lx, t, "only single target (not list) can be annotated");
  return check_target(lx, t, USE_ASSIGN);
}

/* The first of names[0..n) that repeats an earlier one, or -1; sorting keeps it fast for the
 * hundred-thousand-argument inputs a fuzzer writes. */
typedef struct SymAt {
  const Sym *sym;
  int at;
} SymAt;

static int cmp_symat(const void *a, const void *b) {
  const SymAt *x = a, *y = b;
  if (x->sym != y->sym) return (uintptr_t)x->sym < (uintptr_t)y->sym ? -1 : 1;
  return (x->at > y->at) - (x->at < y->at);
}

static int first_repeat(SymAt *v, int n) {
  int first = -1;
  qsort(v, (size_t)n, sizeof *v, cmp_symat);
  for (int i = 1; i < n; i++)
    if (v[i].sym && v[i].sym == v[i - 1].sym && (first < 0 || v[i].at < first)) first = v[i].at;
  return first;
}

static Node *keyword(Lexer *lx, Node *name, Node *value, TES_YYLTYPE l) {
  if (name->kind != AST_NAME) {
    fail(lx, l, "expression cannot contain assignment, perhaps you meant \"==\"?");
    return NULL;
  }
  Node *n = NODE(KEYWORD, l);
  n->u.kw.name = name->u.name.id;
  n->u.kw.value = value;
  return n;
}

/* Python's order: positional and *x, then name=x and **x, with no positional after **x. */
static bool call_args_check(Lexer *lx, NodeList args) {
  bool named = false, dstar = false;
  SymAt *kws = NULL; /* in the unit's arena: only calls with keywords pay for it */
  int nkw = 0;
  for (int i = 0; i < args.n; i++) {
    Node *a = args.items[i];
    bool kw = a->kind == AST_KEYWORD;
    const char *msg = NULL;
    if (kw && a->u.kw.name && !kws) kws = arena_alloc(A, sizeof(SymAt) * (size_t)(args.n - i));
    if (kw && a->u.kw.name)
      named = true, kws[nkw++] = (SymAt){a->u.kw.name, i};
    else if (kw)
      dstar = true;
    else if (a->kind == AST_STARRED && dstar)
      msg = "iterable argument unpacking follows keyword argument unpacking";
    else if (a->kind != AST_STARRED && dstar)
      msg = "positional argument follows keyword argument unpacking";
    else if (a->kind != AST_STARRED && named)
      msg = "positional argument follows keyword argument";
    if (msg) return fail_node(lx, a, msg);
  }
  int rep = nkw < 2 ? -1 : first_repeat(kws, nkw);
  if (rep < 0) return true;
  Node *a = args.items[rep];
  return lex_error(lx->ctx, a->loc.line, a->loc.col, false, "keyword argument repeated: %s",
                   sym_text(a->u.kw.name));
}

static Node *name_node(Lexer *lx, Sym *id, SrcLoc loc) {
  Node *n = ast_node(A, AST_NAME, loc);
  n->u.name.id = id;
  return n;
}

static bool decorate(Lexer *lx, NodeList decos, Node *def, NodeList *out) {
  if (!def) return false;
  Sym *name = def->u.def->name;
  Node *value = name_node(lx, name, def->loc);
  for (int i = decos.n - 1; i >= 0; i--) {
    Node *call = ast_node(A, AST_CALL, decos.items[i]->loc);
    call->u.call.fn = decos.items[i];
    call->u.call.args = list1(lx, value);
    value = call;
  }
  Node *assign = ast_node(A, AST_ASSIGN, def->loc);
  assign->u.assign.targets = list1(lx, name_node(lx, name, def->loc));
  assign->u.assign.value = value;
  *out = list1(lx, def);
  ast_list_push(A, out, assign);
  return true;
}

static Node *call_new(Lexer *lx, Node *fn, NodeList args, TES_YYLTYPE l) {
  if (!call_args_check(lx, args)) return NULL;
  Node *n = NODE(CALL, l);
  n->u.call.fn = fn;
  n->u.call.args = args;
  return n;
}

static Param param(Lexer *lx, ParamKind kind, Sym *name, Node *dflt, TES_YYLTYPE l) {
  return (Param){.name = name, .dflt = dflt, .kind = kind, .loc = LOC(l)};
}

static ParamList params_push(Lexer *lx, ParamList ps, Param p) {
  ps.v = lex_grow(A, ps.v, ps.n, sizeof(Param));
  ps.v[ps.n++] = p;
  return ps;
}

static bool fail_param(Lexer *lx, const Param *p, const char *msg) {
  return lex_error(lx->ctx, p->loc.line, p->loc.col, false, "%s", msg);
}

/* Checks the order of kinds and defaults, marks keyword-only parameters. */
static bool params_order(Lexer *lx, ParamList ps) {
  bool after_star = false, after_dstar = false, dflt = false;
  for (int i = 0; i < ps.n; i++) {
    Param *p = &ps.v[i];
    if (after_dstar) return fail_param(lx, p, "arguments cannot follow var-keyword argument");
    switch (p->kind) {
    case PARAM_PLAIN:
      if (after_star)
        p->kind = PARAM_KWONLY;
      else if (p->dflt)
        dflt = true;
      else if (dflt)
        return fail_param(lx, p, "non-default argument follows default argument");
      break;
    case PARAM_STAR:
      if (after_star) return fail_param(lx, p, "* argument may appear only once");
      if (!p->name && (i + 1 == ps.n || ps.v[i + 1].kind == PARAM_STARSTAR))
        return fail_param(lx, p, "named arguments must follow bare *");
      after_star = true;
      break;
    case PARAM_STARSTAR:
      after_dstar = true;
      break;
    case PARAM_KWONLY:
      return LEX_UNREACHABLE(lx->ctx); /* the grammar makes only the other three */
    }
  }
  return true;
}

static bool params_unique(Lexer *lx, ParamList ps) {
  SymAt *v = arena_alloc(A, sizeof(SymAt) * (size_t)(ps.n + 1));
  for (int i = 0; i < ps.n; i++) v[i] = (SymAt){ps.v[i].name, i};
  int rep = first_repeat(v, ps.n);
  if (rep < 0) return true;
  return lex_error(lx->ctx, ps.v[rep].loc.line, ps.v[rep].loc.col, false,
                   "duplicate argument '%s' in function definition", sym_text(ps.v[rep].name));
}

static Node *func_new(Lexer *lx, AstKind kind, Sym *name, ParamList ps, TES_YYLTYPE l) {
  if (!params_order(lx, ps) || !params_unique(lx, ps)) return NULL;
  Node *n = ast_node(A, kind, LOC(l));
  FuncDef *d = arena_alloc(A, sizeof *d);
  d->name = name;
  d->nparams = ps.n;
  d->params = ps.v;
  n->u.def = d;
  return n;
}

static SymList syms_push(Lexer *lx, SymList s, Sym *name, TES_YYLTYPE l) {
  if (s.n == 0) s.loc = LOC(l);
  s.v = lex_grow(A, s.v, s.n, sizeof(Sym *));
  s.v[s.n++] = name;
  return s;
}

static const char *dotted(Lexer *lx, SymList s) {
  size_t len = 0;
  for (int i = 0; i < s.n; i++) len += strlen(sym_text(s.v[i])) + 1;
  char *buf = arena_alloc(A, len), *o = buf;
  for (int i = 0; i < s.n; i++) {
    size_t k = strlen(sym_text(s.v[i]));
    memcpy(o, sym_text(s.v[i]), k);
    o += k;
    *o++ = i + 1 < s.n ? '.' : 0;
  }
  return buf;
}

static ImportItem import_item(Lexer *lx, const char *module, Sym *name, Sym *asname, SrcLoc loc) {
  return (ImportItem){.module = module, .name = name, .asname = asname, .loc = loc};
}

static ImportList imports_push(Lexer *lx, ImportList l, ImportItem it) {
  l.v = lex_grow(A, l.v, l.n, sizeof(ImportItem));
  l.v[l.n++] = it;
  return l;
}

static Node *import_new(Lexer *lx, AstKind kind, ImportList l, const char *module,
                        TES_YYLTYPE loc) {
  Node *n = ast_node(A, kind, LOC(loc));
  if (module)
    for (int i = 0; i < l.n; i++) l.v[i].module = module;
  n->u.imp.n = l.n;
  n->u.imp.items = l.v;
  return n;
}

static Node *from_import(Lexer *lx, SymList module, ImportList l, TES_YYLTYPE loc) {
  return import_new(lx, AST_FROMIMPORT, l, dotted(lx, module), loc);
}

static bool handlers_check(Lexer *lx, NodeList hs) {
  for (int i = 0; i + 1 < hs.n; i++)
    if (!hs.items[i]->u.except.type)
      return fail_node(lx, hs.items[i], "default 'except:' must be last");
  return true;
}

/* `with (a, b):` holds two context managers, as in Python 3.9+: a `test` is a TUPLE only in
 * parentheses, and a tuple is no context manager. */
static void with_push(Lexer *lx, NodeList *items, Node *item) {
  Node *ctx = item->u.with.ctx;
  if (ctx->kind != AST_TUPLE || ctx->u.list.n == 0 || item->u.with.target) {
    ast_list_push(A, items, item);
    return;
  }
  for (int i = 0; i < ctx->u.list.n; i++) {
    Node *w = ast_node(A, AST_WITH, ctx->u.list.items[i]->loc);
    w->u.with.ctx = ctx->u.list.items[i];
    ast_list_push(A, items, w);
  }
}

/* `with a, b: s` is `with a: with b: s`. */
static Node *with_nest(Lexer *lx, NodeList items, NodeList body) {
  for (int i = items.n - 1; i > 0; i--) items.items[i - 1]->u.with.body = list1(lx, items.items[i]);
  items.items[items.n - 1]->u.with.body = body;
  return items.items[0];
}

/* ---- syntax errors ---- */

static bool expects(const yysymbol_kind_t *exp, int n, yysymbol_kind_t sym) {
  for (int i = 0; i < n; i++)
    if (exp[i] == sym) return true;
  return false;
}

/* The offending token in words: its text if it has one. */
static void found_text(const Lexer *lx, yysymbol_kind_t tok, char *buf, size_t size) {
  switch ((int)tok) {
  case YYSYMBOL_YYEOF:
    snprintf(buf, size, "end of input");
    return;
  case YYSYMBOL_NEWLINE:
    snprintf(buf, size, "end of line");
    return;
  case YYSYMBOL_DEDENT:
    snprintf(buf, size, "dedent");
    return;
  case YYSYMBOL_INDENT:
    snprintf(buf, size, "indent");
    return;
  default:
    break; /* a yysymbol_kind_t, not one of ours */
  }
  size_t n = lx->tok_len;
  const char *nl = memchr(lx->tok, '\n', n);
  if (nl) n = (size_t)(nl - lx->tok);
  bool cut = n > 40;
  if (cut)
    for (n = 40; n > 0 && ((unsigned char)lx->tok[n] & 0xC0) == 0x80;) n--; /* whole UTF-8 */
  snprintf(buf, size, cut ? "'%.*s...'" : "'%.*s'", (int)n, lx->tok);
}

/* " after 'if' statement on line 3", as Python says it, from the header's first token. */
static const char *block_header(Lexer *lx) {
  static const struct {
    int tok;
    const char *what;
  } heads[] = {
      {TOK_IF, "'if' statement"},           {TOK_ELIF, "'elif' statement"},
      {TOK_ELSE, "'else' statement"},       {TOK_FOR, "'for' statement"},
      {TOK_WHILE, "'while' statement"},     {TOK_DEF, "function definition"},
      {TOK_TRY, "'try' statement"},         {TOK_EXCEPT, "'except' statement"},
      {TOK_FINALLY, "'finally' statement"}, {TOK_WITH, "'with' statement"},
  };
  static char buf[64];
  /* The offending token may itself have started a line: the header is the line before. */
  const LexHead *h = &lx->head[lx->head[1].text == lx->tok ? 0 : 1];
  for (size_t i = 0; i < sizeof heads / sizeof heads[0]; i++)
    if (heads[i].tok == h->tok) {
      snprintf(buf, sizeof buf, " after %s on line %d", heads[i].what, h->line);
      return buf;
    }
  return "";
}

static int yyreport_syntax_error(const yypcontext_t *yc, Lexer *lx) {
  if (lx->ctx->failed) return 0;
  yysymbol_kind_t tok = yypcontext_token(yc), exp[YYNTOKENS];
  const TES_YYLTYPE *l = yypcontext_location(yc);
  int n = yypcontext_expected_tokens(yc, exp, YYNTOKENS);
  char found[64];
  found_text(lx, tok, found, sizeof found);
  int line = l->first_line, col = l->first_column;
  if (lx->at_eof && lx->end_line) /* NEWLINE, DEDENT or END there: the last line is at fault */
    line = lx->end_line, col = lx->end_col;
  if (n < 0) n = 0;
  if (tok == YYSYMBOL_INDENT) return lex_error(lx->ctx, line, col, false, "unexpected indent"), 0;
  if (expects(exp, n, YYSYMBOL_INDENT))
    /* More lines could supply the block when the text ended where it had to start. */
    return lex_error(lx->ctx, line, col, lx->at_eof, "expected an indented block%s",
                     block_header(lx)),
           0;
  LexBracket b;
  if (lex_unclosed_bracket(lx, &b))
    return lex_error(lx->ctx, b.line, b.col, false, "'%c' was never closed", b.ch), 0;
  if (expects(exp, n, YYSYMBOL_EXCEPT) && expects(exp, n, YYSYMBOL_FINALLY))
    return lex_error(lx->ctx, line, col, false, "expected 'except' or 'finally' block"), 0;
  if (expects(exp, n, (yysymbol_kind_t)YYTRANSLATE(':')) &&
      !expects(exp, n, (yysymbol_kind_t)YYTRANSLATE(']')))
    return lex_error(lx->ctx, line, col, false, "expected ':'"), 0;
  if (n == 1)
    return lex_error(lx->ctx, line, col, false, "invalid syntax: unexpected %s, expected %s", found,
                     yysymbol_name(exp[0])),
           0;
  return lex_error(lx->ctx, line, col, false, "invalid syntax: unexpected %s", found), 0;
}

/* Bison calls this only when its stack would pass YYMAXDEPTH. */
static void tes_yyerror(const TES_YYLTYPE *l, Lexer *lx, const char *msg) {
  (void)msg;
  lex_error(lx->ctx, l->first_line, l->first_column, false, "too many nested expressions");
}

/* ---- checks on the finished tree ---- */

enum { IN_LOOP = 1, IN_FUNC = 2 };

static bool check_tree(ParseCtx *c, Node *n, int depth, unsigned fl);

static bool check_opt(ParseCtx *c, Node *n, int depth, unsigned fl) {
  return !n || check_tree(c, n, depth, fl);
}

static bool check_list(ParseCtx *c, const NodeList *l, int depth, unsigned fl) {
  for (int i = 0; i < l->n; i++)
    if (!check_tree(c, l->items[i], depth, fl)) return false;
  return true;
}

static bool check_def(ParseCtx *c, const FuncDef *d, int depth, unsigned fl) {
  for (int i = 0; i < d->nparams; i++)
    if (!check_opt(c, d->params[i].dflt, depth, fl)) return false;
  return check_list(c, &d->body, depth, IN_FUNC) && check_opt(c, d->lambda_body, depth, IN_FUNC);
}

static bool check_cmp(ParseCtx *c, Node *n, int depth, unsigned fl) {
  for (int i = 0; i < n->u.cmp.n; i++)
    if (!check_tree(c, n->u.cmp.rest[i], depth, fl)) return false;
  return check_tree(c, n->u.cmp.first, depth, fl);
}

static bool outside(ParseCtx *c, Node *n, const char *msg) {
  return lex_error(c, n->loc.line, n->loc.col, false, "%s", msg);
}

/* Walks every node: `break`/`continue` need a loop, `return` a function, and no path may be
 * deeper than MAX_TREE_DEPTH. The walk itself stops at that depth. */
static bool check_tree(ParseCtx *c, Node *n, int depth, unsigned fl) {
  if (depth > MAX_TREE_DEPTH) return outside(c, n, "too many nested expressions or blocks");
  int d = depth + 1;
  switch (n->kind) {
  case AST_INT:
  case AST_FLOAT:
  case AST_STR:
  case AST_TRUE:
  case AST_FALSE:
  case AST_NONE:
  case AST_ELLIPSIS:
  case AST_NAME:
  case AST_PASS:
  case AST_GLOBAL:
  case AST_IMPORT:
  case AST_FROMIMPORT:
    return true;
  case AST_BREAK:
    return (fl & IN_LOOP) || outside(c, n, "'break' outside loop");
  case AST_CONTINUE:
    return (fl & IN_LOOP) || outside(c, n, "'continue' not properly in loop");
  case AST_RETURN:
    if (!(fl & IN_FUNC)) return outside(c, n, "'return' outside function");
    return check_opt(c, n->u.unary.a, d, fl);
  case AST_FSTR:
  case AST_TUPLE:
  case AST_LIST:
  case AST_DEL:
  case AST_MODULE:
    return check_list(c, &n->u.list, d, fl);
  case AST_FMTVAL:
    return check_tree(c, n->u.fmt.expr, d, fl) && check_opt(c, n->u.fmt.spec, d, fl);
  case AST_ATTR:
    return check_tree(c, n->u.attr.obj, d, fl);
  case AST_SUBSCRIPT:
    return check_tree(c, n->u.sub.obj, d, fl) && check_tree(c, n->u.sub.index, d, fl);
  case AST_SLICE:
    return check_opt(c, n->u.slice.lo, d, fl) && check_opt(c, n->u.slice.hi, d, fl) &&
           check_opt(c, n->u.slice.step, d, fl);
  case AST_CALL:
    return check_tree(c, n->u.call.fn, d, fl) && check_list(c, &n->u.call.args, d, fl);
  case AST_KEYWORD:
    return check_tree(c, n->u.kw.value, d, fl);
  case AST_STARRED:
  case AST_UNARY:
  case AST_EXPRSTMT:
  case AST_RAISE:
    return check_opt(c, n->u.unary.a, d, fl);
  case AST_BINOP:
  case AST_AND:
  case AST_OR:
  case AST_ASSERT:
    return check_tree(c, n->u.bin.a, d, fl) && check_opt(c, n->u.bin.b, d, fl);
  case AST_COMPARE:
    return check_cmp(c, n, d, fl);
  case AST_IFEXP:
    return check_tree(c, n->u.ifexp.cond, d, fl) && check_tree(c, n->u.ifexp.then, d, fl) &&
           check_tree(c, n->u.ifexp.orelse, d, fl);
  case AST_LAMBDA:
  case AST_DEF:
    return check_def(c, n->u.def, d, fl);
  case AST_DICT:
    return check_list(c, &n->u.dict.keys, d, fl) && check_list(c, &n->u.dict.values, d, fl);
  case AST_LISTCOMP:
  case AST_DICTCOMP:
    return check_opt(c, n->u.comp.key, d, fl) && check_tree(c, n->u.comp.elt, d, fl) &&
           check_list(c, &n->u.comp.gens, d, fl);
  case AST_COMPFOR:
    return check_tree(c, n->u.compfor.target, d, fl) && check_tree(c, n->u.compfor.iter, d, fl) &&
           check_list(c, &n->u.compfor.ifs, d, fl);
  case AST_ASSIGN:
    return check_list(c, &n->u.assign.targets, d, fl) && check_tree(c, n->u.assign.value, d, fl);
  case AST_AUGASSIGN:
    return check_tree(c, n->u.aug.target, d, fl) && check_tree(c, n->u.aug.value, d, fl);
  case AST_IF:
    return check_tree(c, n->u.ifs.cond, d, fl) && check_list(c, &n->u.ifs.body, d, fl) &&
           check_list(c, &n->u.ifs.orelse, d, fl);
  case AST_FOR:
  case AST_WHILE:
    return check_opt(c, n->u.loop.target, d, fl) && check_tree(c, n->u.loop.iter, d, fl) &&
           check_list(c, &n->u.loop.body, d, fl | IN_LOOP) &&
           check_list(c, &n->u.loop.orelse, d, fl);
  case AST_WITH:
    return check_tree(c, n->u.with.ctx, d, fl) && check_opt(c, n->u.with.target, d, fl) &&
           check_list(c, &n->u.with.body, d, fl);
  case AST_TRY:
    return check_list(c, &n->u.try_.body, d, fl) && check_list(c, &n->u.try_.handlers, d, fl) &&
           check_list(c, &n->u.try_.orelse, d, fl) && check_list(c, &n->u.try_.finalbody, d, fl);
  case AST_EXCEPT:
    return check_opt(c, n->u.except.type, d, fl) && check_list(c, &n->u.except.body, d, fl);
  case AST_KIND_COUNT:
    break;
  }
  return LEX_UNREACHABLE(c);
}

static bool check_bigints(ParseCtx *c) {
  for (int i = 0; i < c->bigints.n; i++) {
    Node *n = c->bigints.items[i];
    if (n) return lex_error(c, n->loc.line, n->loc.col, false, "integer literal too large");
  }
  return true;
}

/* ---- entry points ---- */

Node *lex_parse_field(ParseCtx *ctx, const char *text, size_t len, int line, int col) {
  if (ctx->fstr_depth >= LEX_MAX_FSTR_DEPTH) {
    lex_error(ctx, line, col, false, "f-string: expressions nested too deeply");
    return NULL;
  }
  Lexer sub;
  lex_init(&sub, ctx, arena_strndup(ctx->arena, text, len), LEX_EXPR, line, col);
  ctx->fstr_depth++;
  int r = tes_yyparse(&sub);
  ctx->fstr_depth--;
  if (r != 0 && !ctx->failed) lex_error(ctx, line, col, false, "invalid syntax in f-string");
  return r == 0 && !ctx->failed ? sub.expr : NULL;
}

static void locate_nul(ParseCtx *ctx, const char *text, const char *nul) {
  int line = 1;
  const char *start = text;
  for (const char *p = text; p < nul; p++)
    if (*p == '\n') line++, start = p + 1;
  lex_error(ctx, line, (int)(nul - start) + 1, false, "source code cannot contain null bytes");
}

Unit *parse_source(Source *src, ParseError *err) {
  memset(err, 0, sizeof *err);
  err->loc = (SrcLoc){src, 1, 1};
  Unit *u = unit_new(src);
  ParseCtx ctx = {.arena = &u->arena, .src = src, .err = err};
  const char *nul = memchr(src->text, 0, src->len);
  if (nul) {
    locate_nul(&ctx, src->text, nul);
  } else if (lex_check_utf8(&ctx, src->text, src->len)) {
    /* a few KB: off the caller's stack, in the unit's arena, which has room for it */
    Lexer *lx = arena_alloc(&u->arena, sizeof *lx);
    lex_init(lx, &ctx, src->text, LEX_FILE, 1, 1);
    int r = tes_yyparse(lx);
    if (r != 0 && !ctx.failed) lex_error(&ctx, 1, 1, false, "invalid syntax");
    if (!ctx.failed) {
      u->root->u.list = lx->stmts;
      if (check_tree(&ctx, u->root, 0, 0)) check_bigints(&ctx);
    }
  }
  if (!ctx.failed) return u;
  unit_decref(u);
  return NULL;
}
