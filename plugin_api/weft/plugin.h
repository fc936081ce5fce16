/* weft plugin ABI: the C boundary between libweft_core and every plugin.
 *
 * A plugin is a shared library that exports one symbol, `weft_plugin_entry`
 * (define it with WEFT_PLUGIN_ENTRY), plus a YAML manifest beside it
 * (docs/plugins.md). The host calls the entry with its ABI version and gets
 * the plugin's descriptor back; if the versions are compatible it calls the
 * descriptor's `init` with the host function table, and the plugin registers
 * what its manifest declares (ops, models, initializers, passes, targets,
 * frontends) through that table.
 *
 * Conventions (they hold for every function below unless its note says
 * otherwise):
 * - Versioning: WEFT_PLUGIN_ABI_MAJOR changes only for breaking changes; a
 *   plugin built against minor N runs on any host of the same major with a
 *   minor >= N. Tables and structs only grow at their end.
 * - Every struct that crosses the boundary starts with `size_t struct_size`
 *   set to sizeof(the struct) by whoever fills it, so each side can tell which
 *   fields the other knows. Fields a reader does not find (a smaller struct
 *   from an older writer) read as zero, and zero always means "absent".
 *   Arrays of such structs are walked with the first element's struct_size as
 *   the stride.
 * - Errors cross as weft_status_t: NULL is success; anything else is a
 *   host-allocated status (code + message). Whoever receives a non-NULL status
 *   owns it and must either free it (status_free) or return it onward. Never
 *   let a C++ exception cross the boundary.
 * - IR objects (types, expressions, attribute values and dictionaries,
 *   modules) cross as opaque, reference-counted, immutable handles. A handle
 *   returned through an `out_` parameter is a new reference the caller owns and
 *   releases with the matching *_release. A handle passed *into* a function is
 *   borrowed: the callee retains it if it keeps it. Handles passed to plugin
 *   callbacks are borrowed for the duration of the call.
 * - An expression handle is the node itself: every handle to one node is the
 *   same pointer, so a plugin may key maps by handle to walk a shared graph.
 * - Raw pointers handed out by inspection functions (strings, shape arrays)
 *   are borrowed from the handle they came from and valid while it lives.
 * - Tensors cross as DLPack DLTensor views; the memory belongs to the host.
 * - Thread safety: handles are immutable and their reference counts atomic, so
 *   they may be shared across threads. Registration functions may be called
 *   only from inside `init`, on the thread that called it. Callbacks (type
 *   relations, kernels, ...) may be called from any thread, concurrently.
 * - Strings and arrays a plugin passes in are copied by the host during the
 *   call unless a note says otherwise.
 */
#ifndef WEFT_PLUGIN_H_
#define WEFT_PLUGIN_H_

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Version ------------------------------------------------------------- */

#define WEFT_PLUGIN_ABI_MAJOR 1
/* 1.1: model variants, expr_free_vars, ops' infer_inputs; 1.2: attrs' text_default;
 * 1.3: ops' named rewrites, module_run_pass, ops' layout hooks; 1.4: the target
 * interface (weft_target_interface_t, register_target_interface), which
 * replaces the flat weft_target_desc_t, and ops' is_reshape; 1.5: the
 * OUT_OF_MEMORY status; 1.6: the PassContext given to passes
 * (weft_pass_desc_t.run_in_context, the pass_context_* functions) and ops'
 * is_layout_layer; 1.7: targets' packed_constants; 1.8: ops' prepared kernels
 * (prepare_kernel, run_prepared_kernel, release_kernel_plan); 1.9: tensor
 * expressions (the te_* host functions, for ops' te_compute); 1.10: loop
 * programs (te_call_supported, loop_program_lower, loop_program_release);
 * 1.11: the target traits' many_threads; 1.12: targets' inplace_parameter */
#define WEFT_PLUGIN_ABI_MINOR 12

/* ---- Status -------------------------------------------------------------- */

typedef enum weft_status_code_e {
  WEFT_STATUS_OK = 0,
  WEFT_STATUS_INVALID_ARGUMENT = 1, /* bad input: shapes, attrs, dtypes */
  WEFT_STATUS_NOT_FOUND = 2,        /* an unknown op, attr, or name */
  WEFT_STATUS_TYPE_MISMATCH = 3,    /* a handle or value of the wrong kind */
  WEFT_STATUS_UNSUPPORTED = 4,      /* valid input this implementation does not handle */
  WEFT_STATUS_INTERNAL = 5,         /* a bug */
  WEFT_STATUS_OUT_OF_MEMORY = 6,    /* an allocation failed (std::bad_alloc); since 1.5 */
} weft_status_code_t;

/* NULL means success. */
typedef struct weft_status_s* weft_status_t;

/* ---- Opaque handles ------------------------------------------------------ */

typedef struct weft_type_s weft_type_t;             /* a Relay type */
typedef struct weft_expr_s weft_expr_t;             /* a Relay expression */
typedef struct weft_attr_value_s weft_attr_value_t; /* one attribute value */
typedef struct weft_attrs_s weft_attrs_t;           /* an attribute dictionary */
typedef struct weft_module_s weft_module_t;         /* an IRModule */
/* Tensor expressions (docs/te.md; built with the te_* host functions of ABI
 * 1.9): a tensor (an op's input placeholder or a compute), a scalar
 * expression, an axis (data-parallel or reduction) and a reducer. */
typedef struct weft_te_tensor_s weft_te_tensor_t;
typedef struct weft_te_expr_s weft_te_expr_t;
typedef struct weft_te_axis_s weft_te_axis_t;
typedef struct weft_te_reducer_s weft_te_reducer_t;
/* Passed to init; identifies the plugin being loaded. Valid only during init. */
typedef struct weft_registrar_s weft_registrar_t;
/* ABI 1.6: the PassContext a pass runs under (opt level, required and
 * disabled passes, config values, statistics). Not reference-counted:
 * borrowed for the duration of the run_in_context call that received it, and
 * of the host calls made during it; never kept. */
typedef struct weft_pass_context_s weft_pass_context_t;

typedef enum weft_type_kind_e {
  WEFT_TYPE_TENSOR = 0,
  WEFT_TYPE_TUPLE = 1,
  WEFT_TYPE_FUNC = 2,
  WEFT_TYPE_INCOMPLETE = 3,
} weft_type_kind_t;

/* A dimension extent; WEFT_DIM_ANY is Relay's `?`. */
#define WEFT_DIM_ANY ((int64_t)-1)

typedef enum weft_expr_kind_e {
  WEFT_EXPR_VAR = 0,
  WEFT_EXPR_GLOBAL_VAR = 1,
  WEFT_EXPR_CONSTANT = 2,
  WEFT_EXPR_OP = 3,
  WEFT_EXPR_CALL = 4,
  WEFT_EXPR_FUNCTION = 5,
  WEFT_EXPR_TUPLE = 6,
  WEFT_EXPR_TUPLE_GET_ITEM = 7,
  WEFT_EXPR_LET = 8,
  WEFT_EXPR_IF = 9,
} weft_expr_kind_t;

/* The kinds of attribute value (values match the core's AttrType). */
typedef enum weft_attr_type_e {
  WEFT_ATTR_NONE = 0,
  WEFT_ATTR_INT = 1,
  WEFT_ATTR_FLOAT = 2,
  WEFT_ATTR_BOOL = 3,
  WEFT_ATTR_STRING = 4,
  WEFT_ATTR_DTYPE = 5,
  WEFT_ATTR_INT_LIST = 6,
  WEFT_ATTR_FLOAT_LIST = 7,
  WEFT_ATTR_LIST = 8, /* a list of values, e.g. pad_width [[0, 0], [1, 1]] */
  WEFT_ATTR_ANY = 9,  /* schema only: accepts any kind */
} weft_attr_type_t;

/* How an op fuses with its neighbours (Relay's values). */
typedef enum weft_op_pattern_e {
  WEFT_PATTERN_ELEMWISE = 0,
  WEFT_PATTERN_BROADCAST = 1,
  WEFT_PATTERN_INJECTIVE = 2,
  WEFT_PATTERN_COMM_REDUCE = 3,
  WEFT_PATTERN_OUT_ELEMWISE_FUSABLE = 4,
  WEFT_PATTERN_TUPLE = 7,
  WEFT_PATTERN_OPAQUE = 8,
} weft_op_pattern_t;

/* Tensor-expression operators (ABI 1.9). Division of integers truncates;
 * FLOORDIV rounds toward minus infinity and FLOORMOD takes the divisor's
 * sign. Comparisons give bool; AND and OR take and give bool. */
typedef enum weft_te_binary_op_e {
  WEFT_TE_ADD = 0,
  WEFT_TE_SUB = 1,
  WEFT_TE_MUL = 2,
  WEFT_TE_DIV = 3,
  WEFT_TE_FLOORDIV = 4,
  WEFT_TE_FLOORMOD = 5,
  WEFT_TE_MIN = 6,
  WEFT_TE_MAX = 7,
  WEFT_TE_EQ = 8,
  WEFT_TE_NE = 9,
  WEFT_TE_LT = 10,
  WEFT_TE_LE = 11,
  WEFT_TE_GT = 12,
  WEFT_TE_GE = 13,
  WEFT_TE_AND = 14,
  WEFT_TE_OR = 15,
} weft_te_binary_op_t;

/* Math intrinsics with the reference kernels' definitions (sigmoid is
 * 1 / (1 + exp(-x)), round is half to even, rsqrt is 1 / sqrt(x)). NEG and
 * ABS take any number, NOT a bool, POW and FMOD two floats, the rest one float. */
typedef enum weft_te_intrinsic_e {
  WEFT_TE_NEG = 0,
  WEFT_TE_ABS = 1,
  WEFT_TE_EXP = 2,
  WEFT_TE_LOG = 3,
  WEFT_TE_TANH = 4,
  WEFT_TE_ERF = 5,
  WEFT_TE_SQRT = 6,
  WEFT_TE_RSQRT = 7,
  WEFT_TE_SIGMOID = 8,
  WEFT_TE_FLOOR = 9,
  WEFT_TE_CEIL = 10,
  WEFT_TE_ROUND = 11,
  WEFT_TE_POW = 12,
  WEFT_TE_NOT = 13,
  WEFT_TE_TRUNC = 14, /* toward zero */
  WEFT_TE_FMOD = 15,  /* two floats: C's fmod, x - trunc(x / y) * y computed exactly */
} weft_te_intrinsic_t;

/* The reductions of one value (TVM's te.sum, te.max, te.min, prod); they start
 * from 0, the dtype's lowest value, its highest, and 1. */
typedef enum weft_te_reduce_kind_e {
  WEFT_TE_REDUCE_SUM = 0,
  WEFT_TE_REDUCE_MAX = 1,
  WEFT_TE_REDUCE_MIN = 2,
  WEFT_TE_REDUCE_PROD = 3,
} weft_te_reduce_kind_t;

/* Loop programs (ABI 1.10; docs/te.md): a fused group's TE lowered under the
 * default schedules for a target's traits, handed to a target that generates
 * code (LLVM IR, GLSL) as a flat, read-only table. What the `loops` target
 * evaluates and `weft opt --emit loops` prints. */

/* What a target tells the default schedules about itself; a field left 0
 * takes its default (1 lane, 1 core, 16 vector registers). */
typedef struct weft_target_traits_t {
  size_t struct_size;
  int32_t vector_lanes;     /* elements of one vector register */
  int32_t cores;            /* cores a parallel loop may use */
  int32_t vector_registers; /* vector registers a register tile may use */
  int32_t many_threads;     /* 1.11; nonzero: a GPU, whose parallel loops run an iteration per thread, so
                             * each stage is one parallel loop over its data whatever its work */
} weft_target_traits_t;

/* How a loop's iterations may run; every kind computes what the serial loop
 * does, so a code generator may run any loop serially. */
typedef enum weft_loop_for_kind_e {
  WEFT_LOOP_SERIAL = 0,
  WEFT_LOOP_PARALLEL = 1,   /* iterations independent: may run on several cores */
  WEFT_LOOP_VECTORIZED = 2, /* iterations independent: may run as vector lanes */
  WEFT_LOOP_UNROLLED = 3,
} weft_loop_for_kind_t;

/* The nodes of a loop program: expressions (INT..LOAD, with a dtype) and
 * statements (FOR..SEQ). `operands` lists other nodes by index; every
 * operand's index is smaller than its user's (children first), and the
 * program's body is a statement. */
typedef enum weft_loop_node_kind_e {
  WEFT_LOOP_INT = 0,    /* int_value, of dtype (an integer or a bool) */
  WEFT_LOOP_FLOAT = 1,  /* float_value, already rounded to dtype */
  WEFT_LOOP_VAR = 2,    /* the value of variable `var` */
  WEFT_LOOP_BINARY = 3, /* op (weft_te_binary_op_t) of operands a, b, which share a dtype */
  WEFT_LOOP_SELECT = 4, /* operands cond, then, else; only the one chosen is evaluated, unless op is 1:
                         * both are safe to evaluate (their loads in bounds either way), so a
                         * code generator may compute both and pick one (a vector select) */
  WEFT_LOOP_CAST = 5,   /* operand value as dtype, as the reference cast kernel converts */
  WEFT_LOOP_CALL = 6,   /* op (weft_te_intrinsic_t) of the operands */
  WEFT_LOOP_LOAD = 7,   /* buffer[operands]: one index per axis */
  WEFT_LOOP_FOR = 8,    /* for var in [int_value, int_value + extent), of kind op (weft_loop_for_kind_t): operand body */
  WEFT_LOOP_STORE = 9,  /* buffer[operands 1..] = operand 0 */
  WEFT_LOOP_ALLOCATE = 10, /* scratch storage for buffer while operand 0 (the body) runs */
  WEFT_LOOP_IF = 11,    /* if operand 0: operand 1, else operand 2 when num_operands is 3 */
  WEFT_LOOP_LET = 12,   /* var = operand 0 in operand 1 */
  WEFT_LOOP_SEQ = 13,   /* the operands in order */
} weft_loop_node_kind_t;

/* Arithmetic is the dtype's: floats of 16 bits (float16, bfloat16) compute
 * in float32 and round back to their format after every operation; integers
 * wrap around in two's complement; integer division or modulo by zero is an
 * error of the run, not undefined. */
typedef struct weft_loop_node_t {
  size_t struct_size;
  weft_loop_node_kind_t kind;
  DLDataType dtype;   /* expressions: the value's dtype (a bool is kDLUInt of 1 bit) */
  int32_t op;         /* BINARY, CALL, FOR, SELECT: see the kind */
  int32_t var;        /* VAR, FOR, LET: an index into the program's vars */
  int32_t buffer;     /* LOAD, STORE, ALLOCATE: an index into the program's buffers */
  int64_t int_value;  /* INT: the value; FOR: the loop's min */
  int64_t extent;     /* FOR: its iteration count */
  double float_value; /* FLOAT */
  const int32_t* operands;
  size_t num_operands;
} weft_loop_node_t;

typedef struct weft_loop_var_t {
  size_t struct_size;
  const char* name; /* for messages and printing; names may repeat */
  DLDataType dtype; /* loop variables are int32 */
} weft_loop_var_t;

typedef enum weft_loop_buffer_role_e {
  WEFT_LOOP_BUFFER_ARG = 0,      /* launch argument `arg` (the group's parameter tensors, then its outputs) */
  WEFT_LOOP_BUFFER_CONSTANT = 1, /* a constant inside the group: `data` holds it */
  WEFT_LOOP_BUFFER_SCRATCH = 2,  /* an intermediate, stored by the ALLOCATE node naming it */
} weft_loop_buffer_role_t;

/* Flat storage of one dtype: element (i0, i1, ...) lies at sum(i_d * strides[d])
 * elements from the start; every access the program makes is proven to lie
 * within [0, num_elements). Bools are one byte each, 0 or 1. */
typedef struct weft_loop_buffer_t {
  size_t struct_size;
  const char* name;
  DLDataType dtype;
  const int64_t* shape;
  const int64_t* strides; /* in elements, one per axis */
  size_t ndim;
  int64_t num_elements;   /* the storage's size in elements */
  weft_loop_buffer_role_t role;
  int32_t arg;            /* ARG: the launch argument's index */
  const DLTensor* data;   /* CONSTANT: the values (compact, CPU memory of the program) */
} weft_loop_buffer_t;

/* A lowered group. Arrays are walked with their first element's struct_size
 * as the stride. Everything it points to lives as long as it does. */
typedef struct weft_loop_program_t {
  size_t struct_size;
  const char* name;
  const weft_loop_node_t* nodes;
  size_t num_nodes;
  const weft_loop_var_t* vars;
  size_t num_vars;
  const weft_loop_buffer_t* buffers;
  size_t num_buffers;
  int32_t body;       /* the root statement's node */
  size_t num_args;    /* the launch arguments: parameter tensors, then outputs */
  const char* text;   /* the program printed as `weft opt --emit loops` does */
} weft_loop_program_t;

/* ---- Callback signatures (implemented by plugins) ------------------------ */

/* Frees a registration's user_data when the host drops the registration (at
 * exit at the latest). May be NULL. */
typedef void (*weft_destroy_fn)(void* user_data);

/* Accepts an attribute value and returns its normal form in *out_value (a new
 * reference), or returns a non-NULL status to reject it; users then see the
 * field's `expected` text. `value` has already been coerced to the field's type. */
typedef weft_status_t (*weft_attr_normalize_fn)(void* user_data, weft_attr_value_t* value,
                                                weft_attr_value_t** out_value);

/* The output type of a call from its argument types (all complete) and its
 * normalized attrs; *out_type is a new reference. A mismatch is a status with
 * code INVALID_ARGUMENT whose message describes it; the host adds the op and
 * the call. */
typedef weft_status_t (*weft_type_relation_fn)(void* user_data, weft_type_t* const* arg_types,
                                               size_t num_args, weft_attrs_t* attrs,
                                               weft_type_t** out_type);

/* Reference kernel: reads `inputs`, writes the host-allocated, compact,
 * C-ordered `outputs` (tuple outputs flattened in order). The DLTensors and
 * their memory belong to the host and are valid for the call only. */
typedef weft_status_t (*weft_kernel_fn)(void* user_data, const DLTensor* inputs, size_t num_inputs,
                                        DLTensor* outputs, size_t num_outputs, weft_attrs_t* attrs);

/* Prepared kernel (ABI 1.8): what a kernel works out from a call's argument
 * types and normalized attrs alone (a convolution's canonical shapes and
 * windows), worked out once per call site. prepare stores it in *out_plan;
 * each run of that call gets it back with the call's tensors and attrs. */
typedef weft_status_t (*weft_kernel_prepare_fn)(void* user_data, weft_type_t* const* arg_types, size_t num_args,
                                                weft_attrs_t* attrs, void** out_plan);
typedef weft_status_t (*weft_prepared_kernel_fn)(void* user_data, const void* plan, const DLTensor* inputs,
                                                 size_t num_inputs, DLTensor* outputs, size_t num_outputs,
                                                 weft_attrs_t* attrs);
typedef void (*weft_kernel_plan_release_fn)(void* user_data, void* plan);

/* Gradient as IR: given the original call and the gradient of its output,
 * stores one expression per call argument in out_grads[0..num_args) (new
 * references). */
typedef weft_status_t (*weft_gradient_fn)(void* user_data, weft_expr_t* call, weft_expr_t* output_grad,
                                          weft_expr_t** out_grads, size_t num_args);

/* Types of arguments the other arguments and the attrs determine, as Relay's
 * relations assign an untyped weight's type from the data's (ABI 1.1).
 * arg_types are the argument types as far as known, with IncompleteType
 * (WEFT_TYPE_INCOMPLETE) where unknown. out_types has num_args slots, NULL on
 * entry: set slot i to a new reference to the type argument i must have, and
 * leave the slots it cannot tell yet NULL. */
typedef weft_status_t (*weft_infer_inputs_fn)(void* user_data, weft_type_t* const* arg_types, size_t num_args,
                                              weft_attrs_t* attrs, weft_type_t** out_types);

/* A named IR-to-IR rewrite of one call of the op (ABI 1.3), e.g.
 * "simplify_inference" turning nn.batch_norm into arithmetic. `call` is typed:
 * its checked type and its arguments' are set. The rewrite builds its
 * replacement through the host API and stores it in *out_expr (a new
 * reference); it must have the call's type. Leaving *out_expr NULL (as it is
 * on entry) says the rewrite does not apply to this call. A non-NULL status
 * is an error; the host adds the op and the rewrite's name. user_data is the
 * rewrite's own (weft_op_rewrite_t.user_data). */
typedef weft_status_t (*weft_call_rewrite_fn)(void* user_data, weft_expr_t* call, weft_expr_t** out_expr);

/* The layouts an op needs its inputs in and gives its outputs (ABI 1.3;
 * Relay's FInferCorrectLayout), for ConvertLayout and AlterOpLayout. Layouts
 * are strings in Relay's notation ("NCHW", "NCHW16c"), "__undef__" where
 * undefined. One per input tensor (a tuple argument's fields one by one):
 * new_in are those they arrive in after a rewrite (NULL on the first call,
 * which asks about the call as it stands), old_in those they had before.
 * old_in_types are the argument types before the rewrite (num_args of them).
 * The op points *out_inputs at its input layouts (*out_num_inputs of them, one
 * per input) and *out_outputs at one per output tensor, "__undef__" where it
 * cannot follow; the arrays and strings are the op's and must stay valid
 * until its next call of this function on the same thread (the host copies
 * them at once). *out_attrs, NULL on entry, may take a new reference to the
 * call's attrs for these layouts (a reduction's axes); NULL keeps the call's. */
typedef weft_status_t (*weft_infer_layout_fn)(void* user_data, weft_attrs_t* attrs, const char* const* new_in,
                                              const char* const* old_in, size_t num_in,
                                              weft_type_t* const* old_in_types, size_t num_args,
                                              const char* const** out_inputs, size_t* out_num_inputs,
                                              const char* const** out_outputs, size_t* out_num_outputs,
                                              weft_attrs_t** out_attrs);

/* ConvertLayout's rebuilding of a call in the user's desired layouts (ABI 1.3;
 * Relay's FTVMConvertOpLayout): `call` is typed; desired holds one layout per
 * input, "default" where the op chooses. *out_expr (NULL on entry) takes a new
 * reference to a call of an op with as many arguments (conv2d with
 * data_layout NHWC and kernel_layout HWIO), or stays NULL to keep the call. */
typedef weft_status_t (*weft_convert_layout_fn)(void* user_data, weft_expr_t* call, const char* const* desired,
                                                size_t num_desired, weft_expr_t** out_expr);

/* Tensor-expression compute (ABI 1.9; docs/te.md): the op's outputs as TE
 * over its inputs. `inputs` are placeholders (borrowed), one per input tensor
 * of the call (a tuple argument's fields one by one), of the call's argument
 * types; `out_type` is the call's type. The op builds its outputs with the
 * te_* host functions and stores one tensor per output tensor (a tuple's
 * fields in order) in out_tensors[0..num_outputs) (new references), each of
 * out_type's shape and dtype. UNSUPPORTED says the op has no TE for this call
 * (a data-dependent shape); any other status is an error. The host may call
 * it from any thread. Hosts before 1.9 never call it. */
typedef weft_status_t (*weft_te_compute_fn)(void* user_data, weft_te_tensor_t* const* inputs,
                                            size_t num_inputs, weft_attrs_t* attrs, weft_type_t* out_type,
                                            weft_te_tensor_t** out_tensors, size_t num_outputs);

/* ---- Registration descriptors -------------------------------------------- */

/* One field of an attribute schema (ops' attrs, models' parameters, ...). */
typedef struct weft_attr_field_t {
  size_t struct_size;
  const char* name;           /* required */
  weft_attr_type_t type;      /* WEFT_ATTR_ANY accepts any kind */
  /* Borrowed; NULL makes the field required. A WEFT_ATTR_NONE value makes the
   * field optional (it accepts None). */
  weft_attr_value_t* default_value;
  const char* doc;
  const char* expected; /* acceptable values, for messages: "an int or 2 ints" */
  weft_attr_normalize_fn normalize; /* may be NULL */
  /* Passed to normalize; never freed by the host, so it must live as long as
   * the registration (e.g. inside the registration's own user_data). */
  void* normalize_user_data;
  /* ABI 1.2. Borrowed; the default of a call read from Relay text, where it
   * differs from default_value: the reference's C++ attrs default, which TVM's
   * printer leaves out (its Python wrapper's default may differ). NULL:
   * default_value. Only ops' attrs use it. */
  weft_attr_value_t* text_default;
} weft_attr_field_t;

/* One named rewrite of an op (ABI 1.3). */
typedef struct weft_op_rewrite_t {
  size_t struct_size;
  const char* name;        /* required; the passes that apply it ask by name */
  weft_call_rewrite_fn fn; /* required */
  /* Passed to fn (so one fn can serve several rewrites); never freed by the
   * host, so it must live as long as the registration (e.g. inside the op's
   * own user_data), as an attr field's normalize_user_data. */
  void* user_data;
} weft_op_rewrite_t;

typedef struct weft_op_input_t {
  size_t struct_size;
  const char* name;
  const char* type_desc; /* "Tensor", "Tuple of Tensors", ... */
  const char* doc;
} weft_op_input_t;

/* An operator. Strings and arrays are copied during the call; user_data is
 * owned by the host from then on (destroy_user_data frees it, also when
 * registration fails). */
typedef struct weft_op_desc_t {
  size_t struct_size;
  const char* name; /* must be listed under provides.ops in the manifest */
  const char* description;
  const weft_op_input_t* inputs;
  size_t num_inputs;
  int variadic; /* nonzero: accepts any number of inputs */
  const weft_attr_field_t* attrs;
  size_t num_attrs;
  weft_op_pattern_t pattern;
  int support_level; /* 1 (core) .. 10 (exotic); 0 reads as 10 */
  void* user_data;   /* passed to every callback below */
  weft_destroy_fn destroy_user_data;
  weft_type_relation_fn type_relation; /* required */
  weft_kernel_fn kernel;               /* may be NULL */
  weft_gradient_fn gradient;           /* may be NULL: not differentiable */
  weft_te_compute_fn te_compute;       /* may be NULL */
  weft_infer_inputs_fn infer_inputs;   /* ABI 1.1; may be NULL */
  /* ABI 1.3: the op's named rewrites (copied during registration; names
   * unique). May be NULL with num_rewrites 0. */
  const weft_op_rewrite_t* rewrites;
  size_t num_rewrites;
  weft_infer_layout_fn infer_layout;     /* ABI 1.3; may be NULL: inputs stay in their old layouts */
  weft_convert_layout_fn convert_layout; /* ABI 1.3; may be NULL: ConvertLayout cannot choose its layouts */
  /* ABI 1.4: nonzero when the op's output is its first input's bytes under
   * another shape (Relay's TReshapeOp: reshape, squeeze, expand_dims,
   * batch_flatten), so that the graph executor runs a fused group of only
   * such ops as a view of its input, without a kernel. */
  int is_reshape;
  /* ABI 1.6: nonzero for the layers ConvertLayout's skip_layers counts
   * (Relay's LayoutConfig: the calls of nn.conv2d and nn.deformable_conv2d
   * it converts, numbered in program order). */
  int is_layout_layer;
  /* ABI 1.8: the kernel prepared per call site. The host calls
   * prepare_kernel once where it compiles (or first interprets) a call,
   * run_prepared_kernel on every run of that call, and release_kernel_plan
   * when the call site goes; calls of the same site may run on several
   * threads at once, so a run must not write its plan. All three set, or all
   * NULL. `kernel` stays set for the runs that have no call site to keep a
   * plan for (constant folding) and for hosts of 1.7. */
  weft_kernel_prepare_fn prepare_kernel;
  weft_prepared_kernel_fn run_prepared_kernel;
  weft_kernel_plan_release_fn release_kernel_plan;
} weft_op_desc_t;

/* A named variant of a model family: `<family>-<suffix>` on the command line.
 * The suffix is literal text with at most one `{param}` placeholder, which
 * takes the text at that place as the value of that parameter (read as the
 * parameter's type): "{num_layers}" makes `resnet-50` set num_layers=50;
 * "{num_layers}-bn" with fixed {batch_norm: true} makes `vgg-16-bn`. */
typedef struct weft_model_variant_t {
  size_t struct_size;
  const char* suffix;
  weft_attrs_t* fixed; /* borrowed; parameters the variant also sets; may be NULL */
  const char* doc;     /* e.g. "num_layers: 18, 34, 50, 101, 152, 200 or 269" */
} weft_model_variant_t;

/* A model builder, e.g. resnet: parameters -> a Function. */
typedef struct weft_model_desc_t {
  size_t struct_size;
  const char* name; /* listed under provides.models */
  const char* description;
  const weft_attr_field_t* params; /* the builder's parameter schema */
  size_t num_params;
  void* user_data;
  weft_destroy_fn destroy_user_data;
  /* Builds the model from normalized parameters; *out_function is a new
   * reference to a Function expression. Invalid combinations are an
   * INVALID_ARGUMENT status naming the parameter. Required. */
  weft_status_t (*build)(void* user_data, weft_attrs_t* params, weft_expr_t** out_function);
  /* ABI 1.1: the family's named variants (copied during registration). */
  const weft_model_variant_t* variants;
  size_t num_variants;
  /* ABI 1.1: the initializer its workload uses, as the reference's
   * get_workload passes it (synthetic: "constant"); NULL means "xavier". */
  const char* initializer;
} weft_model_desc_t;

/* A parameter initializer. One instance (state) fills all parameters of one
 * workload in order, so random initializers draw from one stream. */
typedef struct weft_initializer_desc_t {
  size_t struct_size;
  const char* name; /* listed under provides.initializers */
  const char* description;
  const weft_attr_field_t* params;
  size_t num_params;
  void* user_data;
  weft_destroy_fn destroy_user_data;
  /* Creates a state for one workload; *out_state is owned by the host until
   * it passes it to destroy_state. Required. */
  weft_status_t (*create_state)(void* user_data, weft_attrs_t* params, uint64_t seed, void** out_state);
  /* Fills `tensor` (host memory, CPU, compact) for the parameter `name`. Required. */
  weft_status_t (*fill)(void* user_data, void* state, const char* name, DLTensor* tensor);
  void (*destroy_state)(void* user_data, void* state); /* required */
} weft_initializer_desc_t;

/* A module-to-module pass, registered by name with the pass registry. */
typedef struct weft_pass_desc_t {
  size_t struct_size;
  const char* name; /* listed under provides.passes */
  int opt_level;
  const char* const* required; /* passes (by name) to run right before it */
  size_t num_required;
  void* user_data;
  weft_destroy_fn destroy_user_data;
  /* *out_module is a new reference. Required unless run_in_context is set. */
  weft_status_t (*run)(void* user_data, weft_module_t* module, weft_module_t** out_module);
  /* ABI 1.6: run under the caller's PassContext (read it with the
   * pass_context_* host functions). When set, the host calls it instead of
   * run, which may then be NULL. */
  weft_status_t (*run_in_context)(void* user_data, weft_module_t* module, const weft_pass_context_t* context,
                                  weft_module_t** out_module);
} weft_pass_desc_t;

/* The pass lists of a PassContext (pass_context_passes). */
typedef enum weft_pass_list_e {
  WEFT_PASS_LIST_REQUIRED = 0, /* run whatever their opt level */
  WEFT_PASS_LIST_DISABLED = 1, /* never run by a sequence */
} weft_pass_list_t;

/* The flat target descriptor of ABI 1.0-1.3. Hosts of ABI 1.4 and later
 * refuse it (register_target returns UNSUPPORTED): targets register through
 * the target interface of ABI 1.4 (weft_target_interface_t). Kept so plugins built against it still
 * compile and load their other registrations. */
typedef struct weft_target_desc_t {
  size_t struct_size;
  const char* name; /* listed under provides.targets */
  const char* description;
  DLDeviceType device_type;
  void* user_data;
  weft_destroy_fn destroy_user_data;
  /* Whether the target runs `op_name` with these attrs and types (borrowed);
   * stores 0 or 1 in *out_supported. Required. */
  weft_status_t (*supports)(void* user_data, const char* op_name, weft_attrs_t* attrs,
                            weft_type_t* const* arg_types, size_t num_args, weft_type_t* out_type,
                            int* out_supported);
  /* Compiles a Primitive function into a kernel owned by the plugin until
   * release_kernel. Required. */
  weft_status_t (*compile)(void* user_data, weft_expr_t* primitive_function, void** out_kernel);
  /* Runs a compiled kernel; args are the function's parameters then its
   * flattened outputs, all on this target's device. Required. */
  weft_status_t (*run_kernel)(void* user_data, void* kernel, DLTensor* args, size_t num_args);
  void (*release_kernel)(void* user_data, void* kernel); /* required */
  /* Device memory. All required. */
  weft_status_t (*alloc)(void* user_data, int device_id, size_t nbytes, size_t alignment, void** out_ptr);
  void (*free)(void* user_data, int device_id, void* ptr);
  /* Copies between two tensors of equal shape and dtype, either of which may be
   * in host memory (kDLCPU). */
  weft_status_t (*copy)(void* user_data, const DLTensor* src, DLTensor* dst);
  weft_status_t (*sync)(void* user_data, int device_id);
} weft_target_desc_t;

/* ---- Targets (ABI 1.4) ---------------------------------------------------- */

/* One device a target instance drives, as `weft targets` lists it. Filled by
 * device_info; the strings and arrays are the instance's and must stay valid
 * while the instance lives (the host copies them when it asks). */
typedef struct weft_target_device_info_t {
  size_t struct_size;
  const char* name; /* required: "cpu", "llvmpipe (LLVM 15.0.6, 256 bits)" */
  /* Free-form facts for users and schedules ("memory_bytes" -> "8589934592"),
   * num_properties keys and as many values; may be NULL with 0. */
  const char* const* property_keys;
  const char* const* property_values;
  size_t num_properties;
} weft_target_device_info_t;

/* A hardware target (ABI 1.4), in the shape of IREE's HAL and ggml's
 * backends: capability queries, compilation of fused groups into kernels,
 * the devices' memory as opaque buffers, and streams of kernel launches.
 * docs/targets.md is the vendor's guide; targets/null the smallest example.
 *
 * Objects and their lifetimes (all plugin-owned, opaque to the host):
 * - user_data: the registration's; destroy_user_data frees it when the host
 *   drops the registration (at exit at the latest, also when registration
 *   fails), after every instance is destroyed.
 * - instance: one per build, from create; destroy frees it after everything
 *   made from it (kernels, buffers, streams) has been released.
 * - kernel: from compile; immutable; release_kernel frees it.
 * - buffer: from alloc, memory of one device; free releases it. A host
 *   pointer on a target whose buffers are host_addressable.
 * - stream: from create_stream, a queue of work on one device; NULL is a
 *   valid stream on a target that runs everything synchronously.
 *
 * Threading: create and destroy are called once per instance. Every other
 * function may be called from several threads at once on one instance (one
 * compiled module runs on several threads, each with its own stream and
 * buffers); a stream is used by one thread at a time.
 *
 * Statuses: every fallible function returns a weft_status_t. The host adds
 * the target and the function to the message and keeps the code: UNSUPPORTED
 * from compile declines a group, which the build offers to the next target;
 * any other failure fails the build or the run with its message. */
typedef struct weft_target_interface_t {
  size_t struct_size;
  const char* name; /* listed under provides.targets */
  const char* description;
  DLDeviceType device_type; /* kDLCPU, kDLVulkan, ... */
  /* Nonzero: buffers are host pointers the host may read and write directly
   * (CPU targets), as well as through the copy functions. */
  int host_addressable;
  /* The schema of the options a run config gives it (target_options.NAME),
   * as frontends and models declare theirs. May be NULL with 0. */
  const weft_attr_field_t* options;
  size_t num_options;
  void* user_data; /* passed to create */
  weft_destroy_fn destroy_user_data;

  /* -- Instance -- */
  /* Creates an instance from `options` (borrowed; already checked against the
   * schema, defaults filled). A target that cannot run here (no device,
   * missing driver) returns UNSUPPORTED saying why; configs listing it fail
   * with that message. Required. */
  weft_status_t (*create)(void* user_data, weft_attrs_t* options, void** out_instance);
  /* Frees an instance. Required. */
  void (*destroy)(void* instance);

  /* -- Capability -- */
  /* Whether the target runs `call` (borrowed): an op call with its attrs,
   * typed arguments and checked type (read the op's name from its callee).
   * Stores 0 or 1 in *out_supported. An op the target does not know is 0,
   * not an error. Required. */
  weft_status_t (*supports)(void* instance, weft_expr_t* call, int* out_supported);
  /* AlterOpLayout's hook: `call` (borrowed, typed) rebuilt in the layouts the
   * target prefers, with explicit layout_transforms around it, as a new
   * reference of the call's type in *out_expr; leaving it NULL keeps the
   * call. May be NULL: the target takes calls in the layouts they come in. */
  weft_status_t (*alter_layout)(void* instance, weft_expr_t* call, weft_expr_t** out_expr);

  /* -- Compile -- */
  /* Compiles `primitive` (borrowed): a typed Function with attribute
   * Primitive=1, one FuseOps group, whose body calls only ops the target said
   * it supports. `constants` has num_params entries, one per parameter: the
   * tensor (CPU, compact, borrowed for the call) its argument is bound to,
   * or NULL where the argument is computed at run time; a kernel that keeps
   * a constant (packed weights) copies it. *out_kernel takes the kernel.
   * UNSUPPORTED declines the group (the build offers it to the next target);
   * other statuses fail the build. Required. */
  weft_status_t (*compile)(void* instance, weft_expr_t* primitive, const DLTensor* const* constants,
                           size_t num_params, void** out_kernel);
  /* Frees a kernel (never while it runs). Required. */
  void (*release_kernel)(void* instance, void* kernel);
  /* Compiles a whole partition at once (every group whose first taker the
   * target is, so it can share work between them): num_groups primitives
   * and their constants as compile takes them (constants[g] has
   * num_params[g] entries), one kernel per group into out_kernels (NULL on
   * entry); a group left NULL is declined and offered to the next target,
   * and UNSUPPORTED declines them all. Kernels stored before a failing
   * status are released. May be NULL: the host then compiles group by group
   * through compile, letting each group's packed weights go before the next
   * compiles. */
  weft_status_t (*compile_partition)(void* instance, weft_expr_t* const* primitives,
                                     const DLTensor* const* const* constants, const size_t* num_params,
                                     size_t num_groups, void** out_kernels);
  /* A kernel cache's slots: serialize_kernel writes the kernel's bytes into
   * `data` (capacity bytes) and stores their count in *out_size; with `data`
   * NULL it only stores the count. deserialize_kernel rebuilds a kernel from
   * such bytes (borrowed). Both or neither may be NULL. The host of ABI 1.4
   * does not call them yet (there is no kernel cache); it checks only that
   * they come in pairs. */
  weft_status_t (*serialize_kernel)(void* instance, void* kernel, void* data, size_t capacity, size_t* out_size);
  weft_status_t (*deserialize_kernel)(void* instance, const void* data, size_t size, void** out_kernel);

  /* -- Devices. Device ids run from 0 to the count - 1. -- */
  /* The number of devices this instance drives (at least 1). Required. */
  weft_status_t (*num_devices)(void* instance, size_t* out_count);
  /* Fills *out_info (its struct_size set by the host) for device `device`. Required. */
  weft_status_t (*device_info)(void* instance, int device, weft_target_device_info_t* out_info);

  /* -- Buffers: memory on one device, as opaque handles. Offsets are bytes
   * from the buffer's start. All required. -- */
  /* nbytes (0 allowed) aligned to `alignment` (a power of two). */
  weft_status_t (*alloc)(void* instance, int device, size_t nbytes, size_t alignment, void** out_buffer);
  void (*free)(void* instance, int device, void* buffer);
  /* Copies ordered on `stream`: complete after synchronize(stream), and the
   * host memory (`src`, `dst`) is kept valid by the host until then. */
  weft_status_t (*copy_from_host)(void* instance, void* stream, const void* src, void* dst, size_t dst_offset,
                                  size_t nbytes);
  weft_status_t (*copy_to_host)(void* instance, void* stream, void* src, size_t src_offset, void* dst,
                                size_t nbytes);
  weft_status_t (*copy_buffer)(void* instance, void* stream, void* src, size_t src_offset, void* dst,
                               size_t dst_offset, size_t nbytes);

  /* -- Execution. All required. -- */
  /* A new stream on `device`; *out_stream may be left NULL by a target that
   * runs everything synchronously. */
  weft_status_t (*create_stream)(void* instance, int device, void** out_stream);
  void (*destroy_stream)(void* instance, void* stream);
  /* Enqueues one run of `kernel` on `stream`. `args` (num_args of them,
   * borrowed for the call): one per parameter of the primitive (constants
   * too; a tuple-typed parameter as its fields' tensors, depth-first), then
   * one per output (a tuple's fields in order); each `data` is a
   * buffer of this target and `byte_offset` the tensor's place in it. The
   * host keeps the buffers alive until the run completes. Outputs alias no
   * input unless the memory plan made an elementwise kernel, or one that
   * names an inplace_parameter, work in place.
   * A synchronous target runs the kernel here and reports its failure. */
  weft_status_t (*launch)(void* instance, void* kernel, void* stream, const DLTensor* args, size_t num_args);
  /* Waits for everything enqueued on `stream`; a failure of work enqueued
   * earlier surfaces here. */
  weft_status_t (*synchronize)(void* instance, void* stream);

  /* ABI 1.7. Which of `kernel`'s parameters are constants it copied at
   * compile (weights packed into its own layout) and never reads at launch:
   * out_packed has num_params entries, zeroed by the host; set those to 1.
   * Only a parameter compile was given a constant for may be marked.
   * *out_bytes (0 on entry) takes the bytes the kernel holds for its packed
   * copies (a Winograd weight is larger than the graph's), which the memory
   * report counts as parameter bytes; left 0, the graph's sizes are counted.
   * The host then lets the constant go once no other kernel reads it, and
   * launch gets such an argument with data NULL (shape and dtype as
   * always), so the weights are not held twice. May be NULL: every
   * argument is read at launch. */
  weft_status_t (*packed_constants)(void* instance, void* kernel, int* out_packed, size_t num_params,
                                    size_t* out_bytes);

  /* ABI 1.12. The parameter whose buffer `kernel` may take as its one
   * output's, where the memory plan finds that buffer read for the last time
   * by this launch: the addend of a convolution's sum post-op, which the
   * kernel otherwise copies into its output before adding into it. The
   * parameter must have the output's shape and dtype, and the kernel must
   * read each of its elements before it writes that element of the output.
   * *out_param is -1 on entry; left so, the host's own rule applies (an
   * elementwise group may overwrite the input of its result's type). May be
   * NULL. */
  weft_status_t (*inplace_parameter)(void* instance, void* kernel, int64_t* out_param);
} weft_target_interface_t;

/* A frontend reading models from files of another format. */
typedef struct weft_frontend_desc_t {
  size_t struct_size;
  const char* name; /* listed under provides.frontends */
  const char* description;
  const char* const* extensions; /* file name suffixes it reads, with the dot: ".onnx" */
  size_t num_extensions;
  const weft_attr_field_t* options;
  size_t num_options;
  void* user_data;
  weft_destroy_fn destroy_user_data;
  /* Reads `path`; *out_module is a new reference. Required. */
  weft_status_t (*import_file)(void* user_data, const char* path, weft_attrs_t* options,
                               weft_module_t** out_module);
} weft_frontend_desc_t;

/* ---- Host function table -------------------------------------------------- */

/* Filled by the host; valid until the process exits (plugins may keep the
 * pointer). The host refuses plugins built against a newer minor, so every
 * function of the plugin's own minor is present and non-NULL. */
typedef struct weft_host_api_t {
  size_t struct_size;
  uint32_t abi_major;
  uint32_t abi_minor;

  /* -- Status -- */
  /* A new status owned by the caller. `message` is copied (NULL reads as "");
   * code must not be OK (an OK code is turned into INTERNAL). */
  weft_status_t (*status_create)(weft_status_code_t code, const char* message);
  /* OK for NULL. */
  weft_status_code_t (*status_code)(weft_status_t status);
  /* "" for NULL; borrowed from the status. */
  const char* (*status_message)(weft_status_t status);
  /* Frees a status; NULL is fine. */
  void (*status_free)(weft_status_t status);

  /* -- Reference counting: retain adds a reference, release drops one. NULL is fine. -- */
  void (*type_retain)(weft_type_t* type);
  void (*type_release)(weft_type_t* type);
  void (*expr_retain)(weft_expr_t* expr);
  void (*expr_release)(weft_expr_t* expr);
  void (*attr_value_retain)(weft_attr_value_t* value);
  void (*attr_value_release)(weft_attr_value_t* value);
  void (*attrs_retain)(weft_attrs_t* attrs);
  void (*attrs_release)(weft_attrs_t* attrs);
  void (*module_retain)(weft_module_t* module);
  void (*module_release)(weft_module_t* module);

  /* -- Types -- */
  /* shape[i] >= 0 or WEFT_DIM_ANY; shape may be NULL when ndim is 0. */
  weft_status_t (*type_tensor)(const int64_t* shape, size_t ndim, DLDataType dtype, weft_type_t** out_type);
  weft_status_t (*type_tuple)(weft_type_t* const* fields, size_t num_fields, weft_type_t** out_type);
  weft_status_t (*type_func)(weft_type_t* const* params, size_t num_params, weft_type_t* ret,
                             weft_type_t** out_type);
  weft_status_t (*type_incomplete)(weft_type_t** out_type);
  weft_type_kind_t (*type_kind)(weft_type_t* type);
  /* For a tensor type: its dims (borrowed), rank and dtype. TYPE_MISMATCH otherwise. */
  weft_status_t (*type_tensor_info)(weft_type_t* type, const int64_t** out_shape, size_t* out_ndim,
                                    DLDataType* out_dtype);
  /* For a tuple type: number of fields / field i (new reference). */
  weft_status_t (*type_tuple_size)(weft_type_t* type, size_t* out_size);
  weft_status_t (*type_tuple_field)(weft_type_t* type, size_t index, weft_type_t** out_field);
  /* Relay text ("Tensor[(1, 3), float32]"); *out_text is a new string the
   * caller frees with string_free. */
  weft_status_t (*type_to_text)(weft_type_t* type, char** out_text);
  void (*string_free)(char* text);

  /* -- Attribute values -- */
  weft_status_t (*attr_value_none)(weft_attr_value_t** out_value);
  weft_status_t (*attr_value_int)(int64_t value, weft_attr_value_t** out_value);
  weft_status_t (*attr_value_float)(double value, weft_attr_value_t** out_value);
  weft_status_t (*attr_value_bool)(int value, weft_attr_value_t** out_value);
  /* `value` is copied. */
  weft_status_t (*attr_value_string)(const char* value, weft_attr_value_t** out_value);
  weft_status_t (*attr_value_dtype)(DLDataType value, weft_attr_value_t** out_value);
  weft_status_t (*attr_value_int_list)(const int64_t* values, size_t count, weft_attr_value_t** out_value);
  weft_status_t (*attr_value_float_list)(const double* values, size_t count, weft_attr_value_t** out_value);
  /* A nested list; the items are borrowed (the list retains them). */
  weft_status_t (*attr_value_list)(weft_attr_value_t* const* items, size_t count, weft_attr_value_t** out_value);
  weft_attr_type_t (*attr_value_type)(weft_attr_value_t* value);
  /* Readers: TYPE_MISMATCH when the value is of another kind. as_float also
   * reads an int; string, list data are borrowed from the value. */
  weft_status_t (*attr_value_as_int)(weft_attr_value_t* value, int64_t* out);
  weft_status_t (*attr_value_as_float)(weft_attr_value_t* value, double* out);
  weft_status_t (*attr_value_as_bool)(weft_attr_value_t* value, int* out);
  weft_status_t (*attr_value_as_string)(weft_attr_value_t* value, const char** out);
  weft_status_t (*attr_value_as_dtype)(weft_attr_value_t* value, DLDataType* out);
  weft_status_t (*attr_value_as_int_list)(weft_attr_value_t* value, const int64_t** out_data, size_t* out_count);
  weft_status_t (*attr_value_as_float_list)(weft_attr_value_t* value, const double** out_data,
                                            size_t* out_count);
  /* For WEFT_ATTR_LIST: item count / item i (new reference). */
  weft_status_t (*attr_value_list_size)(weft_attr_value_t* value, size_t* out_count);
  weft_status_t (*attr_value_list_item)(weft_attr_value_t* value, size_t index, weft_attr_value_t** out_item);

  /* -- Attribute dictionaries -- */
  /* keys are copied, values borrowed (the dictionary retains them). */
  weft_status_t (*attrs_create)(const char* const* keys, weft_attr_value_t* const* values, size_t count,
                                weft_attrs_t** out_attrs);
  size_t (*attrs_size)(weft_attrs_t* attrs);
  /* Key i (borrowed) and value i (new reference). */
  weft_status_t (*attrs_entry)(weft_attrs_t* attrs, size_t index, const char** out_key,
                               weft_attr_value_t** out_value);
  /* The value for `key` (new reference); NOT_FOUND naming the key if absent. */
  weft_status_t (*attrs_get)(weft_attrs_t* attrs, const char* key, weft_attr_value_t** out_value);

  /* -- Expressions: builders -- */
  /* type may be NULL (no annotation); name is copied. */
  weft_status_t (*expr_var)(const char* name, weft_type_t* type, weft_expr_t** out_expr);
  weft_status_t (*expr_global_var)(const char* name, weft_expr_t** out_expr);
  /* Copies the tensor (CPU memory, compact) into a new constant. */
  weft_status_t (*expr_constant)(const DLTensor* data, weft_expr_t** out_expr);
  /* The op `name` (loading the plugin that provides it). NOT_FOUND if none does. */
  weft_status_t (*expr_op)(const char* name, weft_expr_t** out_expr);
  /* A call to an op; attrs (may be NULL) are validated and normalized against
   * the op's schema (INVALID_ARGUMENT naming the op and attr otherwise). */
  weft_status_t (*expr_call_op)(const char* op_name, weft_expr_t* const* args, size_t num_args,
                                weft_attrs_t* attrs, weft_expr_t** out_expr);
  /* A call to a function, global function or closure. */
  weft_status_t (*expr_call_function)(weft_expr_t* callee, weft_expr_t* const* args, size_t num_args,
                                      weft_expr_t** out_expr);
  /* params must be Vars; ret_type and attrs may be NULL. */
  weft_status_t (*expr_function)(weft_expr_t* const* params, size_t num_params, weft_expr_t* body,
                                 weft_type_t* ret_type, weft_attrs_t* attrs, weft_expr_t** out_expr);
  weft_status_t (*expr_tuple)(weft_expr_t* const* fields, size_t num_fields, weft_expr_t** out_expr);
  weft_status_t (*expr_tuple_get_item)(weft_expr_t* tuple, int index, weft_expr_t** out_expr);
  weft_status_t (*expr_let)(weft_expr_t* var, weft_expr_t* value, weft_expr_t* body, weft_expr_t** out_expr);
  weft_status_t (*expr_if)(weft_expr_t* cond, weft_expr_t* then_branch, weft_expr_t* else_branch,
                           weft_expr_t** out_expr);

  /* -- Expressions: inspection. Accessors of a kind's fields return
   * TYPE_MISMATCH for an expression of another kind. -- */
  weft_expr_kind_t (*expr_kind)(weft_expr_t* expr);
  /* The type inference gave it (new reference); NOT_FOUND before inference. */
  weft_status_t (*expr_checked_type)(weft_expr_t* expr, weft_type_t** out_type);
  /* Var name hint, GlobalVar name or Op name (borrowed). */
  weft_status_t (*expr_name)(weft_expr_t* expr, const char** out_name);
  /* A Var's annotation (new reference; *out_type is NULL when it has none). */
  weft_status_t (*expr_var_type)(weft_expr_t* expr, weft_type_t** out_type);
  /* A constant's data as a view borrowed from the expression (CPU, compact). */
  weft_status_t (*expr_constant_data)(weft_expr_t* expr, DLTensor* out_view);
  /* A call's callee, arguments and attrs (new references). */
  weft_status_t (*expr_call_callee)(weft_expr_t* expr, weft_expr_t** out_callee);
  weft_status_t (*expr_call_num_args)(weft_expr_t* expr, size_t* out_count);
  weft_status_t (*expr_call_arg)(weft_expr_t* expr, size_t index, weft_expr_t** out_arg);
  weft_status_t (*expr_call_attrs)(weft_expr_t* expr, weft_attrs_t** out_attrs);
  /* A function's parameters, body, return annotation (NULL if none) and attrs. */
  weft_status_t (*expr_function_num_params)(weft_expr_t* expr, size_t* out_count);
  weft_status_t (*expr_function_param)(weft_expr_t* expr, size_t index, weft_expr_t** out_param);
  weft_status_t (*expr_function_body)(weft_expr_t* expr, weft_expr_t** out_body);
  weft_status_t (*expr_function_ret_type)(weft_expr_t* expr, weft_type_t** out_type);
  weft_status_t (*expr_function_attrs)(weft_expr_t* expr, weft_attrs_t** out_attrs);
  /* A tuple's fields. */
  weft_status_t (*expr_tuple_size)(weft_expr_t* expr, size_t* out_count);
  weft_status_t (*expr_tuple_field)(weft_expr_t* expr, size_t index, weft_expr_t** out_field);
  /* A tuple access's tuple and index. */
  weft_status_t (*expr_tuple_get_item_info)(weft_expr_t* expr, weft_expr_t** out_tuple, int* out_index);
  /* A let's var, value, body; an if's condition and branches. */
  weft_status_t (*expr_let_info)(weft_expr_t* expr, weft_expr_t** out_var, weft_expr_t** out_value,
                                 weft_expr_t** out_body);
  weft_status_t (*expr_if_info)(weft_expr_t* expr, weft_expr_t** out_cond, weft_expr_t** out_then,
                                weft_expr_t** out_else);

  /* -- Modules -- */
  /* A module of the given functions by name (names copied, functions borrowed). */
  weft_status_t (*module_create)(const char* const* names, weft_expr_t* const* functions, size_t count,
                                 weft_module_t** out_module);
  size_t (*module_size)(weft_module_t* module);
  /* Definition i: its name (borrowed) and function (new reference). */
  weft_status_t (*module_entry)(weft_module_t* module, size_t index, const char** out_name,
                                weft_expr_t** out_function);
  /* Runs type inference (new module, types filled); INVALID_ARGUMENT with the
   * error text when the program does not type-check. */
  weft_status_t (*module_infer_type)(weft_module_t* module, weft_module_t** out_module);

  /* -- Registration (only inside init; the registrar must be the one init
   * received). Descriptors are copied during the call. Each name must be
   * declared in the plugin's manifest, under provides.<kind>. On failure the
   * registration's user_data has already been destroyed. -- */
  weft_status_t (*register_op)(weft_registrar_t* registrar, const weft_op_desc_t* desc);
  weft_status_t (*register_model)(weft_registrar_t* registrar, const weft_model_desc_t* desc);
  weft_status_t (*register_initializer)(weft_registrar_t* registrar, const weft_initializer_desc_t* desc);
  weft_status_t (*register_pass)(weft_registrar_t* registrar, const weft_pass_desc_t* desc);
  weft_status_t (*register_target)(weft_registrar_t* registrar, const weft_target_desc_t* desc);
  weft_status_t (*register_frontend)(weft_registrar_t* registrar, const weft_frontend_desc_t* desc);

  /* -- ABI 1.1 -- */
  /* The free variables of `expr` in first-use order (a left-to-right
   * depth-first walk, as Relay's free_vars), as a new Tuple of those Vars;
   * builders use it to make a Function of everything a graph reads. */
  weft_status_t (*expr_free_vars)(weft_expr_t* expr, weft_expr_t** out_tuple);

  /* -- ABI 1.3 -- */
  /* Runs the registered pass `name` (a core pass or a plugin's) on `module`
   * under the host's current PassContext, ungated by its opt level, as a pass
   * plugin's composite pass runs its members (FoldScaleAxis ends with
   * FoldConstant); *out_module is a new reference. NOT_FOUND naming the
   * known passes for an unknown name; the pass's own error otherwise. */
  weft_status_t (*module_run_pass)(weft_module_t* module, const char* name, weft_module_t** out_module);

  /* -- ABI 1.4 -- */
  /* Registers a target (only inside init, as the register_* functions
   * above). The descriptor and its strings and option fields are copied
   * during the call; user_data is the host's from then on. */
  weft_status_t (*register_target_interface)(weft_registrar_t* registrar, const weft_target_interface_t* desc);

  /* -- ABI 1.6: the PassContext a run_in_context pass was given (borrowed; see
   * weft_pass_context_t). INVALID_ARGUMENT for a NULL context. -- */
  /* The opt level a sequence gates passes by (2 unless the caller set it). */
  weft_status_t (*pass_context_opt_level)(const weft_pass_context_t* context, int* out_level);
  /* The names in one of the context's pass lists, as a new WEFT_ATTR_LIST
   * value of strings (empty when none). */
  weft_status_t (*pass_context_passes)(const weft_pass_context_t* context, weft_pass_list_t list,
                                       weft_attr_value_t** out_names);
  /* Whether a sequence under this context runs a pass named `name` of opt
   * level `opt_level`: never when disabled, always when required, else when
   * opt_level <= the context's; a composite pass gates its members by it. */
  weft_status_t (*pass_context_pass_enabled)(const weft_pass_context_t* context, const char* name, int opt_level,
                                             int* out_enabled);
  /* The config value set for `key` ("relay.FuseOps.max_depth"), or its
   * registered default (new reference); NOT_FOUND naming the registered keys
   * for a key nobody registered. */
  weft_status_t (*pass_context_get_config)(const weft_pass_context_t* context, const char* key,
                                           weft_attr_value_t** out_value);
  /* Adds delta to the counter `key` of pass `pass` in the statistics table
   * the caller of the pass reads (`weft opt --stats`). */
  weft_status_t (*pass_context_add_statistic)(const weft_pass_context_t* context, const char* pass,
                                              const char* key, int64_t delta);
  /* module_run_pass under `context` instead of the host's current one: its
   * instruments fire around the pass and its statistics table records. */
  weft_status_t (*module_run_pass_in_context)(weft_module_t* module, const char* name,
                                              const weft_pass_context_t* context, weft_module_t** out_module);

  /* -- ABI 1.9: tensor expressions, for ops' te_compute (docs/te.md). dtypes
   * combine as TVM's: an immediate takes the other operand's dtype, an
   * integer meets a float as that float, a narrow integer a wide one as the
   * wide one; what cannot be reconciled (bool + int32) is INVALID_ARGUMENT
   * naming both. -- */
  void (*te_expr_retain)(weft_te_expr_t* expr);
  void (*te_expr_release)(weft_te_expr_t* expr);
  void (*te_tensor_retain)(weft_te_tensor_t* tensor);
  void (*te_tensor_release)(weft_te_tensor_t* tensor);
  void (*te_axis_retain)(weft_te_axis_t* axis);
  void (*te_axis_release)(weft_te_axis_t* axis);
  void (*te_reducer_retain)(weft_te_reducer_t* reducer);
  void (*te_reducer_release)(weft_te_reducer_t* reducer);
  /* Immediates: `value` wrapped (integers, bool) or rounded (floats) to dtype. */
  weft_status_t (*te_int)(int64_t value, DLDataType dtype, weft_te_expr_t** out_expr);
  weft_status_t (*te_float)(double value, DLDataType dtype, weft_te_expr_t** out_expr);
  /* The dtype's highest (highest != 0) or lowest finite value. */
  weft_status_t (*te_limit)(DLDataType dtype, int highest, weft_te_expr_t** out_expr);
  /* A fresh variable (a reducer's operand); name is copied. */
  weft_status_t (*te_var)(const char* name, DLDataType dtype, weft_te_expr_t** out_expr);
  weft_status_t (*te_binary)(weft_te_binary_op_t op, weft_te_expr_t* a, weft_te_expr_t* b,
                             weft_te_expr_t** out_expr);
  weft_status_t (*te_intrinsic)(weft_te_intrinsic_t op, weft_te_expr_t* const* args, size_t num_args,
                                weft_te_expr_t** out_expr);
  /* cond ? then_value : else_value, evaluating only the operand chosen (so a
   * read in the other may be out of bounds: how padding reads safely). */
  weft_status_t (*te_select)(weft_te_expr_t* cond, weft_te_expr_t* then_value, weft_te_expr_t* else_value,
                             weft_te_expr_t** out_expr);
  weft_status_t (*te_cast)(DLDataType dtype, weft_te_expr_t* value, weft_te_expr_t** out_expr);
  weft_status_t (*te_expr_dtype)(weft_te_expr_t* expr, DLDataType* out_dtype);
  /* An axis over [min, min + extent): data-parallel (an output dimension,
   * min 0) or, with reduce != 0, a reduction axis. name is copied. */
  weft_status_t (*te_axis)(int64_t min, int64_t extent, int reduce, const char* name, weft_te_axis_t** out_axis);
  /* The int32 variable an axis ranges (new reference). */
  weft_status_t (*te_axis_var)(weft_te_axis_t* axis, weft_te_expr_t** out_var);
  /* A tensor's dims (borrowed from it), rank and dtype; any out may be NULL. */
  weft_status_t (*te_tensor_info)(weft_te_tensor_t* tensor, const int64_t** out_shape, size_t* out_ndim,
                                  DLDataType* out_dtype);
  /* tensor[indices]: one integer index per dimension. */
  weft_status_t (*te_tensor_read)(weft_te_tensor_t* tensor, weft_te_expr_t* const* indices, size_t num_indices,
                                  weft_te_expr_t** out_expr);
  /* The compute whose element at (axes' vars) is body i, for i < num_bodies:
   * axes are data-parallel, one per output dimension; bodies are all
   * reductions (outputs of one te_reduce) or none is. Stores num_bodies
   * tensors in out_tensors. name is copied. */
  weft_status_t (*te_compute)(const char* name, weft_te_axis_t* const* axes, size_t num_axes,
                              weft_te_expr_t* const* bodies, size_t num_bodies, weft_te_tensor_t** out_tensors);
  /* A commutative reducer of num_values values: value i combines lhs[i] and
   * rhs[i] (te_var variables of identities[i]'s dtype) into results[i] and
   * starts from identities[i] (TVM's comm_reducer; argmax combines (index,
   * value) pairs). name is copied. */
  weft_status_t (*te_reducer)(const char* name, weft_te_expr_t* const* lhs, weft_te_expr_t* const* rhs,
                              weft_te_expr_t* const* results, weft_te_expr_t* const* identities, size_t num_values,
                              weft_te_reducer_t** out_reducer);
  /* `reducer` folded over the reduction `axes` of `sources` (one per value)
   * where `condition` (bool; NULL: everywhere) holds: stores one expression
   * per value in out_exprs, each a compute's body. */
  weft_status_t (*te_reduce)(weft_te_reducer_t* reducer, weft_te_expr_t* const* sources, size_t num_sources,
                             weft_te_axis_t* const* axes, size_t num_axes, weft_te_expr_t* condition,
                             weft_te_expr_t** out_exprs);
  /* The built-in reduction `kind` of one source (see weft_te_reduce_kind_t). */
  weft_status_t (*te_reduce_builtin)(weft_te_reduce_kind_t kind, weft_te_expr_t* source,
                                     weft_te_axis_t* const* axes, size_t num_axes, weft_te_expr_t* condition,
                                     weft_te_expr_t** out_expr);
  /* x padded by pad_before[d] / pad_after[d] elements on each of its ndim
   * dimensions with pad_value (cast to x's dtype), reading x only inside
   * its bounds (topi's pad). name is copied. */
  weft_status_t (*te_pad)(weft_te_tensor_t* x, const int64_t* pad_before, const int64_t* pad_after, size_t ndim,
                          weft_te_expr_t* pad_value, const char* name, weft_te_tensor_t** out_tensor);

  /* -- ABI 1.10: loop programs, for targets that generate code. -- */
  /* Whether the TE layer describes `call` (borrowed, typed): an op call with
   * a te_compute and static shapes. Stores 0 or 1 in *out_supported. */
  weft_status_t (*te_call_supported)(weft_expr_t* call, int* out_supported);
  /* `primitive` (borrowed; a typed Primitive function whose calls the TE
   * layer describes) lowered under the default schedules for `traits`
   * (NULL: the defaults): *out_program takes a program the caller frees
   * with loop_program_release. UNSUPPORTED names a call without TE. */
  weft_status_t (*loop_program_lower)(weft_expr_t* primitive, const weft_target_traits_t* traits,
                                      const weft_loop_program_t** out_program);
  void (*loop_program_release)(const weft_loop_program_t* program);
} weft_host_api_t;

/* ---- Entry ---------------------------------------------------------------- */

/* What the plugin returns from its entry symbol: the ABI it was built against
 * and its init function. Must stay valid until exit (a static). */
typedef struct weft_plugin_descriptor_t {
  size_t struct_size;
  uint32_t abi_major;
  uint32_t abi_minor;
  /* Registers everything the manifest declares. `host` stays valid until exit;
   * `registrar` only during the call. A non-NULL status fails the plugin's
   * load (nothing it registered is kept) and its message is shown to users. */
  weft_status_t (*init)(const weft_host_api_t* host, weft_registrar_t* registrar);
} weft_plugin_descriptor_t;

#define WEFT_PLUGIN_ENTRY_SYMBOL "weft_plugin_entry"
typedef const weft_plugin_descriptor_t* (*weft_plugin_entry_fn)(uint32_t host_abi_major, uint32_t host_abi_minor);

#if defined(_WIN32)
#define WEFT_PLUGIN_EXPORT __declspec(dllexport)
#else
#define WEFT_PLUGIN_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
#define WEFT_PLUGIN_EXTERN_C extern "C"
#else
#define WEFT_PLUGIN_EXTERN_C
#endif

/* Defines the entry symbol of a plugin whose init function is `init_fn`:
 *   static weft_status_t my_init(const weft_host_api_t* host, weft_registrar_t* r) { ... }
 *   WEFT_PLUGIN_ENTRY(my_init)
 * The host's version is checked by the host; the plugin need not look at it. */
#define WEFT_PLUGIN_ENTRY(init_fn)                                                                   \
  WEFT_PLUGIN_EXTERN_C WEFT_PLUGIN_EXPORT const weft_plugin_descriptor_t* weft_plugin_entry(         \
      uint32_t host_abi_major, uint32_t host_abi_minor) {                                            \
    static const weft_plugin_descriptor_t descriptor = {sizeof(weft_plugin_descriptor_t),            \
                                                        WEFT_PLUGIN_ABI_MAJOR, WEFT_PLUGIN_ABI_MINOR, \
                                                        init_fn};                                    \
    (void)host_abi_major;                                                                            \
    (void)host_abi_minor;                                                                            \
    return &descriptor;                                                                              \
  }

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* WEFT_PLUGIN_H_ */
