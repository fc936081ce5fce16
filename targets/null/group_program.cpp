// Compiling and running a fused group on the null target (group_program.h).
#include "group_program.h"

#include <cstring>

namespace null_target {

namespace sdk = weft::sdk;
using sdk::operator==;
using sdk::operator!=;

namespace {

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

GroupProgram GroupProgram::compile(const sdk::Expr& primitive,
                                   const std::vector<std::optional<sdk::TensorView>>& constants) {
  GroupProgram program(sdk::GroupSteps::of(
      primitive, [](const sdk::Expr& call) { return runnable_op(call).has_value(); }, "the null target"));
  for (const sdk::GroupStep& step : program.steps_.steps()) program.ops_.push_back(*runnable_op(step.call));
  // A float32 constant's elements, copied: a weight is packed once, as a real target packs its weights.
  auto copy = [&](const DLTensor& data, int64_t numel) {
    const float* first = reinterpret_cast<const float*>(static_cast<const char*>(data.data) + data.byte_offset);
    program.constants_.emplace_back(first, first + numel);
    return program.constants_.size() - 1;
  };
  size_t scratch = 0;
  for (const sdk::GroupValue& v : program.steps_.values()) {
    if (!is_static_f32(v.type)) throw sdk::Unsupported("the null target runs float32 tensors, not " + v.type.str());
    Place place{v.source, v.index, v.type.shape(), numel_of(v.type.shape())};
    if (v.source == sdk::GroupValue::Source::kParam && v.index < constants.size() && constants[v.index]) {
      // A parameter bound to a constant: launches pass it with data null.
      place.source = sdk::GroupValue::Source::kConstant;
      place.index = copy(constants[v.index]->dl(), place.numel);
      program.packed_params_.push_back(v.index);
    } else if (v.source == sdk::GroupValue::Source::kConstant) {
      place.index = copy(program.steps_.constants()[v.index].data(), place.numel);
    } else if (v.source == sdk::GroupValue::Source::kCall) {
      place.index = scratch++;
    }
    program.places_.push_back(std::move(place));
  }
  return program;
}

void GroupProgram::run(const std::vector<sdk::TensorView>& args) const {
  const std::vector<size_t>& params = steps_.params();
  const std::vector<size_t>& outputs = steps_.outputs();
  if (args.size() != params.size() + outputs.size()) {
    throw sdk::Error("the group takes " + std::to_string(params.size()) + " parameters and " +
                     std::to_string(outputs.size()) + " outputs, but the launch passed " +
                     std::to_string(args.size()) + " tensors");
  }
  std::vector<std::vector<float>> scratch(steps_.steps().size());
  std::vector<const float*> data(places_.size(), nullptr);
  for (size_t v = 0; v < places_.size(); ++v) {
    const Place& place = places_[v];
    switch (place.source) {
      case sdk::GroupValue::Source::kParam: {
        const sdk::TensorView& arg = args[place.index];
        expect_f32(arg, place.numel, "argument " + std::to_string(place.index));
        data[v] = arg.data<float>();
        break;
      }
      case sdk::GroupValue::Source::kConstant: data[v] = constants_[place.index].data(); break;
      case sdk::GroupValue::Source::kCall:
        scratch[place.index].resize(place.numel);
        data[v] = scratch[place.index].data();
        break;
    }
  }
  for (size_t s = 0; s < ops_.size(); ++s) {
    const sdk::GroupStep& step = steps_.steps()[s];
    const Place& out = places_[step.output];
    float* result = scratch[out.index].data();
    const Place& a = places_[step.inputs[0]];
    switch (ops_[s]) {
      case NullOp::kAdd: {
        const Place& b = places_[step.inputs[1]];
        add(data[step.inputs[0]], a.shape, data[step.inputs[1]], b.shape, result, out.shape);
        break;
      }
      case NullOp::kRelu: relu(data[step.inputs[0]], a.numel, result); break;
      case NullOp::kDense: {
        const Place& w = places_[step.inputs[1]];
        // The data's leading dims are the rows (counted, not divided out: k may be 0).
        int64_t rows = numel_of(Shape(a.shape.begin(), a.shape.end() - 1));
        dense(data[step.inputs[0]], rows, w.shape[1], data[step.inputs[1]], w.shape[0], result);
        break;
      }
    }
  }
  for (size_t o = 0; o < outputs.size(); ++o) {
    const Place& place = places_[outputs[o]];
    const sdk::TensorView& arg = args[params.size() + o];
    expect_f32(arg, place.numel, "output " + std::to_string(o));
    // memmove: an output the plan placed over an input it copies. An empty
    // output has nothing to copy (and its pointers may be null).
    if (place.numel) std::memmove(arg.data<float>(), data[outputs[o]], place.numel * sizeof(float));
  }
}

std::string GroupProgram::summary() const { return steps_.summary(); }

}  // namespace null_target
