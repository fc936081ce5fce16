/* A plugin that claims to be built against a newer ABI than the host's, by
 * MAJOR_DELTA and MINOR_DELTA (compile definitions): the host must refuse it,
 * naming both versions, without calling init. */
#include <weft/plugin.h>

static weft_status_t init(const weft_host_api_t* host, weft_registrar_t* registrar) {
  (void)registrar;
  return host->status_create(WEFT_STATUS_INTERNAL, "init must not run for a plugin newer than the host");
}

WEFT_PLUGIN_EXPORT const weft_plugin_descriptor_t* weft_plugin_entry(uint32_t host_major, uint32_t host_minor) {
  static const weft_plugin_descriptor_t descriptor = {sizeof(weft_plugin_descriptor_t), WEFT_PLUGIN_ABI_MAJOR + MAJOR_DELTA,
                                                      WEFT_PLUGIN_ABI_MINOR + MINOR_DELTA, init};
  (void)host_major;
  (void)host_minor;
  return &descriptor;
}
