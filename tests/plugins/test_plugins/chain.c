/* One op, CHAIN_OP (a compile definition), with an identity relation: built
 * three times as chain_a/b/c for the lazy-loading tests. With GRADIENT_OP
 * defined, its gradient is a call of that op on the output's gradient (the
 * requires: tests). */
#include <string.h>
#include <weft/plugin.h>

static const weft_host_api_t* host;

static weft_status_t identity(void* user_data, weft_type_t* const* args, size_t num_args, weft_attrs_t* attrs,
                              weft_type_t** out_type) {
  (void)user_data;
  (void)attrs;
  if (num_args != 1) return host->status_create(WEFT_STATUS_INVALID_ARGUMENT, CHAIN_OP " takes one argument");
  host->type_retain(args[0]);
  *out_type = args[0];
  return NULL;
}

#ifdef GRADIENT_OP
static weft_status_t gradient(void* user_data, weft_expr_t* call, weft_expr_t* output_grad, weft_expr_t** out_grads,
                              size_t num_args) {
  (void)user_data;
  (void)call;
  (void)num_args;
  return host->expr_call_op(GRADIENT_OP, &output_grad, 1, NULL, &out_grads[0]);
}
#endif

static weft_status_t init(const weft_host_api_t* h, weft_registrar_t* registrar) {
  weft_op_desc_t desc;
  weft_op_input_t input;
  host = h;
  memset(&input, 0, sizeof input);
  input.struct_size = sizeof input;
  input.name = "data";
  memset(&desc, 0, sizeof desc);
  desc.struct_size = sizeof desc;
  desc.name = CHAIN_OP;
  desc.inputs = &input;
  desc.num_inputs = 1;
  desc.type_relation = identity;
#ifdef GRADIENT_OP
  desc.gradient = gradient;
#endif
  return host->register_op(registrar, &desc);
}

WEFT_PLUGIN_ENTRY(init)
