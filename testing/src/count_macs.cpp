// Multiply-accumulates of a typed program (see count_macs.h).
#include "weft/testing/count_macs.h"

#include <cctype>
#include <string>
#include <unordered_set>

#include "weft/functor.h"
#include "weft/type.h"

namespace weft::testing {

namespace {

const TensorTypeNode& tensor_of(const Expr& e) {
  auto t = e->checked_type().as<TensorTypeNode>();
  if (!t) throw Error("count_macs: expected a typed tensor, got " + type_to_text(e->checked_type()));
  return *t;
}

/// The channel extent of a tensor in `layout` (NCHW, NHWC, NCDHW, ...; a
/// blocked NCHW16c holds C/16 blocks of 16).
int64_t channels(const TensorTypeNode& t, const std::string& layout) {
  std::string axes;  // one letter per axis: "NCHW16c" is NCHWc
  for (char ch : layout)
    if (std::isalpha(static_cast<unsigned char>(ch))) axes += ch;
  size_t axis = axes.find('C'), block = axes.find('c');
  int64_t extent = axis < t.shape.size() ? t.shape[axis] : 1;
  return block < t.shape.size() ? extent * t.shape[block] : extent;
}

std::string attr_string(const Call& c, const char* name) {
  const AttrValue* v = c->attrs ? c->attrs->find(name) : nullptr;
  return v && v->type() == AttrType::kString ? v->as_string() : "";
}

bool attr_bool(const Call& c, const char* name) {
  const AttrValue* v = c->attrs ? c->attrs->find(name) : nullptr;
  return v && v->type() == AttrType::kBool && v->as_bool();
}

int64_t call_macs(const Call& c, const std::string& op) {
  const bool conv = op.starts_with("nn.conv") && (op.ends_with("d") || op.ends_with("_transpose"));
  if (conv) {
    const TensorTypeNode& data = tensor_of(c->args[0]);
    const TensorTypeNode& weight = tensor_of(c->args[1]);
    const TensorTypeNode& out = tensor_of(c);
    std::string data_layout = attr_string(c, "data_layout");
    if (op.ends_with("_transpose")) {
      // Each input element feeds (out_channels/groups) * kernel outputs.
      return data.numel() * (weight.numel() / channels(data, data_layout));
    }
    std::string out_layout = attr_string(c, "out_layout");
    // Each output element reads (in_channels/groups) * kernel inputs.
    return out.numel() * (weight.numel() / channels(out, out_layout.empty() ? data_layout : out_layout));
  }
  if (op == "nn.dense" || op == "nn.matmul" || op == "nn.batch_matmul") {
    const TensorTypeNode& a = tensor_of(c->args[0]);
    const bool transpose_a = attr_bool(c, "transpose_a");
    int64_t k = a.shape[a.shape.size() - (transpose_a ? 2 : 1)];
    return tensor_of(c).numel() * k;
  }
  return 0;
}

}  // namespace

int64_t count_macs(const IRModule& typed_mod) { return count_macs(Expr(typed_mod.main())); }

int64_t count_macs(const Expr& typed_expr) {
  int64_t total = 0;
  std::unordered_set<const ExprNode*> seen;
  post_order_visit(typed_expr, [&](const Expr& e) {
    if (e->kind != ExprKind::kCall || !seen.insert(e.get()).second) return;
    Call c = downcast<CallNode>(e);
    if (c->op->kind == ExprKind::kOp) total += call_macs(c, static_cast<const OpNode&>(*c->op).name());
  });
  return total;
}

}  // namespace weft::testing
