// A plugin written with weft/plugin.hpp that uses every registration kind:
// ops (attrs with defaults, a normalizer, kernel, gradient, rewrites; a
// kernel prepared per call site), a model, an
// initializer, passes (one reading its PassContext) and a frontend.
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <new>
#include <stdexcept>
#include <vector>
#include <weft/plugin.hpp>

namespace sdk = weft::sdk;
using weft::sdk::operator==;  // DLDataType comparisons live in the SDK's namespace
using weft::sdk::operator!=;

namespace {

// out = alpha * x + y, float32 or float64, same shapes.
void axpy_kernel(const sdk::KernelArgs& k) {
  double alpha = k.attrs.get_float("alpha");
  const sdk::TensorView& out = k.outputs.at(0);
  auto run = [&](auto* x, auto* y, auto* o) {
    for (int64_t i = 0; i < out.numel(); ++i) o[i] = alpha * x[i] + y[i];
  };
  if (out.dtype() == sdk::dtype::float32) {
    run(k.inputs[0].data<float>(), k.inputs[1].data<float>(), out.data<float>());
  } else if (out.dtype() == sdk::dtype::float64) {
    run(k.inputs[0].data<double>(), k.inputs[1].data<double>(), out.data<double>());
  } else {
    throw sdk::Error("sdk.axpy supports float32 and float64, got " + sdk::dtype_name(out.dtype()),
                     WEFT_STATUS_UNSUPPORTED);
  }
}

sdk::Type axpy_relation(const std::vector<sdk::Type>& args, const sdk::Attrs&) {
  if (args.size() != 2) throw sdk::Error("sdk.axpy takes 2 arguments");
  if (args[0].shape() != args[1].shape() || args[0].dtype() != args[1].dtype()) {
    throw sdk::Error("x and y differ: " + args[0].str() + " vs " + args[1].str());
  }
  return args[0];
}

// sdk.stamp's plan: what a call's type and attrs decide, and which preparation
// this was (the plugin's count of them), which the kernel adds to its input so
// that a test sees when a call site was prepared again.
struct StampPlan {
  int64_t numel = 0;
  double stamp = 0;
};

int64_t stamp_preparations = 0;

namespace te = sdk::te;

// sdk.row_argmax's TE: a tuple reduction of (index, value) pairs, keeping the
// first maximum, over the row padded at its end with the lowest float (which
// never wins): shows a custom reducer, a multi-output compute and te::pad
// crossing the boundary.
std::vector<te::Tensor> row_argmax_te(const std::vector<te::Tensor>& in, const sdk::Attrs&, const sdk::Type&) {
  te::Tensor padded = te::pad(in.at(0), {0, 0}, {0, 1}, te::lowest(sdk::dtype::float32), "padded");
  te::Reducer first_max = te::comm_reducer(
      [](const std::vector<te::Expr>& acc, const std::vector<te::Expr>& next) {
        te::Expr take = next[1] > acc[1];
        return std::vector<te::Expr>{te::select(take, next[0], acc[0]), te::select(take, next[1], acc[1])};
      },
      {te::int_imm(-1), te::lowest(sdk::dtype::float32)}, "first_max");
  te::Axis k = te::reduce_axis(padded.shape()[1], "k");
  return te::compute_multi(
      {padded.shape()[0]},
      [&](const te::Idx& i) { return te::reduce(first_max, {k.var(), padded(i[0], k)}, {k}); }, "row_argmax");
}

// sdk.bad_te's TE: the misuse of the te_* host functions `what` names, to
// show that each comes back as an error instead of a crash.
std::vector<te::Tensor> bad_te(const std::vector<te::Tensor>& in, const sdk::Attrs& attrs, const sdk::Type&) {
  const std::string what = attrs.get_string("what");
  const te::Tensor& x = in.at(0);
  te::Expr one = 1;
  weft_te_expr_t* out = nullptr;
  if (what == "operator") sdk::check(sdk::host().te_binary(static_cast<weft_te_binary_op_t>(99), one.get(), one.get(), &out));
  if (what == "null") sdk::check(sdk::host().te_binary(WEFT_TE_ADD, one.get(), nullptr, &out));
  if (what == "kind") {  // a tensor handle where an expression goes
    sdk::check(sdk::host().te_binary(WEFT_TE_ADD, one.get(), reinterpret_cast<weft_te_expr_t*>(x.get()), &out));
  }
  if (what == "extent") (void)te::reduce_axis(-3, "k");
  if (what == "dtypes") (void)te::compute(x.shape(), [&](const te::Idx& i) { return te::logical_and(x(i), one); });
  if (what == "rank") (void)te::compute(x.shape(), [&](const te::Idx& i) { return x(i[0], i[0], i[0]); });
  return {te::compute(x.shape(), [&](const te::Idx& i) { return x(i); }, "copy")};
}

}  // namespace

WEFT_PLUGIN(reg) {
  reg.op("sdk.stamp")
      .describe("x + the number of this call site's kernel preparation (float32); counts the preparations")
      .input("x", "Tensor", "float32.")
      .attr("fail", false, "Whether preparing the kernel fails.")
      .support_level(10)
      .pattern(WEFT_PATTERN_ELEMWISE)
      .type_relation(sdk::identity_relation)
      .prepared_kernel(
          [](const std::vector<sdk::Type>& args, const sdk::Attrs& attrs) {
            if (attrs.get_bool("fail")) throw sdk::Error("this call cannot be prepared", WEFT_STATUS_UNSUPPORTED);
            StampPlan plan;
            plan.numel = 1;
            for (int64_t d : args.at(0).shape()) plan.numel *= d;
            plan.stamp = static_cast<double>(++stamp_preparations);
            return plan;
          },
          [](const StampPlan& plan, const sdk::KernelArgs& k) {
            const sdk::TensorView& out = k.outputs.at(0);
            if (out.numel() != plan.numel) throw sdk::Error("the plan is for another call");
            const float* x = k.inputs.at(0).data<float>();
            for (int64_t i = 0; i < plan.numel; ++i) out.data<float>()[i] = x[i] + static_cast<float>(plan.stamp);
          });

  reg.op("sdk.axpy")
      .describe("alpha * x + y")
      .input("x", "Tensor", "Scaled input.")
      .input("y", "Tensor", "Added input.")
      .attr("alpha", 1.0, "The scale of x.")
      .attr("window", WEFT_ATTR_ANY, std::vector<int64_t>{1, 1}, "Unused; shows normalization.", "an int or 2 ints")
      .normalize([](const sdk::Value& v) -> sdk::Value {
        std::vector<int64_t> w = v.type() == WEFT_ATTR_INT ? std::vector<int64_t>{v.as_int()} : v.as_ints();
        if (w.size() == 1) w.push_back(w[0]);
        if (w.size() != 2) throw sdk::Error("window needs 1 or 2 values, got " + std::to_string(w.size()));
        // A code other than the default, to show that codes cross the boundary.
        if (w[0] == 0 || w[1] == 0) throw sdk::Error("an empty window is not supported", WEFT_STATUS_UNSUPPORTED);
        return w;
      })
      .attr_optional("note", WEFT_ATTR_STRING, "Free text, or None.")
      .support_level(4)
      .pattern(WEFT_PATTERN_ELEMWISE)
      .type_relation(axpy_relation)
      .kernel(axpy_kernel)
      .te_compute([](const std::vector<te::Tensor>& in, const sdk::Attrs& attrs, const sdk::Type& out) {
        const te::Tensor &x = in.at(0), &y = in.at(1);
        te::Expr alpha = te::make_const(out.dtype(), attrs.get_float("alpha"));
        return te::compute(x.shape(), [&](const te::Idx& i) { return alpha * x(i) + y(i); }, "axpy");
      })
      .gradient([](const sdk::Expr& call, const sdk::Expr& grad) {
        // d/dx = alpha * grad, written as axpy(grad, grad, alpha - 1); d/dy = grad.
        double alpha = call.attrs().get_float("alpha");
        sdk::Expr dx = sdk::call("sdk.axpy", {grad, grad}, {{"alpha", alpha - 1.0}});
        return std::vector<sdk::Expr>{dx, grad};
      })
      // axpy(x, y, alpha=0) is y. Reading the types shows that the call and
      // its arguments arrive typed.
      .rewrite("drop_zero_alpha",
               [](const sdk::Expr& call) -> sdk::Expr {
                 if (call.type().str() != call.arg(1).type().str()) throw sdk::Error("axpy's type is not y's");
                 if (call.attrs().get_float("alpha") != 0.0) return {};
                 return call.arg(1);
               })
      // axpy(x, y, alpha=1) is axpy(y, x, alpha=1): a replacement built through the host.
      .rewrite("commute_unit_alpha",
               [](const sdk::Expr& call) -> sdk::Expr {
                 if (call.attrs().get_float("alpha") != 1.0) return {};
                 return sdk::call("sdk.axpy", {call.arg(1), call.arg(0)}, {{"alpha", 1.0}});
               })
      .rewrite("unrewritable", [](const sdk::Expr&) -> sdk::Expr {
        throw sdk::Error("no rule for this call", WEFT_STATUS_UNSUPPORTED);
      });

  reg.op("sdk.row_argmax")
      .describe("(the index of each row's first maximum, that maximum) of a float32 matrix")
      .input("data", "Tensor", "(rows, columns) float32.")
      .support_level(10)
      .pattern(WEFT_PATTERN_COMM_REDUCE)
      .type_relation([](const std::vector<sdk::Type>& args, const sdk::Attrs&) {
        std::vector<int64_t> shape = args.at(0).shape();
        if (shape.size() != 2 || args[0].dtype() != sdk::dtype::float32) throw sdk::Error("expected a float32 matrix");
        return sdk::Type::tuple({sdk::Type::tensor({shape[0]}, sdk::dtype::int32), sdk::Type::tensor({shape[0]})});
      })
      .kernel([](const sdk::KernelArgs& k) {
        const sdk::TensorView& x = k.inputs.at(0);
        const int64_t rows = x.shape()[0], cols = x.shape()[1];
        for (int64_t r = 0; r < rows; ++r) {
          int32_t best = 0;
          for (int64_t c = 1; c < cols; ++c) {
            if (x.data<float>()[r * cols + c] > x.data<float>()[r * cols + best]) best = static_cast<int32_t>(c);
          }
          k.outputs.at(0).data<int32_t>()[r] = best;
          k.outputs.at(1).data<float>()[r] = x.data<float>()[r * cols + best];
        }
      })
      .te_compute(row_argmax_te);

  reg.op("sdk.bad_te")
      .describe("data, through a TE compute that misuses the TE host functions as `what` says")
      .input("data", "Tensor", "Returned unchanged (float32).")
      .attr("what", std::string("none"), "The misuse: operator, null, kind, extent, dtypes, rank or none.")
      .support_level(10)
      .pattern(WEFT_PATTERN_ELEMWISE)
      .type_relation(sdk::identity_relation)
      .kernel([](const sdk::KernelArgs& k) {
        std::memcpy(k.outputs.at(0).data<float>(), k.inputs.at(0).data<float>(), k.outputs[0].numel() * sizeof(float));
      })
      .te_compute(bad_te);

  // Throws what `what` names, to show how the SDK's guard reports each kind of exception.
  reg.op("sdk.throw")
      .describe("data, or the exception `what` names: bad_alloc, length_error, overflow, unsupported, logic_error, int")
      .input("data", "Tensor", "Returned unchanged (float32).")
      .attr("what", std::string("none"), "The exception the kernel throws.")
      .support_level(10)
      .pattern(WEFT_PATTERN_OPAQUE)
      .type_relation(sdk::identity_relation)
      .kernel([](const sdk::KernelArgs& k) {
        const std::string what = k.attrs.get_string("what");
        if (what == "bad_alloc") throw std::bad_alloc();
        if (what == "length_error") std::vector<char>().reserve(std::vector<char>().max_size() + 1);
        if (what == "overflow") (void)(sdk::CheckedInt(INT64_MAX) + 1);
        if (what == "unsupported") throw sdk::Unsupported("no kernel for this case");
        if (what == "logic_error") throw std::logic_error("an invariant broke");
        if (what == "int") throw 42;
        const sdk::TensorView& out = k.outputs.at(0);
        std::memcpy(out.data<float>(), k.inputs.at(0).data<float>(), out.numel() * sizeof(float));
      });

  reg.model("sdk.tiny")
      .describe("y = axpy(x, x, alpha=2) over a vector of `units` float32s")
      .param("units", int64_t{4}, "Vector length.")
      .param("window", int64_t{1}, "Passed to sdk.axpy, whose normalizer the host runs for the builder.")
      .build([](const sdk::Attrs& p) {
        int64_t units = p.get_int("units");
        if (units <= 0) throw sdk::Error("units must be positive, got " + std::to_string(units));
        sdk::Expr x = sdk::var("data", sdk::Type::tensor({units}));
        return sdk::function({x}, sdk::call("sdk.axpy", {x, x}, {{"alpha", 2.0}, {"window", p.get_int("window")}}));
      });

  reg.initializer("sdk.counter")
      .describe("Fills with start, start+1, ... continuing across parameters; the seed is added to start.")
      .param("start", 0.5, "First value.")
      .create([](const sdk::Attrs& p, uint64_t seed) -> sdk::InitializerBuilder::Fill {
        auto next = std::make_shared<double>(p.get_float("start") + static_cast<double>(seed));
        return [next](const std::string& name, const sdk::TensorView& out) {
          if (name.find("weight") == std::string::npos) throw sdk::Error("sdk.counter fills only weights, not " + name);
          float* data = out.data<float>();
          for (int64_t i = 0; i < out.numel(); ++i) data[i] = static_cast<float>((*next)++);
        };
      });

  reg.pass("sdk.RenameMain")
      .opt_level(1)
      .run([](const sdk::Module& m) {
        std::vector<std::pair<std::string, sdk::Expr>> fns;
        for (auto& [name, fn] : m.functions()) fns.emplace_back(name == "main" ? "renamed" : name, fn);
        fns.emplace_back("main", fns.front().second);
        return sdk::Module::make(fns);
      });

  // Reads everything its PassContext holds into that context's statistics, and runs
  // sdk.RenameMain under it when the context enables that pass at its level 1.
  reg.pass("sdk.ContextProbe").run([](const sdk::Module& m, const sdk::PassContext& ctx) {
    const std::string me = "sdk.ContextProbe";
    ctx.add_statistic(me, "opt level", ctx.opt_level());
    ctx.add_statistic(me, "max depth", ctx.config("relay.FuseOps.max_depth").as_int());
    for (const std::string& name : ctx.required_passes()) ctx.add_statistic(me, "required " + name, 1);
    for (const std::string& name : ctx.disabled_passes()) ctx.add_statistic(me, "disabled " + name, 1);
    return ctx.pass_enabled("sdk.RenameMain", 1) ? ctx.run_pass(m, "sdk.RenameMain") : m;
  });
  reg.pass("sdk.ReadUnknownConfig").run([](const sdk::Module& m, const sdk::PassContext& ctx) {
    ctx.config("sdk.no_such_key");
    return m;
  });

  reg.frontend("sdk.len")
      .describe("Reads a file holding one integer n: main(x: Tensor[(n), float32]) = x")
      .extension(".len")
      .option("scale", int64_t{1}, "Multiplies n.")
      .import_file([](const std::string& path, const sdk::Attrs& options) {
        std::ifstream in(path);
        int64_t n = 0;
        if (!(in >> n)) throw sdk::Error("expected an integer in " + path);
        sdk::Expr x = sdk::var("x", sdk::Type::tensor({n * options.get_int("scale")}));
        return sdk::Module::make({{"main", sdk::function({x}, x)}});
      });
}
