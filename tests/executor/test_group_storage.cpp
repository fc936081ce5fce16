// Which fused groups the memory plan may run in place over an input, or as a
// view of one: group_storage.h's rules on typed Primitive functions.
#include <gtest/gtest.h>

#include <string>

#include "weft/group_storage.h"
#include "weft/passes.h"
#include "weft/text.h"

namespace weft::testing {
namespace {

// The Primitive function `fn_text`, typed, as main calls it on fresh inputs.
Function primitive(const std::string& params, const std::string& body) {
  std::string text = "#[version = \"0.0.5\"]\ndef @main(" + params + ") {\n  %0 = fn (" + params +
                     ", Primitive=1) {\n    " + body + "\n  };\n  %0(";
  // Call it on main's own parameters, named as the function's.
  std::string args;
  for (size_t at = params.find('%'); at != std::string::npos; at = params.find('%', at + 1))
    args += (args.empty() ? "" : ", ") + params.substr(at, params.find(':', at) - at);
  IRModule mod = infer_type(parse_module(text + args + ")\n}\n"));
  auto* call = mod.main()->body.as<CallNode>();
  if (!call) throw std::runtime_error("main does not end in a call: " + text);
  return downcast<FunctionNode>(call->op);
}

TEST(GroupStorage, AnElementwiseGroupMayOverwriteTheInputOfItsResultsType) {
  // Bias add and relu: p0 has the result's type, p1 broadcasts.
  EXPECT_EQ(inplace_parameter(primitive("%p0: Tensor[(1, 8, 4, 4), float32], %p1: Tensor[(8, 1, 1), float32]",
                                        "nn.relu(add(%p0, %p1))")),
            0u);
  // The first input that fits when the broadcast one comes first.
  EXPECT_EQ(inplace_parameter(primitive("%p0: Tensor[(4), float32], %p1: Tensor[(2, 4), float32]",
                                        "multiply(%p0, %p1)")),
            1u);
}

TEST(GroupStorage, NoOtherGroupRunsInPlace) {
  // An injective op reads elements at other places.
  EXPECT_EQ(inplace_parameter(primitive("%p0: Tensor[(4, 4), float32]", "transpose(nn.relu(%p0))")), std::nullopt);
  // No input of the result's shape (both broadcast), or of its dtype.
  EXPECT_EQ(inplace_parameter(primitive("%p0: Tensor[(4, 1), float32], %p1: Tensor[(1, 4), float32]", "add(%p0, %p1)")),
            std::nullopt);
  EXPECT_EQ(inplace_parameter(primitive("%p0: Tensor[(4), float32]", "cast(%p0, dtype=\"int32\")")), std::nullopt);
  // A convolution with its relu.
  EXPECT_EQ(inplace_parameter(primitive("%p0: Tensor[(1, 4, 4, 4), float32], %p1: Tensor[(4, 4, 1, 1), float32]",
                                        "nn.relu(nn.conv2d(%p0, %p1, channels=4, kernel_size=[1, 1]))")),
            std::nullopt);
}

TEST(GroupStorage, AGroupOfReshapesIsAViewOfItsInput) {
  EXPECT_EQ(reshaped_parameter(primitive("%p0: Tensor[(1, 8, 1, 1), float32]", "nn.batch_flatten(%p0)")), 0u);
  EXPECT_EQ(reshaped_parameter(primitive("%p0: Tensor[(2, 3), float32]",
                                         "expand_dims(squeeze(reshape(%p0, newshape=[3, 1, 2])), axis=0)")),
            0u);
}

TEST(GroupStorage, AGroupThatMovesOrComputesIsNoView) {
  EXPECT_EQ(reshaped_parameter(primitive("%p0: Tensor[(2, 3), float32]", "transpose(%p0)")), std::nullopt);
  EXPECT_EQ(reshaped_parameter(primitive("%p0: Tensor[(2, 3), float32]", "reshape(nn.relu(%p0), newshape=[6])")),
            std::nullopt);
  // reshape_like is no TReshapeOp in the reference.
  EXPECT_EQ(reshaped_parameter(primitive("%p0: Tensor[(2, 3), float32], %p1: Tensor[(6), float32]",
                                         "reshape_like(%p0, %p1)")),
            std::nullopt);
}

TEST(GroupStorage, AConcatenationWithOnlyUnitAxesBeforeItsAxisIsItsInputsBytesBackToBack) {
  using Params = std::optional<std::vector<size_t>>;
  EXPECT_EQ(concatenated_parameters(primitive("%p0: Tensor[(1, 2, 3, 3, 16), float32], %p1: Tensor[(1, 4, 3, 3, 16), float32]",
                                              "concatenate((%p1, %p0), axis=1)")),
            Params({1, 0}));
  EXPECT_EQ(concatenated_parameters(primitive("%p0: Tensor[(4, 2), float32], %p1: Tensor[(4, 2), float32]",
                                              "concatenate((%p0, %p1), axis=0)")),
            Params({0, 1}));
  EXPECT_EQ(concatenated_parameters(primitive("%p0: Tensor[(1, 1, 2), float32], %p1: Tensor[(1, 1, 3), float32]",
                                              "concatenate((%p0, %p1), axis=-1)")),
            Params({0, 1}));
  // One tuple parameter after a tensor: its fields are the launch's arguments 1 and 2.
  EXPECT_EQ(concatenated_parameters(primitive("%p0: Tensor[(1, 2), float32], %p1: (Tensor[(1, 2), float32], Tensor[(1, "
                                              "3), float32])",
                                              "concatenate(%p1, axis=1)")),
            Params({1, 2}));
}

TEST(GroupStorage, OtherConcatenationsAreNotTheirInputsBytes) {
  // Batch 2 along channels: each input is two runs in the result.
  EXPECT_EQ(concatenated_parameters(primitive("%p0: Tensor[(2, 3), float32], %p1: Tensor[(2, 3), float32]",
                                              "concatenate((%p0, %p1), axis=1)")),
            std::nullopt);
  // A parameter twice, an op after it, an op inside it.
  EXPECT_EQ(concatenated_parameters(primitive("%p0: Tensor[(1, 3), float32]", "concatenate((%p0, %p0), axis=1)")),
            std::nullopt);
  EXPECT_EQ(concatenated_parameters(primitive("%p0: Tensor[(1, 3), float32], %p1: Tensor[(1, 3), float32]",
                                              "nn.relu(concatenate((%p0, %p1), axis=1))")),
            std::nullopt);
  EXPECT_EQ(concatenated_parameters(primitive("%p0: Tensor[(1, 3), float32], %p1: Tensor[(1, 3), float32]",
                                              "concatenate((nn.relu(%p0), %p1), axis=1)")),
            std::nullopt);
}

}  // namespace
}  // namespace weft::testing
