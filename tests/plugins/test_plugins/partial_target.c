/* A C target that leaves out required slots of the target interface: its
 * registration fails naming the first one missing, and its init returns that. */
#include <string.h>
#include <weft/plugin.h>

static weft_status_t create(void* user_data, weft_attrs_t* options, void** out_instance) {
  (void)user_data;
  (void)options;
  *out_instance = NULL;
  return NULL;
}

static void destroy(void* instance) { (void)instance; }

static weft_status_t init(const weft_host_api_t* host, weft_registrar_t* registrar) {
  weft_target_interface_t desc;
  memset(&desc, 0, sizeof desc);
  desc.struct_size = sizeof desc;
  desc.name = "partial";
  desc.description = "Creates instances and nothing else.";
  desc.device_type = kDLCPU;
  desc.create = create;
  desc.destroy = destroy;
  return host->register_target_interface(registrar, &desc);
}

WEFT_PLUGIN_ENTRY(init)
