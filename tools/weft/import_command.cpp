// `weft import MODEL [-o OUT.relay] [--params-out P.npz|P.safetensors]
// [--shape NAME=DIMS ...]`: a model a frontend reads (an .onnx file) written
// as Relay text that `weft show/run/opt` read. With --params-out its weights
// become main's parameters, named as in the model, and their values go to
// that file (for `weft run OUT.relay --params P`); otherwise they stay in the
// text, as constants of its #[metadata] section.
#include <memory>

#include "commands.h"
#include "program_source.h"
#include "text_output.h"
#include "weft/error.h"
#include "weft/printer.h"
#include "weft/tensor_io.h"

namespace weft::cli {
namespace {

struct ImportOptions {
  std::string model, output, params_out;
  std::vector<std::string> shapes;
};

void import_model(const ImportOptions& o) {
  ProgramOptions options;
  options.initialize_params = false;
  options.shapes = o.shapes;
  options.weights_as_params = !o.params_out.empty();
  Program program = load_program(o.model, options);
  if (program.frontend.empty())
    throw Error("weft import reads model files a frontend reads (an .onnx file), not " + o.model);
  if (!o.params_out.empty()) save_tensor_file(o.params_out, program.params);
  write_text_output(o.output, to_text(program.mod));
}

}  // namespace

void add_import_command(CLI::App& app) {
  auto o = std::make_shared<ImportOptions>();
  auto* cmd = app.add_subcommand("import", "Import a model file (ONNX) as Relay text, its weights optionally apart");
  cmd->add_option("model", o->model, "The model file, of a suffix a frontend reads (.onnx)")->required();
  cmd->add_option("-o,--output", o->output, "Write the Relay text here instead of to stdout");
  cmd->add_option("--params-out", o->params_out,
                  "Make the weights main's parameters (named as in the model) and save their values here "
                  "(.npz or .safetensors)");
  cmd->add_option("--shape", o->shapes,
                  "NAME=DIMS (data=1x3x224x224): the shape of an input with symbolic dimensions");
  cmd->callback([o] { import_model(*o); });
}

}  // namespace weft::cli
