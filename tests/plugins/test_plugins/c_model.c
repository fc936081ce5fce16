/* A model plugin in plain C: cmodel.identity(n) = fn (%data: Tensor[(n), float32]) { %data }. */
#include <string.h>
#include <weft/plugin.h>

static const weft_host_api_t* host;

static weft_status_t build(void* user_data, weft_attrs_t* params, weft_expr_t** out_function) {
  weft_attr_value_t* value = NULL;
  weft_type_t* type = NULL;
  weft_expr_t* data = NULL;
  int64_t n = 0;
  weft_status_t status;
  (void)user_data;
  status = host->attrs_get(params, "n", &value);
  if (status) return status;
  status = host->attr_value_as_int(value, &n);
  host->attr_value_release(value);
  if (status) return status;
  if (n <= 0) return host->status_create(WEFT_STATUS_INVALID_ARGUMENT, "n must be positive");
  status = host->type_tensor(&n, 1, (DLDataType){kDLFloat, 32, 1}, &type);
  if (status) return status;
  status = host->expr_var("data", type, &data);
  host->type_release(type);
  if (status) return status;
  status = host->expr_function(&data, 1, data, NULL, NULL, out_function);
  host->expr_release(data);
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
  param.doc = "Vector length.";
  memset(&desc, 0, sizeof desc);
  desc.struct_size = sizeof desc;
  desc.name = "cmodel.identity";
  desc.description = "The identity on a vector.";
  desc.params = &param;
  desc.num_params = 1;
  desc.build = build;
  status = host->register_model(registrar, &desc);
  host->attr_value_release(three);
  return status;
}

WEFT_PLUGIN_ENTRY(init)
