/* A pass plugin built against ABI 1.5: its descriptor says 1.5 and its
 * weft_pass_desc_t ends before run_in_context (the bytes there are
 * deliberately garbage), so the host must call `run` and read nothing past
 * struct_size. old.TagMain wraps main's body in a one-field tuple. */
#include <stddef.h>
#include <string.h>
#include <weft/plugin.h>

static const weft_host_api_t* host;

static weft_status_t tag_main(void* user_data, weft_module_t* module, weft_module_t** out_module) {
  const char* name = NULL;
  weft_expr_t* fn = NULL;
  weft_expr_t* body = NULL;
  weft_expr_t* tuple = NULL;
  weft_expr_t* tagged = NULL;
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
  if (!status) status = host->expr_tuple(&body, 1, &tuple);
  if (!status) status = host->expr_function(params, num_params, tuple, NULL, NULL, &tagged);
  if (!status) status = host->module_create(&name, &tagged, 1, out_module);
  for (i = 0; i < fetched; ++i) host->expr_release(params[i]);
  host->expr_release(tagged);
  host->expr_release(tuple);
  host->expr_release(body);
  host->expr_release(fn);
  return status;
}

static weft_status_t init(const weft_host_api_t* h, weft_registrar_t* registrar) {
  weft_pass_desc_t desc;
  host = h;
  memset(&desc, 0xAB, sizeof desc); /* garbage where the 1.5 layout does not reach */
  memset(&desc, 0, offsetof(weft_pass_desc_t, run_in_context));
  desc.struct_size = offsetof(weft_pass_desc_t, run_in_context);
  desc.name = "old.TagMain";
  desc.opt_level = 1;
  desc.run = tag_main;
  return host->register_pass(registrar, &desc);
}

WEFT_PLUGIN_EXPORT const weft_plugin_descriptor_t* weft_plugin_entry(uint32_t host_major, uint32_t host_minor) {
  static const weft_plugin_descriptor_t descriptor = {sizeof(weft_plugin_descriptor_t), 1, 5, init};
  (void)host_major;
  (void)host_minor;
  return &descriptor;
}
