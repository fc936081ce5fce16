// Every zoo model, its workload's parameters bound as relay.build(params=...)
// binds them, gives the same outputs after -O3 as unoptimized on the
// interpreter (the semantics goal), at small sizes so each runs fast.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model_run_util.h"
#include "o3.h"

namespace weft::testing {
namespace {

class ZooAtO3 : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooAtO3, GivesTheUnoptimizedOutputsWithItsParametersBound) {
  Workload w = create_workload(build_model(parse_model_spec(GetParam())), "xavier");
  std::vector<Value> all_args = model_testing::model_args(w);
  Value want = Interpreter(w.mod).run_main(all_args);

  IRModule optimized = optimize_o3(bind_params(w.mod, param_map(w.params)));
  // What is left to pass: the `data` inputs, in order.
  std::vector<Value> data_args;
  const std::vector<Var>& params = w.mod.main()->params;
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i]->name_hint == "data") data_args.push_back(all_args[i]);
  ASSERT_EQ(optimized.main()->params.size(), data_args.size());
  expect_same_values(Interpreter(optimized).run_main(data_args), want);
}

// The sizes the families' own tests run, or smaller images where those run
// the full size (densenet's final 7x7 pooling needs 224x224). Every family but
// inception_v3: its 8x8 pooling needs 299x299 images, over a minute on the
// interpreter for the two runs.
INSTANTIATE_TEST_SUITE_P(Models, ZooAtO3,
                         ::testing::Values("mlp", "dqn", "dcgan:ngf=16", "lstm:iterations=3,num_hidden=4",
                                           "mobilenet:alpha=0.25,image_shape=3x32x32,num_classes=10",
                                           "squeezenet-1.1:image_shape=3x32x32,num_classes=10",
                                           "vgg-11-bn:image_shape=3x32x32,num_classes=10",
                                           "resnet-18:image_shape=3x32x32,num_classes=10",
                                           "densenet-121:batch_size=1,classes=10",
                                           "synthetic"),
                         [](const auto& info) {
                           std::string name = info.param.substr(0, info.param.find(':'));
                           for (char& c : name)
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name + "_" + std::to_string(info.index);
                         });

}  // namespace
}  // namespace weft::testing
