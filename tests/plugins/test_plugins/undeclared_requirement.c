/* req.negate: an op whose gradient builds a call of ctest.scale, an op of the
 * `scale` test plugin: allowed only when the manifest requires `scale`. */
#include <string.h>
#include <weft/plugin.h>

static const weft_host_api_t* host;

static weft_status_t identity(void* user_data, weft_type_t* const* args, size_t num_args, weft_attrs_t* attrs,
                              weft_type_t** out_type) {
  (void)user_data;
  (void)num_args;
  (void)attrs;
  host->type_retain(args[0]);
  *out_type = args[0];
  return NULL;
}

static weft_status_t gradient(void* user_data, weft_expr_t* call, weft_expr_t* output_grad, weft_expr_t** out_grads,
                              size_t num_args) {
  (void)user_data;
  (void)call;
  (void)num_args;
  return host->expr_call_op("ctest.scale", &output_grad, 1, NULL, &out_grads[0]);
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
  desc.name = "req.negate";
  desc.inputs = &input;
  desc.num_inputs = 1;
  desc.type_relation = identity;
  desc.gradient = gradient;
  return host->register_op(registrar, &desc);
}

WEFT_PLUGIN_ENTRY(init)
