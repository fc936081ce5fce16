// Internal: the parts of the host function table, each filled by the file
// that implements it (host_values.cpp, host_exprs.cpp, registrar.cpp,
// host_pass_context.cpp, host_te.cpp, host_loops.cpp).
#pragma once

#include "handles.h"

namespace weft::plugin_host {

void fill_value_api(weft_host_api_t& api);
void fill_expr_api(weft_host_api_t& api);
void fill_registration_api(weft_host_api_t& api);
void fill_pass_context_api(weft_host_api_t& api);
void fill_te_api(weft_host_api_t& api);
void fill_loops_api(weft_host_api_t& api);

}  // namespace weft::plugin_host
