// AlterOpLayout to NCHW16c, as a target preferring 16-channel blocks asks for
// it (the conv2d's data in NCHW16c, its weight in OIHW16i16o): a resnet-like
// block as relay.build's AlterOpLayout sees it (conv, the batch norm as
// SimplifyInference leaves it: a per-channel scale and shift, relu, conv, a
// per-channel bias, the 1x1 shortcut, the residual add, max pool, global
// pool, flatten, dense) runs blocked between the first conv and the flatten,
// and computes on the interpreter what the NCHW program does. Small shapes,
// so it runs in milliseconds.
#include <gtest/gtest.h>

#include <string>

#include "support/pass_test.h"

namespace weft {
namespace {

Expr nchw16c_conv(const Call& c) {
  std::vector<std::pair<std::string, AttrValue>> attrs = c->attrs->entries;
  for (auto& [key, value] : attrs) {
    if (key == "data_layout") value = AttrValue("NCHW16c");
    if (key == "kernel_layout") value = AttrValue("OIHW16i16o");
  }
  return call(downcast<OpNode>(c->op), c->args, make_attrs(attrs));
}

const char* kBlock = R"(def @main(%x: Tensor[(1, 16, 6, 6), float32], %w1: Tensor[(32, 16, 3, 3), float32],
          %s: Tensor[(32, 1, 1), float32], %t: Tensor[(32, 1, 1), float32],
          %w2: Tensor[(32, 32, 3, 3), float32], %b2: Tensor[(32, 1, 1), float32], %w3: Tensor[(32, 16, 1, 1), float32],
          %wd: Tensor[(10, 32), float32]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1], channels=32, kernel_size=[3, 3]);
  %1 = nn.relu(add(multiply(%0, %s), %t));
  %2 = add(nn.conv2d(%1, %w2, padding=[1, 1], channels=32, kernel_size=[3, 3]), %b2);
  %3 = nn.conv2d(%x, %w3, channels=32, kernel_size=[1, 1]);
  %4 = nn.max_pool2d(nn.relu(add(%2, %3)), pool_size=[2, 2], strides=[2, 2]);
  nn.dense(nn.batch_flatten(nn.global_avg_pool2d(%4)), %wd)
}
)";

using testing::calls_of;

TEST(AlterOpLayoutBlocked, AResnetBlockInNchw16cGivesTheNchwOutputs) {
  IRModule in = testing::typed_program(kBlock);
  IRModule out = testing::run_checked(AlterOpLayout({{"nn.conv2d", nchw16c_conv}}), in);
  out = infer_type(out);
  const Expr& body = out.main()->body;
  for (const CallNode* c : calls_of(body, "nn.conv2d")) {
    EXPECT_EQ(c->attrs->at("data_layout").as_string(), "NCHW16c") << to_text(out);
  }
  // The ops between the convs and the flatten follow the blocks: 5-d operands.
  for (const std::string op : {"nn.relu", "multiply", "add", "nn.max_pool2d", "nn.global_avg_pool2d"}) {
    std::vector<const CallNode*> calls = calls_of(body, op);
    EXPECT_FALSE(calls.empty()) << op;
    for (const CallNode* c : calls) {
      const auto* t = c->args[0]->checked_type().as<TensorTypeNode>();
      ASSERT_NE(t, nullptr) << op;
      EXPECT_EQ(t->ndim(), 5u) << op << " runs unblocked:\n" << to_text(out);
    }
  }
  // The data goes in once and the pooled features come out once; each conv
  // weight, the scale, the shift and the bias are moved, and nothing else.
  EXPECT_EQ(calls_of(body, "layout_transform").size(), 8u) << to_text(out);
  testing::expect_same_outputs(in, out);
}

TEST(AlterOpLayoutBlocked, UpsamplingAndAPoolFollowTheBlockedConv) {
  // test_alter_layout_nchw_upsamping_op: the conv's data alone moves to
  // NCHW16c; upsampling keeps H and W in place, so it follows, as the pool does.
  auto nchw16c_data = [](const Call& c) -> Expr {
    std::vector<std::pair<std::string, AttrValue>> attrs = c->attrs->entries;
    for (auto& [key, value] : attrs)
      if (key == "data_layout") value = AttrValue("NCHW16c");
    return call(downcast<OpNode>(c->op), c->args, make_attrs(attrs));
  };
  const std::string params = "%x: Tensor[(1, 32, 4, 4), float32], %weight: Tensor[(32, 32, 3, 3), float32]";
  IRModule in = testing::typed_program("def @main(" + params + R"() {
  %0 = nn.conv2d(%x, %weight, padding=[1, 1], channels=32, kernel_size=[3, 3]);
  %1 = nn.upsampling(%0, scale_h=2f, scale_w=2f);
  nn.avg_pool2d(%1, pool_size=[2, 2], strides=[2, 2])
}
)");
  IRModule out = testing::run_checked(AlterOpLayout({{"nn.conv2d", nchw16c_data}}), in);
  testing::expect_program(out, "def @main(" + params + R"() {
  %0 = layout_transform(%x, src_layout="NCHW", dst_layout="NCHW16c");
  %1 = nn.conv2d(%0, %weight, padding=[1, 1], channels=32, kernel_size=[3, 3], data_layout="NCHW16c");
  %2 = nn.upsampling(%1, scale_h=2f, scale_w=2f, layout="NCHW16c");
  %3 = nn.avg_pool2d(%2, pool_size=[2, 2], strides=[2, 2], layout="NCHW16c");
  layout_transform(%3, src_layout="NCHW16c", dst_layout="NCHW")
}
)");
  testing::expect_same_outputs(in, out);
}

TEST(AlterOpLayoutBlocked, Upsampling3dFollowsABlockedLayoutButNotAChannelsLastOne) {
  // UpsamplingInferCorrectLayout on 3-d data: NCDHW16c keeps D, H and W in place, NDHWC does not.
  auto data_layout = [](const std::string& layout) {
    return [layout](const Call& c) -> Expr {
      std::vector<std::pair<std::string, AttrValue>> attrs = c->attrs->entries;
      for (auto& [key, value] : attrs) {
        if (key == "data_layout") value = AttrValue(layout);
        if (key == "kernel_layout" && layout == "NDHWC") value = AttrValue("DHWIO");
      }
      return call(downcast<OpNode>(c->op), c->args, make_attrs(attrs));
    };
  };
  IRModule in = testing::typed_program(R"(def @main(%x: Tensor[(1, 16, 2, 2, 2), float32], %w: Tensor[(16, 16, 1, 1, 1), float32]) {
  nn.upsampling3d(nn.conv3d(%x, %w, channels=16, kernel_size=[1, 1, 1]), scale_d=2f, scale_h=2f, scale_w=2f)
}
)");
  IRModule blocked = testing::run_checked(AlterOpLayout({{"nn.conv3d", data_layout("NCDHW16c")}}), in);
  EXPECT_EQ(calls_of(blocked.main(), "nn.upsampling3d")[0]->attrs->at("layout").as_string(), "NCDHW16c");
  testing::expect_same_outputs(in, blocked);
  IRModule last = testing::run_checked(AlterOpLayout({{"nn.conv3d", data_layout("NDHWC")}}), in);
  EXPECT_EQ(calls_of(last.main(), "nn.upsampling3d")[0]->attrs->at("layout").as_string(), "NCDHW");
  testing::expect_same_outputs(in, last);
}

TEST(AlterOpLayoutBlocked, AChannelsLastBiasReachesTheBlocksThroughExpandDims) {
  // A (C) bias broadcast against an NHWC conv moved to NCHW16c: Relay's
  // TransformHelper expands it to (1, 1, 1, C) in NHWC, then blocks it.
  IRModule in = testing::typed_program(R"(def @main(%x: Tensor[(1, 4, 4, 16), float32],
          %w: Tensor[(1, 1, 16, 32), float32], %b: Tensor[(32), float32]) {
  nn.relu(add(nn.conv2d(%x, %w, channels=32, kernel_size=[1, 1], data_layout="NHWC", kernel_layout="HWIO"), %b))
}
)");
  IRModule out = testing::run_checked(AlterOpLayout({{"nn.conv2d", nchw16c_conv}}), in);
  testing::expect_program(out, R"(def @main(%x: Tensor[(1, 4, 4, 16), float32],
          %w: Tensor[(1, 1, 16, 32), float32], %b: Tensor[(32), float32]) {
  %0 = layout_transform(%x, src_layout="NHWC", dst_layout="NCHW16c");
  %1 = layout_transform(%w, src_layout="HWIO", dst_layout="OIHW16i16o");
  %2 = nn.conv2d(%0, %1, channels=32, kernel_size=[1, 1], data_layout="NCHW16c", kernel_layout="OIHW16i16o");
  %3 = expand_dims(%b, axis=0, num_newaxis=3);
  %4 = layout_transform(%3, src_layout="NHWC", dst_layout="NCHW16c");
  %5 = nn.relu(add(%2, %4));
  layout_transform(%5, src_layout="NCHW16c", dst_layout="NHWC")
}
)");
  testing::expect_same_outputs(in, out);
}

}  // namespace
}  // namespace weft
