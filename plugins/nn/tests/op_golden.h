// Runs golden cases of one op from an nn golden file: each case's inputs
// through type inference and the interpreter, compared with its "output"
// (or its "outputs", for ops that yield a tuple).
#pragma once

#include <string>

#include "support/op_test.h"

namespace weft::testing {

inline nlohmann::json golden_file(const std::string& file) {
  return read_json(std::string(WEFT_PLUGIN_GOLDEN_DIR) + "/" + file);
}

/// How close a result must be to its golden tensor: |a - e| <= atol + rtol * |e|.
struct Tolerance {
  double rtol, atol;
};

/// Checks every case of `op` in `file`, each expected tensor within `f64_tol`
/// when it is float64 and within `other_tol` otherwise; returns how many ran.
inline int check_golden_cases(const std::string& file, const std::string& op, Tolerance other_tol,
                              Tolerance f64_tol) {
  auto check = [&](const Tensor& actual, const nlohmann::json& expected) {
    const Tolerance& tol = expected.at("dtype") == "float64" ? f64_tol : other_tol;
    expect_close(actual, expected, tol.rtol, tol.atol);
  };
  int ran = 0;
  const nlohmann::json golden = golden_file(file);  // named: a temporary would die before the loop
  for (const auto& c : golden.at("cases")) {
    if (c.at("op") != op) continue;
    SCOPED_TRACE(c.at("name").get<std::string>());
    std::vector<Tensor> inputs;
    for (const auto& t : c.at("inputs")) inputs.push_back(tensor_from_json(t));
    Value out = run_op(op, inputs, attrs_from_json(c.at("attrs")));
    if (c.contains("outputs")) {
      const auto& expected = c.at("outputs");
      EXPECT_TRUE(out.is_tuple());
      if (!out.is_tuple()) continue;
      EXPECT_EQ(out.fields().size(), expected.size());
      for (size_t i = 0; i < expected.size() && i < out.fields().size(); ++i) check(out.fields()[i].tensor(), expected[i]);
    } else {
      check(out.tensor(), c.at("output"));
    }
    ++ran;
  }
  return ran;
}

/// Checks every case of `op` in `file` within one tolerance; returns how many ran.
inline int check_golden_cases(const std::string& file, const std::string& op, double rtol = 1e-5,
                              double atol = 1e-6) {
  return check_golden_cases(file, op, Tolerance{rtol, atol}, Tolerance{rtol, atol});
}

}  // namespace weft::testing
