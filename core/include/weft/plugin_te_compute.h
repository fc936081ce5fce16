// What OpDef::te_compute holds for an op registered through plugin.h: the
// plugin's TE compute callback and its user data. The TE layer any_casts to
// this and calls it with TE handles it defines.
#pragma once

#include <weft/plugin.h>

#include <memory>

namespace weft {

struct PluginTeCompute {
  weft_te_compute_fn fn = nullptr;
  std::shared_ptr<void> user_data;  // frees the plugin's user_data with the op
};

}  // namespace weft
