// ConvertLayout on resnet-18 (the ImageNet network at 64x64): every conv2d
// runs in NHWC with HWIO weights, the graph around it follows (batch norms,
// relus, adds and the max pool in NHWC; the global pool's flatten takes NCHW
// back), and the outputs on the interpreter are those of the NCHW network.
#include <cmath>

#include "model_run_util.h"
#include "model_test_util.h"
#include "weft/functor.h"

namespace weft::model_testing {
namespace {

std::vector<const CallNode*> calls_of(const Expr& body, const std::string& op) {
  std::vector<const CallNode*> out;
  post_order_visit(body, [&](const Expr& e) {
    auto* c = e.as<CallNode>();
    if (c && c->op.as<OpNode>() && c->op.as<OpNode>()->name() == op) out.push_back(c);
  });
  return out;
}

TEST(ResnetLayout, Resnet18InNhwcGivesTheSameOutputs) {
  Workload w = create_workload(build_model(parse_model_spec("resnet:num_layers=18,image_shape=3x64x64,num_classes=10")),
                               "xavier");
  std::vector<Value> args = model_args(w);
  std::vector<double> before = values_of(Interpreter(w.mod).run_main(args));

  IRModule nhwc = ConvertLayout({{"nn.conv2d", {"NHWC", "default"}}})(infer_type(w.mod));
  std::vector<const CallNode*> convs = calls_of(nhwc.main()->body, "nn.conv2d");
  ASSERT_EQ(convs.size(), calls_of(w.mod.main()->body, "nn.conv2d").size());
  for (const CallNode* c : convs) {
    EXPECT_EQ(c->attrs->at("data_layout").as_string(), "NHWC");
    EXPECT_EQ(c->attrs->at("kernel_layout").as_string(), "HWIO");
  }
  // Every batch norm but bn_data, which reads the NCHW input before any conv,
  // normalizes axis 3 of NHWC.
  for (const CallNode* c : calls_of(nhwc.main()->body, "nn.batch_norm")) {
    bool reads_input = c->args[0].as<VarNode>() != nullptr;
    EXPECT_EQ(c->attrs->at("axis").as_int(), reads_input ? 1 : 3);
  }
  for (const CallNode* c : calls_of(nhwc.main()->body, "nn.max_pool2d")) {
    EXPECT_EQ(c->attrs->at("layout").as_string(), "NHWC");
  }
  // The data in, each conv's weight, and NCHW back before the flatten.
  EXPECT_EQ(calls_of(nhwc.main()->body, "layout_transform").size(), convs.size() + 2);

  std::vector<double> after = values_of(Interpreter(nhwc).run_main(args));
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_NEAR(after[i], before[i], 1e-5 * std::max(1.0, std::abs(before[i]))) << i;
  }
}

TEST(ResnetLayout, Resnet18WithBlockedConvsGivesTheSameOutputs) {
  // AlterOpLayout with the hook a target preferring NCHW4c would give: the
  // stem's 3 channels pad to one block of 4 (zeros in data and weight).
  Workload w = create_workload(build_model(parse_model_spec("resnet:num_layers=18,image_shape=3x64x64,num_classes=10")),
                               "xavier");
  std::vector<Value> args = model_args(w);
  std::vector<double> before = values_of(Interpreter(w.mod).run_main(args));
  AlterLayouts blocked = {{"nn.conv2d", [](const Call& c) -> Expr {
                             std::vector<std::pair<std::string, AttrValue>> attrs = c->attrs->entries;
                             for (auto& [k, v] : attrs) {
                               if (k == "data_layout") v = AttrValue("NCHW4c");
                               if (k == "kernel_layout") v = AttrValue("OIHW4i4o");
                             }
                             return call(downcast<OpNode>(c->op), c->args, make_attrs(attrs));
                           }}};
  IRModule altered = AlterOpLayout(blocked)(infer_type(w.mod));
  for (const CallNode* c : calls_of(altered.main()->body, "nn.conv2d")) {
    EXPECT_EQ(c->attrs->at("data_layout").as_string(), "NCHW4c");
  }
  std::vector<double> after = values_of(Interpreter(altered).run_main(args));
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_NEAR(after[i], before[i], 1e-5 * std::max(1.0, std::abs(before[i]))) << i;
  }
}

}  // namespace
}  // namespace weft::model_testing
