/* A target plugin of ABI 1.0-1.3: it registers the flat weft_target_desc_t,
 * which hosts of ABI 1.4 refuse, and returns the refusal from its init. */
#include <string.h>
#include <weft/plugin.h>

static weft_status_t init(const weft_host_api_t* host, weft_registrar_t* registrar) {
  weft_target_desc_t desc;
  memset(&desc, 0, sizeof desc);
  desc.struct_size = sizeof desc;
  desc.name = "oldtarget";
  desc.description = "A flat target descriptor of ABI 1.3.";
  desc.device_type = kDLCPU;
  return host->register_target(registrar, &desc);
}

WEFT_PLUGIN_ENTRY(init)
