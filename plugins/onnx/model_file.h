// An ONNX model file read as the ONNX library reads it: parsed, its external
// data resolved (only from files beside it), checked, brought to opset 13 at
// least (older opsets by the version converter; 13 to 17 mean the same for
// every operator weft maps but the few its converters read by opset) and
// shape-inferred. The library's steps run in a child process, where a crash
// of theirs on a malformed model becomes an error.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace onnx_frontend {

/// The opset models of older opsets are converted to before their nodes are mapped.
inline constexpr int kOldestMappedOpset = 13;
/// The default-domain opsets a model may declare.
inline constexpr int kFirstOpset = 7, kLastOpset = 17;

/// Input name -> its whole shape: what --shape gives.
using InputShapes = std::map<std::string, std::vector<int64_t>>;

/// `path` loaded and made ready to map, the inputs `shapes` names shaped so. Error naming the file and what is
/// wrong: not a model, an opset out of range, a check the model fails,
/// external data outside its folder.
onnx::ModelProto load_model(const std::string& path, const InputShapes& shapes);

/// The model's opset of the default domain (-1 when it declares none).
int64_t default_opset(const onnx::ModelProto& model);

}  // namespace onnx_frontend
