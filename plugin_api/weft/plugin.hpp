// weft plugin SDK: a header-only C++ layer over plugin.h, compiled into each
// plugin (C++20 or later). It adds RAII handles, builders that read like the
// graph they build, and fluent registration in the style of TVM's
// RELAY_REGISTER_OP; exceptions thrown by plugin code become statuses at the
// boundary. Nothing C++ crosses into the host.
//
//   #include <weft/plugin.hpp>
//   namespace sdk = weft::sdk;
//
//   WEFT_PLUGIN(reg) {
//     reg.op("negative")
//         .describe("Elementwise -x.")
//         .input("data", "Tensor", "The input tensor.")
//         .support_level(3)
//         .pattern(WEFT_PATTERN_ELEMWISE)
//         .type_relation(sdk::identity_relation)
//         .kernel([](const sdk::KernelArgs& k) { ... })
//         .gradient([](const sdk::Expr& call, const sdk::Expr& grad) {
//           return std::vector<sdk::Expr>{sdk::call("negative", {grad})};
//         });
//   }
//
// The host table is set when the plugin's init runs; handles and builders may
// be used from then on, in init and in every callback.
//
// The SDK's parts: sdk/host.hpp (host table, errors, dtypes), sdk/ir.hpp
// (handles, builders, tensor views), sdk/walk.hpp (visiting every node of a
// graph), sdk/layers.hpp (layer helpers for model builders),
// sdk/registration.hpp (builders for each registration kind; targets' in
// sdk/target.hpp), sdk/pass_context.hpp (the PassContext a pass runs
// under), sdk/relations.hpp (shared type relations), sdk/te.hpp (tensor
// expressions for ops' te_compute), sdk/loops.hpp (loop programs, for
// targets that generate code), sdk/gradient.hpp (building gradients),
// sdk/layout.hpp and sdk/layout_inference.hpp (layouts and ops' layout
// hooks), sdk/attr_schema.hpp (option and attribute schemas),
// sdk/numpy_random.hpp (NumPy's random streams, for initializers),
// sdk/float_convert.hpp (16-bit floats), sdk/disk_cache.hpp (a target's
// work kept between builds), sdk/group_steps.hpp (a fused group as calls in
// order, for targets that run op by op). This header includes every one of them.
#pragma once

#include <weft/plugin.h>
#include <weft/sdk/attr_schema.hpp>
#include <weft/sdk/disk_cache.hpp>
#include <weft/sdk/exception_status.hpp>
#include <weft/sdk/float_convert.hpp>
#include <weft/sdk/gradient.hpp>
#include <weft/sdk/group_steps.hpp>
#include <weft/sdk/host.hpp>
#include <weft/sdk/integer_math.hpp>
#include <weft/sdk/ir.hpp>
#include <weft/sdk/layers.hpp>
#include <weft/sdk/layout.hpp>
#include <weft/sdk/layout_inference.hpp>
#include <weft/sdk/loops.hpp>
#include <weft/sdk/numpy_random.hpp>
#include <weft/sdk/pass_context.hpp>
#include <weft/sdk/registration.hpp>
#include <weft/sdk/relations.hpp>
#include <weft/sdk/target.hpp>
#include <weft/sdk/te.hpp>
#include <weft/sdk/tensor_rank.hpp>
#include <weft/sdk/walk.hpp>

namespace weft::sdk {

namespace detail {
inline weft_status_t run_init(const weft_host_api_t* host_api, weft_registrar_t* r, void (*body)(Registrar&)) {
  host_slot() = host_api;  // the host always passes its table
  if (host_api->struct_size < sizeof(weft_host_api_t)) {
    return host_api->status_create(WEFT_STATUS_UNSUPPORTED,
                                   "the host's function table is older than the plugin SDK this plugin was built with");
  }
  return guarded([&] {
    Registrar registrar(r);
    body(registrar);
    registrar.commit();
  });
}
}  // namespace detail

}  // namespace weft::sdk

/// Defines a plugin's entry symbol and the function that registers its
/// contents:  WEFT_PLUGIN(reg) { reg.op("add")....; }
#define WEFT_PLUGIN(registrar)                                                                      \
  static void weft_plugin_register_(::weft::sdk::Registrar& registrar);                            \
  static weft_status_t weft_plugin_init_(const weft_host_api_t* host, weft_registrar_t* r) {       \
    return ::weft::sdk::detail::run_init(host, r, &weft_plugin_register_);                          \
  }                                                                                                 \
  WEFT_PLUGIN_ENTRY(weft_plugin_init_)                                                              \
  static void weft_plugin_register_(::weft::sdk::Registrar& registrar)
