#include "model_file.h"

#include <weft/plugin.hpp>

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace sdk = weft::sdk;
namespace fs = std::filesystem;

namespace onnx_frontend {
namespace {

std::string read_bytes(const fs::path& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw sdk::Error("cannot open " + what + " " + path.string());
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// Moves a tensor's external data (ONNX's `location`, `offset`, `length`)
/// into it, reading only files inside `folder`.
void load_external(onnx::TensorProto& t, const fs::path& folder) {
  if (t.data_location() != onnx::TensorProto::EXTERNAL) return;
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& kv : t.external_data()) {
    if (kv.key() == "location") location = kv.value();
    else if (kv.key() == "offset") offset = std::stoll(kv.value());
    else if (kv.key() == "length") length = std::stoll(kv.value());
  }
  const fs::path relative(location);
  if (location.empty() || relative.is_absolute() || relative.lexically_normal().string().rfind("..", 0) == 0)
    throw sdk::Error("tensor " + t.name() + " has its data at '" + location +
                     "', which is not a file beside the model");
  std::string bytes = read_bytes(folder / relative, "the external data of tensor " + t.name() + ", file");
  if (offset < 0 || offset > static_cast<int64_t>(bytes.size()) ||
      (length >= 0 && length > static_cast<int64_t>(bytes.size()) - offset))
    throw sdk::Error("tensor " + t.name() + "'s external data lies past the end of " + location);
  t.set_raw_data(bytes.substr(static_cast<size_t>(offset), length < 0 ? std::string::npos : static_cast<size_t>(length)));
  t.clear_external_data();
  t.set_data_location(onnx::TensorProto::DEFAULT);
}

/// The outputs of the Upsample and Resize nodes of a model of opset 10 or
/// before: they sample at asymmetric coordinates (x / scale), nearest
/// rounding down.
std::set<std::string> resizes_before_opset_11(const onnx::ModelProto& model, int64_t opset) {
  std::set<std::string> outputs;
  if (opset >= 11) return outputs;
  for (const onnx::NodeProto& node : model.graph().node())
    if ((node.op_type() == "Upsample" || node.op_type() == "Resize") && node.output_size() > 0)
      outputs.insert(node.output(0));
  return outputs;
}

/// The version converter makes those nodes Resize nodes without attributes,
/// which from opset 11 read as half_pixel coordinates: their opset-10
/// meaning, spelled out.
void keep_opset_10_resize_semantics(onnx::ModelProto& model, const std::set<std::string>& outputs) {
  for (onnx::NodeProto& node : *model.mutable_graph()->mutable_node()) {
    if (node.op_type() != "Resize" || node.output_size() == 0 || !outputs.count(node.output(0))) continue;
    std::set<std::string> given;
    for (const onnx::AttributeProto& a : node.attribute()) given.insert(a.name());
    for (const auto& [name, value] : {std::pair<const char*, const char*>{"coordinate_transformation_mode", "asymmetric"},
                                      {"nearest_mode", "floor"}}) {
      if (given.count(name)) continue;
      onnx::AttributeProto* a = node.add_attribute();
      a->set_name(name);
      a->set_type(onnx::AttributeProto::STRING);
      a->set_s(value);
    }
  }
}

}  // namespace

onnx::ModelProto load_model(const std::string& path) {
  onnx::ModelProto model;
  if (!model.ParseFromString(read_bytes(path, "the ONNX model")))
    throw sdk::Error("not an ONNX model (its protobuf does not parse)");
  const fs::path folder = fs::path(path).parent_path();
  for (onnx::TensorProto& t : *model.mutable_graph()->mutable_initializer()) load_external(t, folder);
  const int64_t opset = default_opset(model);
  if (opset < kFirstOpset || opset > kLastOpset)
    throw sdk::Error("opset " + std::to_string(opset) + " of the default domain; weft reads opsets " +
                     std::to_string(kFirstOpset) + " to " + std::to_string(kLastOpset));
  try {
    onnx::checker::check_model(model);
    if (opset < kOldestMappedOpset) {
      const std::set<std::string> old_resizes = resizes_before_opset_11(model, opset);
      model = onnx::version_conversion::ConvertVersion(model, kOldestMappedOpset);
      keep_opset_10_resize_semantics(model, old_resizes);
    }
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception& e) {
    throw sdk::Error(e.what());
  }
  return model;
}

int64_t default_opset(const onnx::ModelProto& model) {
  int64_t opset = -1;
  for (const onnx::OperatorSetIdProto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  return opset;
}

}  // namespace onnx_frontend
