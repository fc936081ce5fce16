// The top classes of a classifier's output (see classifier_report.h).
#include "classifier_report.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "weft/expr.h"
#include "weft/type.h"

namespace weft::cli {

bool is_classifier(const IRModule& typed_mod) {
  Function main = typed_mod.main();
  auto* call = main->body.as<CallNode>();
  auto* op = call ? call->op.as<OpNode>() : nullptr;
  auto* out = main->body->checked_type().as<TensorTypeNode>();
  return op && op->name() == "nn.softmax" && out && out->ndim() == 2;
}

void print_top_classes(std::ostream& out, const Tensor& probabilities, int k) {
  const int64_t rows = probabilities.shape()[0], classes = probabilities.shape()[1];
  const int64_t shown = std::min<int64_t>(k, classes);
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int64_t> order(classes);
    std::iota(order.begin(), order.end(), 0);
    auto value = [&](int64_t c) { return probabilities.element_as_double(r * classes + c); };
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return value(a) > value(b); });
    out << "top-" << shown << " classes" << (rows > 1 ? " of row " + std::to_string(r) : std::string()) << ":\n";
    for (int64_t i = 0; i < shown; ++i) out << "  class " << order[i] << ": " << value(order[i]) << "\n";
  }
}

}  // namespace weft::cli
