// `weft grad-check PROGRAM [--inputs F] [--eps E] [--atol A] [--rtol R]
// [--mode M] [--seed N]`: check_grad on main, one table row per parameter;
// exits 0 only when every gradient matches its central differences.
#include <cstdio>
#include <iostream>
#include <map>
#include <string>

#include "commands.h"
#include "program_source.h"
#include "weft/names.h"
#include "weft/passes.h"
#include "weft/testing/check_grad.h"

namespace weft::cli {

namespace {

struct GradCheckOptions {
  std::string program, inputs, mode = "higher_order";
  double eps = 1e-6, atol = 1e-5, rtol = 1e-3;
  uint32_t seed = 0;
};

/// One tensor per parameter of main: those the program brings (a model's
/// weights) or the --inputs file names (which wins), undefined (drawn by
/// check_grad) for the rest. A name that is no parameter is an error.
std::vector<Tensor> given_inputs(const Function& main, const Program& program, const std::string& path) {
  std::vector<Tensor> inputs(main->params.size());
  std::map<std::string, size_t> index;
  std::string names;
  const std::vector<std::string> param = param_names(main);
  for (size_t i = 0; i < param.size(); ++i) {
    index.emplace(param[i], i);
    names += (names.empty() ? "%" : ", %") + param[i];
  }
  auto place = [&](const NamedTensors& tensors, const std::string& label) {
    for (const auto& [name, tensor] : tensors) {
      auto it = index.find(name);
      if (it == index.end()) {
        throw Error(label + " has tensor '" + name + "', which is no parameter of main").expected("one of " + names);
      }
      inputs[it->second] = tensor;
    }
  };
  place(program.params, program.origin);
  if (!path.empty()) place(load_tensor_file(path), "--inputs " + path);
  return inputs;
}

std::string format(const char* spec, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, spec, v);
  return buf;
}

void grad_check(const GradCheckOptions& o) {
  Program program = load_program(o.program);
  IRModule mod = infer_type(program.mod);
  Function main = mod.main();
  testing::CheckGradOptions options;
  options.eps = o.eps;
  options.atol = o.atol;
  options.rtol = o.rtol;
  options.seed = o.seed;
  options.mode = parse_gradient_mode(o.mode);
  testing::GradCheckReport report = testing::gradient_check(mod, given_inputs(main, program, o.inputs), {}, options);

  std::printf("%-24s %10s %10s %14s  %s\n", "parameter", "elements", "mismatches", "max |error|", "status");
  for (const testing::ParamGradCheck& p : report.params) {
    std::printf("%-24s %10lld %10lld %14s  %s\n", ("%" + p.name).c_str(), static_cast<long long>(p.elements),
                static_cast<long long>(p.mismatches), format("%.3g", p.max_abs_error).c_str(),
                p.ok() ? "ok" : "MISMATCH");
  }
  std::fflush(stdout);
  if (!report.ok()) {
    std::cerr << report.message() << "\n";
    throw CLI::RuntimeError(1);  // the table said why; exit 1 without another message
  }
  std::cout << "all gradients match (" << o.mode << ", eps " << o.eps << ")\n";
}

}  // namespace

void add_grad_check_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "grad-check", "Check main's gradients (the gradient pass) against central differences, per parameter");
  auto o = std::make_shared<GradCheckOptions>();
  cmd->add_option("program", o->program, "The program: a Relay text file")->required();
  cmd->add_option("--inputs", o->inputs,
                  "Tensors for main's parameters, by name (.npz, .safetensors or .npy); the rest are drawn as "
                  "check_grad does (10 * eps * randn)");
  cmd->add_option("--eps", o->eps, "The central-difference step")->check(CLI::PositiveNumber);
  cmd->add_option("--atol", o->atol, "Absolute tolerance")->check(CLI::NonNegativeNumber);
  cmd->add_option("--rtol", o->rtol, "Relative tolerance (of the numeric gradient)")->check(CLI::NonNegativeNumber);
  cmd->add_option("--mode", o->mode, "The gradient pass's mode")->check(CLI::IsMember({"first_order", "higher_order"}));
  cmd->add_option("--seed", o->seed, "Seed for drawn inputs (as np.random.seed)")
      ->check(CLI::Range(uint32_t{0}, UINT32_MAX));
  cmd->callback([o] { grad_check(*o); });
}

}  // namespace weft::cli
