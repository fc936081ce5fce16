// check_grad: analytic gradients (the gradient pass, run on the interpreter)
// against central differences of the forward function, element by element.
#include "weft/testing/check_grad.h"

#include <cmath>
#include <sstream>
#include <weft/sdk/numpy_random.hpp>

#include "weft/interpreter.h"
#include "weft/module.h"
#include "weft/names.h"
#include "weft/passes.h"

namespace weft::testing {

namespace {

bool perturbable(DataType dt) { return dt == DataType::Float(32) || dt == DataType::Float(64); }

double read(const Tensor& t, int64_t i) { return t.element_as_double(i); }

void write(const Tensor& t, int64_t i, double v) {
  if (t.dtype() == DataType::Float(64))
    t.data_as<double>()[i] = v;
  else
    t.data_as<float>()[i] = static_cast<float>(v);
}

/// mean + scale * np.random.randn(*shape), rounded into the dtype.
Tensor draw(const TensorTypeNode& type, const std::string& name, sdk::NumpyRandomState& rng, double mean,
            double scale) {
  if (!perturbable(type.dtype)) {
    throw Error("check_grad draws float32 or float64 inputs only; parameter %" + name + " is " + type.dtype.str())
        .note("pass the inputs explicitly");
  }
  for (int64_t d : type.shape) {
    if (d < 0) throw Error("check_grad needs static shapes to draw inputs; parameter %" + name + " has a ? dim");
  }
  Tensor t = Tensor::empty(type.shape, type.dtype);
  for (int64_t i = 0; i < t.numel(); ++i) write(t, i, mean + scale * rng.standard_normal());
  return t;
}

/// The sum of every element of every tensor in the value, in double.
double total(const Value& v) {
  double sum = 0.0;
  for (const Tensor& t : v.flatten()) {
    for (int64_t i = 0; i < t.numel(); ++i) sum += read(t, i);
  }
  return sum;
}

std::vector<int64_t> unravel(int64_t flat, const std::vector<int64_t>& shape) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] == 0 ? 0 : flat % shape[d];
    flat = shape[d] == 0 ? 0 : flat / shape[d];
  }
  return index;
}

std::string index_text(const std::vector<int64_t>& index) {
  std::string out = "(";
  for (size_t i = 0; i < index.size(); ++i) out += (i ? ", " : "") + std::to_string(index[i]);
  return out + (index.size() == 1 ? ",)" : ")");
}

std::string number(double v) {
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}

}  // namespace

bool GradCheckReport::ok() const {
  for (const ParamGradCheck& p : params)
    if (!p.ok()) return false;
  return true;
}

std::string GradCheckReport::message() const {
  std::string out;
  for (const ParamGradCheck& p : params) {
    if (p.ok()) continue;
    const GradMismatch& m = *p.first_mismatch;
    if (!out.empty()) out += '\n';
    out += "gradient of %" + p.name + " at index " + index_text(m.index) + ": analytic " + number(m.analytic) +
           ", numeric " + number(m.numeric) + " (" + std::to_string(p.mismatches) + " of " +
           std::to_string(p.elements) + " elements differ, max |error| " + number(p.max_abs_error) + ")";
  }
  return out;
}

GradCheckReport gradient_check(const Function& fn, std::vector<Tensor> inputs, const std::vector<size_t>& test_inputs,
                               const CheckGradOptions& options) {
  return gradient_check(IRModule::from_function(fn), std::move(inputs), test_inputs, options);
}

GradCheckReport gradient_check(const IRModule& mod, std::vector<Tensor> inputs, const std::vector<size_t>& test_inputs,
                               const CheckGradOptions& options) {
  IRModule forward_mod = infer_type(mod);
  Function forward = forward_mod.main();
  IRModule backward_mod = forward_mod;
  backward_mod.add(forward_mod.global_var("main"), gradient(forward, forward_mod, options.mode));
  const auto& params = forward->params;
  const std::vector<std::string> names = param_names(forward);

  if (inputs.empty()) inputs.resize(params.size());
  if (inputs.size() != params.size()) {
    throw Error("check_grad got " + std::to_string(inputs.size()) + " inputs for " + std::to_string(params.size()) +
                " parameters");
  }
  sdk::NumpyRandomState rng(options.seed);
  const double scale = options.scale.value_or(10 * options.eps);
  for (size_t i = 0; i < params.size(); ++i) {
    if (inputs[i].defined()) continue;
    inputs[i] =
        draw(*downcast<TensorTypeNode>(params[i]->checked_type()), names[i], rng, options.mean, scale);
  }
  std::vector<size_t> tested = test_inputs;
  if (tested.empty())
    for (size_t i = 0; i < params.size(); ++i) tested.push_back(i);
  for (size_t i : tested) {
    if (i >= params.size()) throw Error("check_grad: test input " + std::to_string(i) + " is not a parameter index");
    if (!perturbable(inputs[i].dtype())) {
      throw Error("check_grad perturbs float32 or float64 parameters only; %" + names[i] + " is " +
                  inputs[i].dtype().str());
    }
  }

  // Copies, so that perturbing them leaves the caller's tensors alone.
  std::vector<Value> args;
  for (Tensor& t : inputs) {
    t = t.clone();
    args.emplace_back(t);
  }
  Interpreter backward_run(backward_mod);
  Value analytic = backward_run.run_main(args).fields().at(1);
  Interpreter forward_run(forward_mod);

  GradCheckReport report;
  for (size_t i : tested) {
    const Tensor& x = inputs[i];
    const Tensor& grad = analytic.fields().at(i).tensor("gradient");
    ParamGradCheck check{names[i], x.numel(), 0, 0.0, std::nullopt};
    for (int64_t e = 0; e < x.numel(); ++e) {
      double original = read(x, e);
      write(x, e, original + options.eps);
      double plus = total(forward_run.run_main(args));
      write(x, e, original - options.eps);
      double minus = total(forward_run.run_main(args));
      write(x, e, original);
      double numeric = (plus - minus) / (2 * options.eps);
      double a = read(grad, e);
      double error = std::abs(a - numeric);
      // A NaN error (a NaN gradient or forward value) must show, not vanish in std::max.
      if (std::isnan(error) || error > check.max_abs_error) check.max_abs_error = error;
      if (!(error <= options.atol + options.rtol * std::abs(numeric))) {
        if (check.mismatches++ == 0) check.first_mismatch = GradMismatch{unravel(e, x.shape()), a, numeric};
      }
    }
    report.params.push_back(std::move(check));
  }
  return report;
}

::testing::AssertionResult check_grad(const Function& fn, std::vector<Tensor> inputs,
                                      const std::vector<size_t>& test_inputs, const CheckGradOptions& options) {
  GradCheckReport report = gradient_check(fn, std::move(inputs), test_inputs, options);
  if (report.ok()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << report.message();
}

}  // namespace weft::testing
