/* A plugin built against an "older" plugin.h whose weft_op_desc_t ended before
 * `gradient` and whose weft_attr_field_t ended before `text_default` (ABI
 * 1.1): struct_size says so, and the host must not read past it (the bytes
 * there are deliberately garbage). */
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
  weft_attr_field_t field;
  weft_attr_value_t* scale_default = NULL;
  weft_status_t status;
  host = h;
  memset(&field, 0xAB, sizeof field);
  memset(&field, 0, offsetof(weft_attr_field_t, text_default));
  field.struct_size = offsetof(weft_attr_field_t, text_default);
  field.name = "scale";
  field.type = WEFT_ATTR_INT;
  status = host->attr_value_int(3, &scale_default);
  if (status) return status;
  field.default_value = scale_default;
  memset(&input, 0, sizeof input);
  input.struct_size = sizeof input;
  input.name = "data";
  memset(&desc, 0xAB, sizeof desc); /* garbage everywhere the old layout does not reach */
  memset(&desc, 0, offsetof(weft_op_desc_t, gradient));
  desc.struct_size = offsetof(weft_op_desc_t, gradient);
  desc.name = "old.op";
  desc.inputs = &input;
  desc.num_inputs = 1;
  desc.attrs = &field;
  desc.num_attrs = 1;
  desc.type_relation = identity;
  desc.kernel = NULL;
  status = host->register_op(registrar, &desc);
  host->attr_value_release(scale_default);
  return status;
}

WEFT_PLUGIN_ENTRY(init)
