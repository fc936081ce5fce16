// The host function table handed to every plugin's init.
#include "host_tables.h"

namespace weft::plugin_host {

const weft_host_api_t* host_api() {
  static const weft_host_api_t api = [] {
    weft_host_api_t a{};
    a.struct_size = sizeof(weft_host_api_t);
    a.abi_major = WEFT_PLUGIN_ABI_MAJOR;
    a.abi_minor = WEFT_PLUGIN_ABI_MINOR;
    fill_value_api(a);
    fill_expr_api(a);
    fill_registration_api(a);
    fill_pass_context_api(a);
    fill_te_api(a);
    fill_loops_api(a);
    return a;
  }();
  return &api;
}

}  // namespace weft::plugin_host
