// An ONNX graph (at opset 13 to 17, shape-inferred: model_file.h) mapped to a weft
// module: the graph's inputs become main's parameters (their names kept,
// symbolic dimensions bound by the `shapes` option), its initializers
// constants (the weights named, on request), each node the weft ops its
// converter (op_converters.cpp, nn_converters.cpp) builds.
// Every node whose op has no converter is listed in one error.
#pragma once

#include <weft/plugin.hpp>

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace onnx_frontend {

namespace sdk = weft::sdk;

class GraphImport;

/// Maps one node: its outputs, in order (an output the graph never reads may be empty).
using Converter = std::vector<sdk::Expr> (*)(GraphImport& graph, const onnx::NodeProto& node);

/// The converters, by ONNX op type: all of them (op_converters.cpp), and
/// the neural-network operators' among them (nn_converters.cpp).
const std::map<std::string, Converter>& converters();
const std::map<std::string, Converter>& nn_converters();

class GraphImport {
 public:
  /// `shapes` binds symbolic dimensions: input name -> its whole shape;
  /// those `optional` names may name no input (shapes of given tensors).
  /// With `named_weights`, each floating-point initializer is a constant
  /// let-bound at the head of main to a variable of its name (what the
  /// frontend's `initializers: let` asks for); otherwise a plain constant.
  GraphImport(const onnx::ModelProto& model, std::map<std::string, std::vector<int64_t>> shapes,
              std::set<std::string> optional = {}, bool named_weights = false);

  /// The module: main of the graph's inputs, returning its outputs (a tuple
  /// of several).
  sdk::Module import();

  // ---- For converters -------------------------------------------------------------------

  /// Input `i` of `node`; an error naming the node when it is absent.
  const sdk::Expr& input(const onnx::NodeProto& node, int i) const;
  bool has_input(const onnx::NodeProto& node, int i) const;
  /// The static shape of value `name`: shape inference's, or else weft's type
  /// inference of the value as mapped (an error if neither has one).
  std::vector<int64_t> shape(const std::string& name) const;
  /// A scalar constant of value `name`'s element type.
  sdk::Expr scalar_like(double value, const std::string& name) const;
  /// `e` computed now, when it depends on constants alone (shape arithmetic,
  /// a Reshape's shape): its int64 values. Error naming the node otherwise.
  std::vector<int64_t> ints(const sdk::Expr& e, const onnx::NodeProto& node, const std::string& what);
  /// The same for float32 or float64 values (Resize's scales).
  std::vector<double> floats(const sdk::Expr& e, const onnx::NodeProto& node, const std::string& what);
  /// Either, as doubles (Range's bounds).
  std::vector<double> floats_or_ints(const sdk::Expr& e, const onnx::NodeProto& node, const std::string& what);
  /// The ONNX element type of value `name` (an error if shape inference gave it none).
  int32_t element_type(const std::string& name) const;
  /// The model's opset (13 to 17): the few converters whose operator changed
  /// after 13 read it.
  int64_t opset() const { return opset_; }
  /// An error naming the node, for a converter.
  sdk::Error error(const onnx::NodeProto& node, const std::string& message) const;

 private:
  sdk::Type type_of(const onnx::ValueInfoProto& info, bool bind) const;
  /// `e` as a constant: itself, a named weight's value, or folded.
  sdk::Expr known(const sdk::Expr& e, const onnx::NodeProto& node, const std::string& what);

  const onnx::ModelProto& model_;
  int64_t opset_;
  bool named_weights_;
  std::map<std::string, std::vector<int64_t>> shapes_;
  std::set<std::string> optional_shapes_;
  std::vector<sdk::Expr> params_;  // main's: the graph's inputs
  std::map<std::string, sdk::Expr> values_;
  std::map<std::string, const onnx::TypeProto*> inferred_;
  std::map<std::string, std::vector<int64_t>> initializer_shapes_;
  std::map<std::string, int32_t> initializer_types_;
  std::map<std::string, sdk::Expr> weight_values_;  // the named weights' constants
};

/// An attribute of a node, or its default when the node does not set it.
int64_t attr_int(const onnx::NodeProto& node, const std::string& name, int64_t fallback);
float attr_float(const onnx::NodeProto& node, const std::string& name, float fallback);
std::string attr_string(const onnx::NodeProto& node, const std::string& name, const std::string& fallback);
std::vector<int64_t> attr_ints(const onnx::NodeProto& node, const std::string& name,
                               const std::vector<int64_t>& fallback = {});
/// The weft dtype of ONNX element type `element`; `where` names the value in errors.
DLDataType dtype_of(int32_t element, const std::string& where);
/// A rank-0 constant `value` of ONNX element type `element` (the float and
/// integer types and bool); `where` names it in errors.
sdk::Expr scalar_of(double value, int32_t element, const std::string& where);
/// The number of elements of `shape`; an error naming `what` for a negative
/// dimension or a count past 2^40.
int64_t element_count(const std::vector<int64_t>& shape, const std::string& what);
/// A tensor attribute (Constant's value) or initializer as a weft constant.
sdk::Expr tensor_constant(const onnx::TensorProto& t, const std::string& where);

}  // namespace onnx_frontend
