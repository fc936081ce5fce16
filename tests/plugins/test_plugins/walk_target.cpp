// A target whose compile walks the group with the SDK's post_order and
// declines it with a listing of every node it met, each described through
// the SDK's accessors for its kind, so a test can check that a target can
// read every node kind. Its compile_partition takes lone negations only.
#include <weft/plugin.hpp>

#include <map>
#include <string>

namespace sdk = weft::sdk;

namespace {

std::string value_text(const sdk::Value& v) {
  switch (v.type()) {
    case WEFT_ATTR_INT: return std::to_string(v.as_int());
    case WEFT_ATTR_FLOAT: return std::to_string(v.as_float());
    case WEFT_ATTR_BOOL: return v.as_bool() ? "true" : "false";
    case WEFT_ATTR_STRING: return "\"" + v.as_string() + "\"";
    default: return "...";
  }
}

/// One line per node, in visiting order: "%3 = add(%0, %2): Tensor[(2), float32]".
std::string listing(const sdk::Expr& root) {
  std::map<const weft_expr_t*, std::string> id;
  std::string out;
  sdk::post_order(root, [&](const sdk::Expr& e) {
    auto ref = [&](const sdk::Expr& x) { return id.at(x.get()); };
    std::string self = "%" + std::to_string(id.size());
    std::string line;
    switch (e.kind()) {
      case WEFT_EXPR_VAR: {
        sdk::Type annotation = e.var_type();
        line = "var " + e.name() + (annotation ? ": " + annotation.str() : "");
        break;
      }
      case WEFT_EXPR_CONSTANT: {
        DLTensor t = e.data();
        const float* v = static_cast<const float*>(t.data);
        line = "const " + e.type().str() + " [" + std::to_string(v[0]) + ", ...]";
        break;
      }
      case WEFT_EXPR_CALL: {
        line = e.op_name() + "(";
        std::vector<sdk::Expr> args = e.args();
        for (size_t i = 0; i < args.size(); ++i) line += (i ? ", " : "") + ref(args[i]);
        line += ")";
        sdk::Attrs attrs = e.attrs();
        for (const std::string& k : attrs.keys()) line += " " + k + "=" + value_text(attrs.get_value(k));
        line += ": " + e.type().str();
        break;
      }
      case WEFT_EXPR_FUNCTION: {
        line = "fn(";
        std::vector<sdk::Expr> params = e.params();
        for (size_t i = 0; i < params.size(); ++i) line += (i ? ", " : "") + ref(params[i]);
        line += ") -> " + ref(e.body());
        if (sdk::Type ret = e.ret_type()) line += ": " + ret.str();
        for (const std::string& k : e.function_attrs().keys()) line += " " + k;
        break;
      }
      case WEFT_EXPR_TUPLE: {
        line = "(";
        std::vector<sdk::Expr> fields = e.fields();
        for (size_t i = 0; i < fields.size(); ++i) line += (i ? ", " : "") + ref(fields[i]);
        line += ")";
        break;
      }
      case WEFT_EXPR_TUPLE_GET_ITEM: line = ref(e.tuple()) + "." + std::to_string(e.index()); break;
      case WEFT_EXPR_LET: line = "let " + ref(e.let_var()) + " = " + ref(e.let_value()) + " in " + ref(e.body()); break;
      case WEFT_EXPR_IF:
        line = "if " + ref(e.cond()) + " then " + ref(e.then_branch()) + " else " + ref(e.else_branch());
        break;
      default: line = "?";
    }
    id[e.get()] = self;
    out += self + " = " + line + "\n";
  });
  return out;
}

}  // namespace

WEFT_PLUGIN(reg) {
  reg.target("walker")
      .describe("Declines every group with a listing of its nodes.")
      .supports([](const sdk::TargetInstance&, const sdk::Expr&) { return true; })
      .compile([](const sdk::TargetInstance&, const sdk::CompileArgs& group) -> sdk::CompiledKernel {
        throw sdk::Unsupported(listing(group.primitive));
      })
      // Given a partition, it takes the groups that are one `negative` call
      // (float32), whose output may overwrite its input (each element is
      // read before it is written), and declines the rest; for a group of
      // one `exp` call it names a parameter the group lacks as the one its
      // output may overwrite, as a faulty target would.
      .compile_partition([](const sdk::TargetInstance&, const std::vector<sdk::CompileArgs>& groups) {
        std::vector<sdk::CompiledKernel> kernels;
        for (const sdk::CompileArgs& group : groups) {
          sdk::Expr body = group.primitive.body();
          const std::string op = body.kind() == WEFT_EXPR_CALL ? body.op_name() : "";
          if (op != "negative" && op != "exp") {
            kernels.emplace_back();
            continue;
          }
          sdk::CompiledKernel negation = [](const sdk::LaunchArgs& launch) {
            const sdk::TensorView &in = launch.args.at(0), &out = launch.args.at(1);
            for (int64_t i = 0; i < out.numel(); ++i) out.data<float>()[i] = -in.data<float>()[i];
          };
          kernels.push_back(negation.inplace_parameter(op == "negative" ? 0 : 1));
        }
        return kernels;
      });
}
