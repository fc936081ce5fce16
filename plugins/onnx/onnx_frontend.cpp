// The onnx frontend: `weft run model.onnx` and weft::import_model read ONNX
// files through it (model_file.h loads, graph_import.h maps).
#include <weft/plugin.hpp>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "graph_import.h"
#include "model_file.h"

namespace sdk = weft::sdk;

namespace {

/// "data=1x3x224x224;mask=1x128" as input name -> shape.
std::map<std::string, std::vector<int64_t>> parse_shapes(const std::string& text) {
  std::map<std::string, std::vector<int64_t>> out;
  std::istringstream entries(text);
  std::string entry;
  while (std::getline(entries, entry, ';')) {
    if (entry.empty()) continue;
    const size_t eq = entry.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == entry.size())
      throw sdk::Error("shapes: '" + entry + "' is not NAME=DIMS, like data=1x3x224x224");
    std::vector<int64_t> dims;
    std::istringstream parts(entry.substr(eq + 1));
    std::string part;
    while (std::getline(parts, part, 'x')) {
      size_t used = 0;
      long long d = -1;
      try {
        d = std::stoll(part, &used);
      } catch (const std::exception&) {
      }
      if (used != part.size() || d < 1)
        throw sdk::Error("shapes: '" + entry + "' has the dimension '" + part + "'; expected positive ints joined by x");
      dims.push_back(d);
    }
    out[entry.substr(0, eq)] = dims;
  }
  return out;
}

}  // namespace

WEFT_PLUGIN(reg) {
  reg.frontend("onnx")
      .describe("ONNX models (opsets 7 to 17): checked, brought to opset 13 or later and shape-inferred by the ONNX "
                "library, mapped to weft's ops, initializers as constants.")
      .extension(".onnx")
      .option("shapes", std::string(""), "Shapes for inputs with symbolic dimensions: NAME=DIMS;... as data=1x3x224x224.",
              "NAME=DIMS pairs joined by ;")
      .option("input_shapes", std::string(""),
              "Shapes of the tensors given for inputs (weft run --inputs), as shapes: those naming an input with "
              "symbolic dimensions bind it; the others are ignored.",
              "NAME=DIMS pairs joined by ;")
      .option("initializers", std::string("constants"),
              "How initializers appear: constants, or let (the floating-point ones, the weights, as constants "
              "let-bound at the head of main to variables of their names, which `weft import --params-out` "
              "makes parameters).",
              "constants or let")
      .import_file([](const std::string& path, const sdk::Attrs& options) {
        // --shape's pairs must each name an input; the input tensors' bind where they do.
        onnx_frontend::InputShapes shapes = parse_shapes(options.get_string("shapes"));
        std::set<std::string> optional;
        for (auto& [name, dims] : parse_shapes(options.get_string("input_shapes")))
          if (shapes.emplace(name, dims).second) optional.insert(name);
        const onnx::ModelProto model = onnx_frontend::load_model(path, shapes);
        const std::string initializers = options.get_string("initializers");
        if (initializers != "constants" && initializers != "let")
          throw sdk::Error("initializers is '" + initializers + "'; expected constants or let");
        return onnx_frontend::GraphImport(model, shapes, optional, initializers == "let")
            .import();
      });
}
