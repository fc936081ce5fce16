/* A plugin whose init reports an error (e.g. a device it needs is absent). */
#include <weft/plugin.h>

static weft_status_t init(const weft_host_api_t* host, weft_registrar_t* registrar) {
  (void)registrar;
  return host->status_create(WEFT_STATUS_UNSUPPORTED, "no device found at /dev/fake0");
}

WEFT_PLUGIN_ENTRY(init)
