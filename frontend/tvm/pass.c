/* pass.c: tvm.transform.PassContext (SPEC §9) and the session's lowering state. A
 * PassContext's settings are checked and turned into lower_run's options when it is made, so
 * an unknown config key fails at the call that names it (TVM rejects one there too). `with`
 * pushes the context on the session's stack and leaving pops it, also when the body raises
 * (exec.c calls __exit__ then). Contexts, the stack and the hooks live in the session's IR
 * arena, like schedules: the values own nothing, and a context left entered leaks nothing. */
#include "frontend/tvm/pass.h"

#include <stdio.h>
#include <string.h>

#include "frontend/lang/interp_impl.h"
#include "frontend/lang/modules_impl.h"
#include "frontend/tvm/raise.h"
#include "frontend/tvm/te_impl.h"
#include "ir/strbuf.h"

typedef struct PassConfig {
  int64_t opt_level;
  int noptions;
  PassOption *options;
  int nrequired, ndisabled;
  const char **required, **disabled;
  const VtaTarget *vta; /* vta.build_config(): VTA's passes run, for this VTA */
} PassConfig;

typedef struct BiPassState {
  BiLowerHooks hooks;
  PassConfig **stack; /* the entered contexts, innermost last */
  int depth, cap;
  PassConfig *dflt; /* what current() gives outside every `with` */
  int nwarned, cap_warned;
  const char **warned; /* the lowering warnings printed: each once a session */
} BiPassState;

static BiPassState *state(Interp *I) {
  if (!I->pass_state) I->pass_state = arena_alloc(arena(I), sizeof *I->pass_state);
  return I->pass_state;
}

BiLowerHooks *bi_pass_hooks(Interp *I) { return &state(I)->hooks; }

/* TVM's default: opt_level 2, no config, every pass enabled. */
static PassConfig *current_config(Interp *I) {
  BiPassState *st = state(I);
  if (st->depth > 0) return st->stack[st->depth - 1];
  if (!st->dflt) {
    st->dflt = arena_alloc(arena(I), sizeof *st->dflt);
    st->dflt->opt_level = 2;
  }
  return st->dflt;
}

/* ---- the config keys we know ---- */

typedef enum { OPT_INT, OPT_BOOL } OptType;

/* A config key (with a field of its dict, or NULL for a key that takes one value) and the
 * pass option it becomes. The passes read these through pass_option(). */
typedef struct ConfigKey {
  /* an array, not a pointer: GCC -O3 would see a strcmp of two literals of different lengths
   * in add_fields and fail the build (-Werror=string-compare) */
  char key[32];
  const char *field;
  const char *pass, *option;
  OptType type;
} ConfigKey;

static const ConfigKey config_keys[] = {
    {"tir.UnrollLoop", "auto_max_step", "tir.UnrollLoop", "auto_max_step", OPT_INT},
    {"tir.UnrollLoop", "auto_max_depth", "tir.UnrollLoop", "auto_max_depth", OPT_INT},
    {"tir.UnrollLoop", "auto_max_extent", "tir.UnrollLoop", "auto_max_extent", OPT_INT},
    {"tir.UnrollLoop", "explicit_unroll", "tir.UnrollLoop", "explicit_unroll", OPT_BOOL},
    {"tir.InjectDoubleBuffer", "split_loop", "tir.InjectDoubleBuffer", "split_loop", OPT_INT},
    {"tir.LoopPartition", "partition_const_loop", "tir.LoopPartition", "partition_const_loop",
     OPT_BOOL},
    {"tir.LoopPartition", "no_unroll_loop_with_extent_one", "tir.LoopPartition",
     "no_unroll_loop_with_extent_one", OPT_BOOL},
    /* TVM runs VectorizeLoop with vectorizing off: vector loops become serial ones */
    {"tir.disable_vectorize", NULL, "tir.VectorizeLoop", "disable", OPT_BOOL},
    /* run-time checks of every buffer access the compiler cannot prove inside its buffer */
    {"tir.instrument_bound_checkers", NULL, "tir.InstrumentBoundCheckers", "enable", OPT_BOOL},
};
enum { NKEYS = sizeof config_keys / sizeof config_keys[0] };

static const ConfigKey *find_key(const char *key, const char *field) {
  for (int i = 0; i < NKEYS; i++) {
    const ConfigKey *k = &config_keys[i];
    if (strcmp(k->key, key) == 0 && (!field || (k->field && strcmp(k->field, field) == 0)))
      return k;
  }
  return NULL;
}

/* ", "-separated: the keys (field NULL) or the fields of one key, for error messages. */
static void list_known(StrBuf *b, const char *key) {
  int n = 0;
  for (int i = 0; i < NKEYS; i++) {
    const ConfigKey *k = &config_keys[i];
    if (key ? strcmp(k->key, key) != 0 : find_key(k->key, NULL) != k) continue;
    sb_printf(b, "%s%s", n++ ? ", " : "", key ? k->field : k->key);
  }
}

static Value *unknown_key(Interp *I, const char *key, const char *field) {
  StrBuf b = STRBUF_INIT;
  list_known(&b, field ? key : NULL);
  if (field)
    interp_raise(I, EXC_ValueError, "PassContext: config '%s' has no option '%s' (it has %s)", key,
                 field, sb_cstr(&b));
  else
    interp_raise(I, EXC_ValueError, "PassContext: unknown config key '%s' (known: %s)", key,
                 sb_cstr(&b));
  sb_free(&b);
  return NULL;
}

/* One setting: an int, or a bool (ints allowed, as TVM's attribute conversion does). */
static int add_option(Interp *I, PassConfig *c, const ConfigKey *k, Value *v) {
  if (!val_is_int(v)) {
    interp_raise(I, EXC_TypeError, "PassContext: config '%s%s%s' must be %s, not '%s'", k->key,
                 k->field ? "." : "", k->field ? k->field : "",
                 k->type == OPT_BOOL ? "a bool" : "an int", val_type_name(v));
    return -1;
  }
  c->options[c->noptions++] = (PassOption){k->pass, k->option, v->u.i};
  return 0;
}

static int add_fields(Interp *I, PassConfig *c, const char *key, Value *fields) {
  if (fields->kind != VAL_DICT) {
    interp_raise(I, EXC_TypeError, "PassContext: config '%s' must be a dict of options, not '%s'",
                 key, val_type_name(fields));
    return -1;
  }
  int64_t pos = 0;
  Value *f, *v;
  while (dict_next(fields, &pos, &f, &v)) {
    if (f->kind != VAL_STR) {
      interp_raise(I, EXC_TypeError, "PassContext: config '%s' has str keys, not '%s'", key,
                   val_type_name(f));
      return -1;
    }
    const ConfigKey *k = find_key(key, f->u.str.s);
    if (!k) return unknown_key(I, key, f->u.str.s), -1;
    if (add_option(I, c, k, v) < 0) return -1;
  }
  return 0;
}

static int read_config(Interp *I, PassConfig *c, Value *config) {
  if (!config || config->kind == VAL_NONE) return 0;
  if (config->kind != VAL_DICT) {
    interp_raise(I, EXC_TypeError, "PassContext: config must be a dict, not '%s'",
                 val_type_name(config));
    return -1;
  }
  c->options = arena_alloc(arena(I), NKEYS * sizeof *c->options);
  int64_t pos = 0;
  Value *key, *v;
  while (dict_next(config, &pos, &key, &v)) {
    if (key->kind != VAL_STR) {
      interp_raise(I, EXC_TypeError, "PassContext: config keys are str, not '%s'",
                   val_type_name(key));
      return -1;
    }
    const ConfigKey *k = find_key(key->u.str.s, NULL);
    if (!k) return unknown_key(I, key->u.str.s, NULL), -1;
    if ((k->field ? add_fields(I, c, k->key, v) : add_option(I, c, k, v)) < 0) return -1;
  }
  return 0;
}

/* required_pass / disabled_pass: None, or a list or tuple of pass names. */
static int read_names(Interp *I, Value *v, const char *what, int *n, const char ***out) {
  *n = 0;
  if (!v || v->kind == VAL_NONE) return 0;
  if (v->kind != VAL_LIST && v->kind != VAL_TUPLE) {
    interp_raise(I, EXC_TypeError, "PassContext: %s must be a list of pass names, not '%s'", what,
                 val_type_name(v));
    return -1;
  }
  *out = arena_alloc(arena(I), (size_t)(VAL_SEQ_N(v) + 1) * sizeof **out);
  for (int64_t i = 0; i < VAL_SEQ_N(v); i++) {
    Value *s = VAL_SEQ_ITEM(v, i);
    if (s->kind != VAL_STR) {
      interp_raise(I, EXC_TypeError, "PassContext: %s holds pass names (str), not '%s'", what,
                   val_type_name(s));
      return -1;
    }
    (*out)[(*n)++] = arena_strndup(arena(I), s->u.str.s, (size_t)s->u.str.len);
  }
  return 0;
}

/* ---- PassContext values ---- */

static PassConfig *config_of(Value *self) { return self->u.obj.p; }

static Value *names_list(int n, const char **names) {
  Value *l = val_list_new(n);
  for (int i = 0; i < n; i++) val_list_append_take(l, val_cstr(names[i]));
  return l;
}

/* The config as a dict of the keys it was given: {"tir.UnrollLoop": {"auto_max_step": 16}}. */
static Value *config_dict(Interp *I, const PassConfig *c) {
  Value *d = val_dict_new();
  if (c->vta) { /* vta.build_config(): VTA's passes, by name */
    Value *l = val_list_new(0);
    for (int i = 0; lower_pass_name(i); i++)
      if (lower_pass_is_vta(i))
        val_list_append_take(l, val_cstr(lower_pass_name(i)));
    dict_set_sym(d, sym_cstr("tir.add_lower_pass"), l);
    val_decref(l);
  }
  for (int i = 0; i < NKEYS; i++) {
    const ConfigKey *k = &config_keys[i];
    for (int j = 0; j < c->noptions; j++) {
      if (strcmp(c->options[j].pass, k->pass) != 0 || strcmp(c->options[j].key, k->option) != 0)
        continue;
      Value *v =
          k->type == OPT_BOOL ? val_bool(c->options[j].value != 0) : val_int(c->options[j].value);
      Sym *key = sym_cstr(k->key);
      Value *fields = k->field ? dict_get_sym(d, key) : NULL;
      if (k->field && !fields) {
        dict_set_sym(d, key, fields = val_dict_new());
        val_decref(fields); /* d holds it */
      }
      dict_set_sym(k->field ? fields : d, k->field ? sym_cstr(k->field) : key, v);
      val_decref(v);
    }
  }
  return d;
}

static Value *context_repr(Interp *I, Value *self) {
  const PassConfig *c = config_of(self);
  Value *d = config_dict(I, c), *r = val_repr(I, d);
  val_decref(d);
  if (!r) return NULL;
  StrBuf b = STRBUF_INIT;
  sb_printf(&b, "PassContext(opt_level=%lld", (long long)c->opt_level);
  for (int pass = 0; pass < 2; pass++) {
    int n = pass ? c->ndisabled : c->nrequired;
    const char **names = pass ? c->disabled : c->required;
    if (n) sb_printf(&b, ", %s=[", pass ? "disabled_pass" : "required_pass");
    for (int i = 0; i < n; i++) sb_printf(&b, "%s'%s'", i ? ", " : "", names[i]);
    if (n) sb_putc(&b, ']');
  }
  sb_printf(&b, ", config=%s)", r->u.str.s);
  val_decref(r);
  size_t len;
  char *s = sb_take(&b, &len);
  return val_str_take(s, len);
}

static Value *context_opt_level(Interp *I, Value *self) {
  return val_int(config_of(self)->opt_level);
}

static Value *context_config(Interp *I, Value *self) { return config_dict(I, config_of(self)); }

static Value *context_required_pass(Interp *I, Value *self) {
  const PassConfig *c = config_of(self);
  return names_list(c->nrequired, c->required);
}

static Value *context_disabled_pass(Interp *I, Value *self) {
  const PassConfig *c = config_of(self);
  return names_list(c->ndisabled, c->disabled);
}

static Value *context_instruments(Interp *I, Value *self) { return val_list_new(0); }

static const Property context_props[] = {
    {"opt_level", context_opt_level, "the optimisation level, 0 to 3"},
    {"config", context_config, "the passes' options, a dict by pass name"},
    {"required_pass", context_required_pass, "the passes that run at any level, a list of names"},
    {"disabled_pass", context_disabled_pass, "the passes that never run, a list of names"},
    {"instruments", context_instruments, "the pass instruments (always none)"},
    {0},
};

static Value *same_context(Interp *I, CmpOp op, Value *a, Value *b, bool right) {
  if ((op != CMP_EQ && op != CMP_NE) || a->kind != VAL_OBJ || b->kind != VAL_OBJ ||
      a->u.obj.cls != b->u.obj.cls)
    return NULL;
  return val_bool((a->u.obj.p == b->u.obj.p) == (op == CMP_EQ));
}

static Value *context_enter(Interp *I, Value *self, Value **a) {
  BiPassState *st = state(I);
  if (st->depth == st->cap) {
    int cap = st->cap ? 2 * st->cap : 8;
    st->stack = arena_realloc(arena(I), st->stack, (size_t)st->cap * sizeof *st->stack,
                              (size_t)cap * sizeof *st->stack);
    st->cap = cap;
  }
  st->stack[st->depth++] = config_of(self);
  return val_incref(self);
}

/* Leaving restores the context entered before this one. */
static Value *context_exit(Interp *I, Value *self, Value **a) {
  BiPassState *st = state(I);
  if (st->depth == 0 || st->stack[st->depth - 1] != config_of(self))
    return interp_raise(I, EXC_RuntimeError,
                        "PassContext.__exit__: this context is not the innermost one entered");
  st->depth--;
  return val_none();
}

static const Builtin context_methods[] = {
    {"__enter__", context_enter, 0, NOPARAMS,
     "__enter__() -> PassContext: make this the current context (`with` calls it)"},
    {"__exit__", context_exit, 0, PARAMS("ptype", "value", "trace"),
     "__exit__(ptype, value, trace): restore the context entered before (`with` calls it)"},
    {0},
};

static const ObjClass context_class = {
    .type = {"PassContext", NULL, VAL_OBJ, NULL},
    .repr = context_repr,
    .compare = same_context,
    .methods = context_methods,
    .props = context_props,
};

static Value *wrap(PassConfig *c) { return val_obj_new(&context_class, c); }

Value *bi_pass_context_vta(Interp *I, const VtaTarget *t) {
  PassConfig *c = arena_alloc(arena(I), sizeof *c);
  *c = (PassConfig){.opt_level = 2};
  VtaTarget *copy = arena_alloc(arena(I), sizeof *copy);
  *copy = *t;
  c->vta = copy;
  return wrap(c);
}

/* ---- the class: tvm.transform.PassContext(...) and PassContext.current() ---- */

static const Builtin context_ctor = {
    "PassContext", NULL, 0,
    PARAMS("opt_level", "required_pass", "disabled_pass", "instruments", "config"),
    "PassContext(opt_level=2, required_pass=None, disabled_pass=None, instruments=None, "
    "config=None) -> PassContext: lowering settings, for a `with` block"};

static Value *make_context(Interp *I, Value **a) {
  PassConfig *c = arena_alloc(arena(I), sizeof *c);
  c->opt_level = 2;
  if (a[0] && a[0]->kind != VAL_NONE) {
    if (!val_is_int(a[0]))
      return interp_raise(I, EXC_TypeError, "PassContext: opt_level must be an int, not '%s'",
                          val_type_name(a[0]));
    c->opt_level = a[0]->u.i;
  }
  if (read_names(I, a[1], "required_pass", &c->nrequired, &c->required) < 0 ||
      read_names(I, a[2], "disabled_pass", &c->ndisabled, &c->disabled) < 0)
    return NULL;
  Value *ins = a[3];
  bool no_ins = !ins || ins->kind == VAL_NONE ||
                ((ins->kind == VAL_LIST || ins->kind == VAL_TUPLE) && VAL_SEQ_N(ins) == 0);
  if (!no_ins)
    return interp_raise(I, EXC_RuntimeError,
                        "not supported yet: PassContext(instruments=...) (pass instrumentation)");
  if (read_config(I, c, a[4]) < 0) return NULL;
  return wrap(c);
}

static Value *class_call(Interp *I, Value *self, CallArgs *args) {
  Value *slots[5];
  if (interp_bind_builtin(I, &context_ctor, args, slots) < 0) return NULL;
  return make_context(I, slots);
}

static Value *class_repr(Interp *I, Value *self) {
  return val_cstr("<class 'tvm.transform.PassContext'>");
}

static Value *class_current(Interp *I, Value *self, Value **a) { return wrap(current_config(I)); }

static const Builtin class_methods[] = {
    {"current", class_current, 0, NOPARAMS,
     "current() -> PassContext: the innermost entered context, else the default one"},
    {0},
};

static const ObjClass class_class = {
    .type = {"type", NULL, VAL_OBJ, NULL},
    .repr = class_repr,
    .call = class_call,
    .methods = class_methods,
};

int bi_pass_module_init(Interp *I, Value *module) {
  bi_set_member_take(module, "PassContext", val_obj_new(&class_class, NULL));
  return 0;
}

/* ---- lowering under the current context ---- */

/* A lowering's warning (tes.CheckBounds) on stderr, once a session: tvm.lower and then
 * tvm.build of one schedule, or :watch lowering after each primitive, would repeat it. */
static void print_warning(void *user, const char *msg) {
  Interp *I = user;
  BiPassState *st = state(I);
  for (int i = 0; i < st->nwarned; i++)
    if (strcmp(st->warned[i], msg) == 0) return;
  if (st->nwarned == st->cap_warned) {
    int cap = st->cap_warned ? 2 * st->cap_warned : 8;
    st->warned = arena_realloc(arena(I), st->warned, (size_t)st->cap_warned * sizeof *st->warned,
                               (size_t)cap * sizeof *st->warned);
    st->cap_warned = cap;
  }
  st->warned[st->nwarned++] = arena_strndup(arena(I), msg, strlen(msg));
  fflush(stdout); /* after what the script printed before it */
  fprintf(stderr, "tes: warning: %s\n", msg);
}

LoweredFunc *bi_pass_lower(Interp *I, Arena *a, Schedule *s, int nargs, Tensor **args,
                           const char *name, bool hooks) {
  return bi_pass_lower_for(I, a, s, nargs, args, name, hooks, false, NULL, false);
}

/* The lowering options the innermost PassContext gives: its config, disabled passes and VTA
 * target, with warnings printed to stderr. */
static LowerOptions context_options(Interp *I) {
  const PassConfig *c = current_config(I);
  return (LowerOptions){.noptions = c->noptions,
                        .options = c->options,
                        .ndisabled = c->ndisabled,
                        .disabled = c->disabled,
                        .warn = print_warning,
                        .warn_user = I,
                        .vta = c->vta};
}

LoweredFunc *bi_pass_lower_for(Interp *I, Arena *a, Schedule *s, int nargs, Tensor **args,
                               const char *name, bool hooks, bool gpu, Buffer *const *binds,
                               bool partition) {
  const BiLowerHooks *h = bi_pass_hooks(I);
  LowerOptions opt = context_options(I);
  opt.name = name;
  opt.loop_partition = partition;
  opt.gpu = gpu;
  opt.arg_buffers = binds;
  if (hooks) opt.dump = h->dump, opt.dump_user = h->dump_user;
  Diag d = DIAG_INIT;
  bool gpu_pass_failed = false;
  opt.gpu_pass_failed = &gpu_pass_failed;
  LoweredFunc *f = lower_run(a, s, nargs, args, &opt, &d);
  if (!f) return bi_raise_diag(I, gpu_pass_failed ? EXC_BuildError : EXC_LowerError, &d), NULL;
  if (hooks && h->lowered) h->lowered(h->lowered_user, I, f);
  return f;
}

LoweredFunc *bi_pass_gpu_passes(Interp *I, Arena *a, const LoweredFunc *f) {
  const BiLowerHooks *h = bi_pass_hooks(I);
  LowerOptions opt = context_options(I);
  opt.vta = NULL; /* the GPU passes only */
  opt.gpu = true;
  opt.dump = h->dump, opt.dump_user = h->dump_user;
  /* every pass here is a GPU pass run by tvm.build: its refusals are BuildErrors, as when the
   * build lowers the schedule itself */
  Diag d = DIAG_INIT;
  LoweredFunc *g = lower_gpu_passes(a, f, &opt, &d);
  if (!g) return bi_raise_diag(I, EXC_BuildError, &d), NULL;
  return g;
}

void bi_pass_schedule_changed(Interp *I, Schedule *s, Stage *st, const char *what) {
  const BiLowerHooks *h = bi_pass_hooks(I);
  if (h->changed) h->changed(h->changed_user, I, s, st, what);
}
