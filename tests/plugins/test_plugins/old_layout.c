/* A plugin built against an "older" plugin.h whose weft_op_desc_t ended before
 * `gradient`: struct_size says so, and the host must not read past it (the
 * bytes there are deliberately garbage). */
#include <stddef.h>
#include <string.h>
#include <weft/plugin.h>

static const weft_host_api_t* host;

static weft_status_t identity(void* user_data, weft_type_t* const* args, size_t num_args, weft_attrs_t* attrs,
                              weft_type_t** out_type) {
  (void)user_data;
  (void)attrs;
  if (num_args != 1) return host->status_create(WEFT_STATUS_INVALID_ARGUMENT, "old.op takes one argument");
  host->type_retain(args[0]);
  *out_type = args[0];
  return NULL;
}

static weft_status_t init(const weft_host_api_t* h, weft_registrar_t* registrar) {
  weft_op_desc_t desc;
  weft_op_input_t input;
  host = h;
  memset(&input, 0, sizeof input);
  input.struct_size = sizeof input;
  input.name = "data";
  memset(&desc, 0xAB, sizeof desc); /* garbage everywhere the old layout does not reach */
  memset(&desc, 0, offsetof(weft_op_desc_t, gradient));
  desc.struct_size = offsetof(weft_op_desc_t, gradient);
  desc.name = "old.op";
  desc.inputs = &input;
  desc.num_inputs = 1;
  desc.type_relation = identity;
  desc.kernel = NULL;
  return host->register_op(registrar, &desc);
}

WEFT_PLUGIN_ENTRY(init)
