// An ONNX model file read as the ONNX library reads it: parsed, its external
// data resolved (only from files beside it), checked, converted to the one
// opset the importer maps (kImportOpset) and shape-inferred.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

namespace onnx_frontend {

/// The opset every model is converted to before its nodes are mapped.
inline constexpr int kImportOpset = 13;
/// The default-domain opsets a model may declare.
inline constexpr int kFirstOpset = 7, kLastOpset = 17;

/// `path` loaded and made ready to map. Error naming the file and what is
/// wrong: not a model, an opset out of range, a check the model fails,
/// external data outside its folder.
onnx::ModelProto load_model(const std::string& path);

}  // namespace onnx_frontend
