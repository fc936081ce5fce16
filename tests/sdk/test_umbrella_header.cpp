// <weft/plugin.hpp> alone reaches every SDK header: a plugin author includes
// one header and finds gradients, TE, layouts, schemas and the rest. Each
// check names a declaration of one header; this file fails to compile if the
// umbrella header stops including it.
#include <weft/plugin.hpp>

#include <gtest/gtest.h>

#include <type_traits>

namespace sdk = weft::sdk;

TEST(UmbrellaHeader, ReachesEverySdkHeader) {
  static_assert(std::is_class_v<sdk::detail::Schema>);                 // attr_schema.hpp
  static_assert(std::is_class_v<sdk::DiskCache>);                       // disk_cache.hpp
  static_assert(std::is_class_v<sdk::ExceptionStatus>);                 // exception_status.hpp
  static_assert(std::is_function_v<decltype(sdk::is_storable_float)>);  // float_convert.hpp
  static_assert(std::is_function_v<decltype(sdk::grad::add)>);          // gradient.hpp
  static_assert(std::is_class_v<sdk::GroupSteps>);                      // group_steps.hpp
  static_assert(std::is_class_v<sdk::Layout>);                          // layout.hpp
  static_assert(std::is_class_v<sdk::InferredLayouts>);                 // layout_inference.hpp
  static_assert(std::is_class_v<sdk::LoopProgram>);                     // loops.hpp
  static_assert(std::is_class_v<sdk::NumpyRandomState>);                // numpy_random.hpp
  static_assert(std::is_class_v<sdk::PassContext>);                     // pass_context.hpp
  static_assert(std::is_class_v<sdk::TargetBuilder>);                   // target.hpp
  static_assert(std::is_class_v<sdk::te::Tensor>);                      // te.hpp
  sdk::NumpyRandomState state(0);
  EXPECT_EQ(state.next_uint32(), 2357136044u);  // MT19937's first output for seed 0, as NumPy's
}
