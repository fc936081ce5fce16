// Every golden case of the tensor plugin (NumPy oracles written by
// golden/generate.py) runs through type inference and the interpreter and must
// match its expected tensors, in float32 and float64 and the integer and bool
// dtypes the cases cover.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/op_test.h"

namespace weft::testing {
namespace {

struct GoldenCase {
  std::string file;
  nlohmann::json data;
};

std::vector<GoldenCase> load_cases() {
  std::vector<GoldenCase> out;
  for (const char* file : {"elementwise", "compare_logical", "init_cast", "shape", "join_split", "indexing",
                           "broadcast", "layout_transform", "reduce"}) {
    for (const auto& c : read_json(std::string(WEFT_PLUGIN_GOLDEN_DIR) + "/" + file + ".json")) {
      out.push_back({file, c});
    }
  }
  return out;
}

/// Like run_op, but the inputs travel as one Tuple argument (concatenate, stack).
Value run_tuple_op(const std::string& op, const std::vector<Tensor>& inputs,
                   std::vector<std::pair<std::string, AttrValue>> attrs) {
  std::vector<Var> params;
  std::vector<Expr> fields;
  std::vector<Value> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    params.push_back(var("in" + std::to_string(i), tensor_type(inputs[i].shape(), inputs[i].dtype())));
    fields.push_back(params.back());
    values.emplace_back(inputs[i]);
  }
  Interpreter interp(IRModule::from_function(function(params, call(op, {tuple(fields)}, std::move(attrs)))));
  return interp.run_main(values);
}

/// gtest names a failing case by this rather than by its bytes.
void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.file << ": " << c.data.at("name").get<std::string>(); }

class TensorGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(TensorGolden, MatchesNumpy) {
  const nlohmann::json& c = GetParam().data;
  std::vector<Tensor> inputs;
  for (const auto& in : c.at("inputs")) inputs.push_back(tensor_from_json(in));
  auto attrs = attrs_from_json(c.at("attrs"));
  const std::string op = c.at("op");
  Value result = c.value("tuple_input", false) ? run_tuple_op(op, inputs, attrs) : run_op(op, inputs, attrs);
  if (c.contains("outputs")) {
    ASSERT_TRUE(result.is_tuple());
    ASSERT_EQ(result.fields().size(), c.at("outputs").size());
    for (size_t i = 0; i < result.fields().size(); ++i) expect_close(result.fields()[i].tensor(), c.at("outputs")[i]);
  } else {
    expect_close(result.tensor(), c.at("output"));
  }
}

std::string case_name(const ::testing::TestParamInfo<GoldenCase>& info) {
  return info.param.file + "_" + info.param.data.at("name").get<std::string>();
}

INSTANTIATE_TEST_SUITE_P(Tensor, TensorGolden, ::testing::ValuesIn(load_cases()), case_name);

}  // namespace
}  // namespace weft::testing
