// create_workload with the init plugin's initializers gives the parameters
// tvm.relay.testing's create_workload gives (golden/gen_workloads.py, a NumPy
// reimplementation of its init.py): bit for bit for uniform draws and for
// constants, to the last bit of float32 / float64 for Gaussian draws (their
// logarithm is the platform's).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "workload_golden.h"
#include "workload_program.h"
#include "weft/error.h"
#include "weft/workload.h"

namespace weft {
namespace {

Attrs attrs_of(const nlohmann::json& j) {
  std::vector<std::pair<std::string, AttrValue>> entries;
  for (const auto& [k, v] : j.items()) {
    if (v.is_string()) entries.emplace_back(k, v.get<std::string>());
    else entries.emplace_back(k, v.get<double>());
  }
  return make_attrs(std::move(entries));
}

/// Distance in units in the last place between two same-signed finite floats
/// given by their bits (adjacent representable values are 1 apart).
uint64_t ulp_distance(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

class WorkloadGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(WorkloadGolden, MatchesTheReferenceInitialization) {
  const nlohmann::json c = golden_case(GetParam());
  const DataType dtype = DataType::parse(c.at("dtype").get<std::string>());
  const Workload w = create_workload(test_program(dtype), c.at("initializer").get<std::string>(),
                                     c.at("seed").get<uint64_t>(), attrs_of(c.at("params")));
  const auto& expected = c.at("expected");
  ASSERT_EQ(w.params.size(), expected.size());
  const bool gaussian = c.at("case").get<std::string>().find("gaussian") != std::string::npos ||
                        c.at("initializer") == "normal";
  for (size_t p = 0; p < expected.size(); ++p) {
    const auto& e = expected[p];
    const auto& [name, tensor] = w.params[p];
    EXPECT_EQ(name, e.at("name").get<std::string>());
    ASSERT_EQ(tensor.shape(), e.at("shape").get<std::vector<int64_t>>()) << name;
    ASSERT_EQ(tensor.dtype(), dtype) << name;
    const auto bits = e.at("bits").get<std::vector<uint64_t>>();
    for (int64_t i = 0; i < tensor.numel(); ++i) {
      if (gaussian) {
        EXPECT_LE(ulp_distance(element_bits(tensor, i), bits[i]), 1u) << name << " element " << i;
      } else {
        EXPECT_EQ(element_bits(tensor, i), bits[i]) << name << " element " << i;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Cases, WorkloadGolden, ::testing::ValuesIn(golden_case_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace weft
