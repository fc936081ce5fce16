// Compiling and running a fused group on the null target (group_program.h).
#include "group_program.h"

#include <cstring>
#include <unordered_map>

namespace null_target {

namespace sdk = weft::sdk;
using sdk::operator==;
using sdk::operator!=;

namespace {

const char* op_name(NullOp op) {
  switch (op) {
    case NullOp::kAdd: return "add";
    case NullOp::kRelu: return "nn.relu";
    case NullOp::kDense: return "nn.dense";
  }
  return "?";
}

/// A float32 tensor type of static shape.
bool is_static_f32(const sdk::Type& t) {
  if (!t.is_tensor() || t.dtype() != sdk::dtype::float32) return false;
  for (int64_t d : t.shape()) {
    if (d == WEFT_DIM_ANY) return false;
  }
  return true;
}

int64_t numel_of(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

/// Checks that a launch's tensor holds the float32 elements the group expects.
void expect_f32(const sdk::TensorView& arg, int64_t numel, const std::string& what) {
  if (arg.dtype() == sdk::dtype::float32 && arg.numel() == numel) return;
  throw sdk::Error(what + " must be a float32 tensor of " + std::to_string(numel) + " elements, not a " +
                   sdk::dtype_name(arg.dtype()) + " tensor of " + std::to_string(arg.numel()));
}

}  // namespace

std::optional<NullOp> runnable_op(const sdk::Expr& call) {
  sdk::Expr callee = call.callee();
  if (!callee.is(WEFT_EXPR_OP)) return std::nullopt;
  std::string name = callee.name();
  std::optional<NullOp> op;
  size_t arity = 0;
  if (name == "add") op = NullOp::kAdd, arity = 2;
  else if (name == "nn.relu") op = NullOp::kRelu, arity = 1;
  else if (name == "nn.dense") op = NullOp::kDense, arity = 2;
  else return std::nullopt;
  std::vector<sdk::Expr> args = call.args();
  if (args.size() != arity || !is_static_f32(call.type())) return std::nullopt;
  for (const sdk::Expr& a : args) {
    if (!is_static_f32(a.type())) return std::nullopt;
  }
  if (op == NullOp::kDense && (args[1].type().ndim() != 2 || args[0].type().ndim() < 1)) return std::nullopt;
  return op;
}

size_t GroupProgram::add_value(Source source, size_t index, Shape shape) {
  int64_t n = numel_of(shape);
  values_.push_back(Value{source, index, std::move(shape), n});
  return values_.size() - 1;
}

size_t GroupProgram::add_constant(const DLTensor& data, const Shape& shape) {
  const float* first = reinterpret_cast<const float*>(static_cast<const char*>(data.data) + data.byte_offset);
  constants_.emplace_back(first, first + numel_of(shape));
  return add_value(Source::kConstant, constants_.size() - 1, shape);
}

GroupProgram GroupProgram::compile(const sdk::Expr& primitive,
                                   const std::vector<std::optional<sdk::TensorView>>& constants) {
  GroupProgram program;
  std::unordered_map<const weft_expr_t*, size_t> value_of;  // node -> value id
  std::vector<sdk::Expr> params = primitive.params();
  for (size_t i = 0; i < params.size(); ++i) {
    sdk::Type type = params[i].type();
    if (!is_static_f32(type)) {
      throw sdk::Unsupported("parameter " + params[i].name() + " is a " + type.str() + ", not a float32 tensor");
    }
    // A parameter bound to a constant (a weight) is copied here, once, as a
    // real target packs its weights; launches do not read it.
    if (i < constants.size() && constants[i]) {
      value_of[params[i].get()] = program.add_constant(constants[i]->dl(), type.shape());
      program.packed_params_.push_back(i);
    } else {
      value_of[params[i].get()] = program.add_value(Source::kParam, i, type.shape());
    }
    program.params_.push_back(value_of[params[i].get()]);
  }
  sdk::Expr body = primitive.body();
  sdk::post_order(body, [&](const sdk::Expr& node) {
    switch (node.kind()) {
      case WEFT_EXPR_VAR:
        if (!value_of.count(node.get())) {
          throw sdk::Unsupported("the group reads " + node.name() + ", which is not its parameter");
        }
        return;
      case WEFT_EXPR_CONSTANT: {
        sdk::Type type = node.type();
        if (!is_static_f32(type)) throw sdk::Unsupported("a constant " + type.str() + " is not float32");
        value_of[node.get()] = program.add_constant(node.data(), type.shape());
        return;
      }
      case WEFT_EXPR_CALL: {
        std::optional<NullOp> op = runnable_op(node);
        if (!op) {
          sdk::Expr callee = node.callee();
          std::string what = callee.is(WEFT_EXPR_OP) ? callee.name() + " with these types" : "a call of a function";
          throw sdk::Unsupported("the null target does not run " + what + " (" + node.type().str() + ")");
        }
        Step step{*op, {}, 0};
        for (const sdk::Expr& a : node.args()) step.inputs.push_back(value_of.at(a.get()));
        step.output = program.add_value(Source::kIntermediate, program.num_intermediates_++, node.type().shape());
        value_of[node.get()] = step.output;
        program.steps_.push_back(std::move(step));
        return;
      }
      case WEFT_EXPR_TUPLE:
        if (node.get() != body.get()) throw sdk::Unsupported("the null target runs a tuple only as a group's outputs");
        for (const sdk::Expr& f : node.fields()) program.outputs_.push_back(value_of.at(f.get()));
        return;
      default: throw sdk::Unsupported(std::string("the null target does not run ") + sdk::node_kind_name(node.kind()) + " nodes");
    }
  });
  if (!body.is(WEFT_EXPR_TUPLE)) program.outputs_.push_back(value_of.at(body.get()));
  return program;
}

void GroupProgram::run(const std::vector<sdk::TensorView>& args) const {
  if (args.size() != params_.size() + outputs_.size()) {
    throw sdk::Error("the group takes " + std::to_string(params_.size()) + " parameters and " +
                     std::to_string(outputs_.size()) + " outputs, but the launch passed " +
                     std::to_string(args.size()) + " tensors");
  }
  std::vector<std::vector<float>> scratch(num_intermediates_);
  std::vector<const float*> data(values_.size(), nullptr);
  for (size_t v = 0; v < values_.size(); ++v) {
    const Value& value = values_[v];
    switch (value.source) {
      case Source::kParam: {
        const sdk::TensorView& arg = args[value.index];
        expect_f32(arg, value.numel, "argument " + std::to_string(value.index));
        data[v] = arg.data<float>();
        break;
      }
      case Source::kConstant: data[v] = constants_[value.index].data(); break;
      case Source::kIntermediate:
        scratch[value.index].resize(value.numel);
        data[v] = scratch[value.index].data();
        break;
    }
  }
  for (const Step& step : steps_) {
    const Value& out = values_[step.output];
    float* result = scratch[out.index].data();
    const Value& a = values_[step.inputs[0]];
    switch (step.op) {
      case NullOp::kAdd: {
        const Value& b = values_[step.inputs[1]];
        add(data[step.inputs[0]], a.shape, data[step.inputs[1]], b.shape, result, out.shape);
        break;
      }
      case NullOp::kRelu: relu(data[step.inputs[0]], a.numel, result); break;
      case NullOp::kDense: {
        const Value& w = values_[step.inputs[1]];
        // The data's leading dims are the rows (counted, not divided out: k may be 0).
        int64_t rows = numel_of(Shape(a.shape.begin(), a.shape.end() - 1));
        dense(data[step.inputs[0]], rows, w.shape[1], data[step.inputs[1]], w.shape[0], result);
        break;
      }
    }
  }
  for (size_t o = 0; o < outputs_.size(); ++o) {
    const Value& value = values_[outputs_[o]];
    const sdk::TensorView& arg = args[params_.size() + o];
    expect_f32(arg, value.numel, "output " + std::to_string(o));
    // memmove: an output the plan placed over an input it copies. An empty
    // output has nothing to copy (and its pointers may be null).
    if (value.numel) std::memmove(arg.data<float>(), data[outputs_[o]], value.numel * sizeof(float));
  }
}

std::string GroupProgram::summary() const {
  std::string out;
  for (const Step& step : steps_) out += (out.empty() ? "" : ", ") + std::string(op_name(step.op));
  return out;
}

}  // namespace null_target
