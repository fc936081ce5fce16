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
#define WEFT_PLUGIN_ABI_MINOR 1 /* 1.1: model variants, expr_free_vars, ops' infer_inputs */

/* ---- Status -------------------------------------------------------------- */

typedef enum weft_status_code_e {
  WEFT_STATUS_OK = 0,
  WEFT_STATUS_INVALID_ARGUMENT = 1, /* bad input: shapes, attrs, dtypes */
  WEFT_STATUS_NOT_FOUND = 2,        /* an unknown op, attr, or name */
  WEFT_STATUS_TYPE_MISMATCH = 3,    /* a handle or value of the wrong kind */
  WEFT_STATUS_UNSUPPORTED = 4,      /* valid input this implementation does not handle */
  WEFT_STATUS_INTERNAL = 5,         /* a bug */
} weft_status_code_t;

/* NULL means success. */
typedef struct weft_status_s* weft_status_t;

/* ---- Opaque handles ------------------------------------------------------ */

typedef struct weft_type_s weft_type_t;             /* a Relay type */
typedef struct weft_expr_s weft_expr_t;             /* a Relay expression */
typedef struct weft_attr_value_s weft_attr_value_t; /* one attribute value */
typedef struct weft_attrs_s weft_attrs_t;           /* an attribute dictionary */
typedef struct weft_module_s weft_module_t;         /* an IRModule */
/* A tensor-expression node; the TE layer defines how to build one. */
typedef struct weft_te_tensor_s weft_te_tensor_t;
/* Passed to init; identifies the plugin being loaded. Valid only during init. */
typedef struct weft_registrar_s weft_registrar_t;

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

/* Tensor-expression compute: the op's output(s) as TE over its input
 * placeholders. The host hands it to the TE layer, which defines the handles. */
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
} weft_attr_field_t;

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
  /* *out_module is a new reference. Required. */
  weft_status_t (*run)(void* user_data, weft_module_t* module, weft_module_t** out_module);
} weft_pass_desc_t;

/* A hardware target: capability query, compiler for fused primitive
 * functions, and a device API. */
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
