// An ONNX model file read as the ONNX library reads it: parsed, its external
// data resolved (only from files beside it), checked, brought to opset 13 at
// least (older opsets by the version converter; 13 to 17 mean the same for
// every operator weft maps but the few its converters read by opset) and
// shape-inferred.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>

namespace onnx_frontend {

/// The opset models of older opsets are converted to before their nodes are mapped.
inline constexpr int kOldestMappedOpset = 13;
/// The default-domain opsets a model may declare.
inline constexpr int kFirstOpset = 7, kLastOpset = 17;

/// `path` loaded and made ready to map. Error naming the file and what is
/// wrong: not a model, an opset out of range, a check the model fails,
/// external data outside its folder.
onnx::ModelProto load_model(const std::string& path);

/// The model's opset of the default domain (-1 when it declares none).
int64_t default_opset(const onnx::ModelProto& model);

}  // namespace onnx_frontend
