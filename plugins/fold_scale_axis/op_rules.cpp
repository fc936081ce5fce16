// The ops FoldScaleAxis knows, by name, and the call rebuilder their plans share.
#include "op_rules.h"

#include <map>

namespace weft::fold_scale_axis {

const OpRules* op_rules(const std::string& name) {
  static const std::map<std::string, const OpRules*> table = {
      {"nn.relu", &relu_rules()},         {"nn.leaky_relu", &relu_rules()}, {"add", &add_subtract_rules()},
      {"subtract", &add_subtract_rules()}, {"multiply", &multiply_rules()},  {"divide", &divide_rules()},
      {"nn.bias_add", &bias_add_rules()},  {"nn.conv2d", &conv_rules()},     {"nn.conv3d", &conv_rules()},
      {"nn.dense", &dense_rules()},
  };
  auto it = table.find(name);
  return it == table.end() ? nullptr : it->second;
}

std::function<Expr(const std::vector<Expr>&)> rebuild_call(const Expr& call) {
  std::string op = op_name(call);
  sdk::Attrs attrs = call.attrs();
  return [op, attrs](const std::vector<Expr>& args) {
    std::vector<weft_expr_t*> raw;
    for (const Expr& a : args) raw.push_back(a.get());
    weft_expr_t* out = nullptr;
    sdk::check(sdk::host().expr_call_op(op.c_str(), raw.data(), raw.size(), attrs.get(), &out));
    return Expr(sdk::Handle<weft_expr_t>::adopt(out));
  };
}

}  // namespace weft::fold_scale_axis
