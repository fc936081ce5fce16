/* Plugins of every kind built against a frozen plugin.h (tests/plugins/abi),
 * using only what that version had. TAG names the version ("abi10"), KIND
 * selects the plugin built from this file:
 *   KIND_OPS          TAG.twice(x) = 2 x, float32 (a reference kernel)
 *   KIND_MODEL        TAG.net(n) = fn (%data: Tensor[(n), float32]) { TAG.twice(%data) }
 *   KIND_INITIALIZER  TAG.ones: every parameter 1
 *   KIND_PASS         TAG.Double: main's body b becomes TAG.twice(b) */
#include <string.h>
#include <weft/plugin.h>

#define NAME(suffix) TAG "." suffix

static const weft_host_api_t* host;

#if defined(KIND_OPS)
static weft_status_t identity(void* user_data, weft_type_t* const* args, size_t num_args, weft_attrs_t* attrs,
                              weft_type_t** out_type) {
  (void)user_data;
  (void)attrs;
  if (num_args != 1) return host->status_create(WEFT_STATUS_INVALID_ARGUMENT, NAME("twice") " takes one argument");
  host->type_retain(args[0]);
  *out_type = args[0];
  return NULL;
}

static weft_status_t twice(void* user_data, const DLTensor* inputs, size_t num_inputs, DLTensor* outputs,
                           size_t num_outputs, weft_attrs_t* attrs) {
  int64_t n = 1, i;
  int d;
  const float* in = (const float*)((const char*)inputs[0].data + inputs[0].byte_offset);
  float* out = (float*)((char*)outputs[0].data + outputs[0].byte_offset);
  (void)user_data;
  (void)num_inputs;
  (void)num_outputs;
  (void)attrs;
  if (inputs[0].dtype.code != kDLFloat || inputs[0].dtype.bits != 32)
    return host->status_create(WEFT_STATUS_INVALID_ARGUMENT, NAME("twice") " takes float32");
  for (d = 0; d < inputs[0].ndim; ++d) n *= inputs[0].shape[d];
  for (i = 0; i < n; ++i) out[i] = 2.0f * in[i];
  return NULL;
}

static weft_status_t init(const weft_host_api_t* h, weft_registrar_t* registrar) {
  weft_op_input_t input;
  weft_op_desc_t desc;
  host = h;
  memset(&input, 0, sizeof input);
  input.struct_size = sizeof input;
  input.name = "data";
  memset(&desc, 0, sizeof desc);
  desc.struct_size = sizeof desc;
  desc.name = NAME("twice");
  desc.description = "2 x.";
  desc.inputs = &input;
  desc.num_inputs = 1;
  desc.pattern = WEFT_PATTERN_ELEMWISE;
  desc.type_relation = identity;
  desc.kernel = twice;
  return host->register_op(registrar, &desc);
}

#elif defined(KIND_MODEL)
static weft_status_t build(void* user_data, weft_attrs_t* params, weft_expr_t** out_function) {
  weft_attr_value_t* value = NULL;
  weft_type_t* type = NULL;
  weft_expr_t *data = NULL, *body = NULL;
  int64_t n = 0;
  weft_status_t status;
  (void)user_data;
  status = host->attrs_get(params, "n", &value);
  if (status) return status;
  status = host->attr_value_as_int(value, &n);
  host->attr_value_release(value);
  if (!status && n <= 0) status = host->status_create(WEFT_STATUS_INVALID_ARGUMENT, "n must be positive");
  if (!status) status = host->type_tensor(&n, 1, (DLDataType){kDLFloat, 32, 1}, &type);
  if (!status) status = host->expr_var("data", type, &data);
  if (!status) status = host->expr_call_op(NAME("twice"), &data, 1, NULL, &body);
  if (!status) status = host->expr_function(&data, 1, body, NULL, NULL, out_function);
  if (type) host->type_release(type);
  if (data) host->expr_release(data);
  if (body) host->expr_release(body);
  return status;
}

static weft_status_t init(const weft_host_api_t* h, weft_registrar_t* registrar) {
  weft_attr_value_t* three = NULL;
  weft_attr_field_t param;
  weft_model_desc_t desc;
  weft_status_t status;
  host = h;
  status = host->attr_value_int(3, &three);
  if (status) return status;
  memset(&param, 0, sizeof param);
  param.struct_size = sizeof param;
  param.name = "n";
  param.type = WEFT_ATTR_INT;
  param.default_value = three;
  memset(&desc, 0, sizeof desc);
  desc.struct_size = sizeof desc;
  desc.name = NAME("net");
  desc.description = "Twice its input.";
  desc.params = &param;
  desc.num_params = 1;
  desc.build = build;
  status = host->register_model(registrar, &desc);
  host->attr_value_release(three);
  return status;
}

#elif defined(KIND_INITIALIZER)
static int state_token;

static weft_status_t create_state(void* user_data, weft_attrs_t* params, uint64_t seed, void** out_state) {
  (void)user_data;
  (void)params;
  (void)seed;
  *out_state = &state_token;
  return NULL;
}

static weft_status_t fill(void* user_data, void* state, const char* name, DLTensor* tensor) {
  int64_t n = 1, i;
  int d;
  (void)user_data;
  (void)state;
  (void)name;
  if (tensor->dtype.code != kDLFloat || tensor->dtype.bits != 32)
    return host->status_create(WEFT_STATUS_INVALID_ARGUMENT, NAME("ones") " fills float32 only");
  for (d = 0; d < tensor->ndim; ++d) n *= tensor->shape[d];
  for (i = 0; i < n; ++i) ((float*)((char*)tensor->data + tensor->byte_offset))[i] = 1.0f;
  return NULL;
}

static void destroy_state(void* user_data, void* state) {
  (void)user_data;
  (void)state;
}

static weft_status_t init(const weft_host_api_t* h, weft_registrar_t* registrar) {
  weft_initializer_desc_t desc;
  host = h;
  memset(&desc, 0, sizeof desc);
  desc.struct_size = sizeof desc;
  desc.name = NAME("ones");
  desc.description = "Every parameter 1.";
  desc.create_state = create_state;
  desc.fill = fill;
  desc.destroy_state = destroy_state;
  return host->register_initializer(registrar, &desc);
}

#elif defined(KIND_PASS)
static weft_status_t double_main(void* user_data, weft_module_t* module, weft_module_t** out_module) {
  const char* name = NULL;
  weft_expr_t *fn = NULL, *body = NULL, *doubled = NULL, *rebuilt = NULL;
  weft_expr_t* params[8] = {0};
  size_t num_params = 0, fetched = 0, i;
  weft_status_t status;
  (void)user_data;
  if (host->module_size(module) != 1) return host->status_create(WEFT_STATUS_INVALID_ARGUMENT, "one function expected");
  status = host->module_entry(module, 0, &name, &fn);
  if (!status) status = host->expr_function_num_params(fn, &num_params);
  if (!status && num_params > 8) status = host->status_create(WEFT_STATUS_INVALID_ARGUMENT, "at most 8 params");
  for (; !status && fetched < num_params; ++fetched) status = host->expr_function_param(fn, fetched, &params[fetched]);
  if (!status) status = host->expr_function_body(fn, &body);
  if (!status) status = host->expr_call_op(NAME("twice"), &body, 1, NULL, &doubled);
  if (!status) status = host->expr_function(params, num_params, doubled, NULL, NULL, &rebuilt);
  if (!status) status = host->module_create(&name, &rebuilt, 1, out_module);
  for (i = 0; i < fetched; ++i) host->expr_release(params[i]);
  if (rebuilt) host->expr_release(rebuilt);
  if (doubled) host->expr_release(doubled);
  if (body) host->expr_release(body);
  if (fn) host->expr_release(fn);
  return status;
}

static weft_status_t init(const weft_host_api_t* h, weft_registrar_t* registrar) {
  weft_pass_desc_t desc;
  host = h;
  memset(&desc, 0, sizeof desc);
  desc.struct_size = sizeof desc;
  desc.name = NAME("Double");
  desc.opt_level = 1;
  desc.run = double_main;
  return host->register_pass(registrar, &desc);
}
#endif

WEFT_PLUGIN_ENTRY(init)
