#include "model_file.h"

#include <weft/plugin.hpp>

#include <onnx/checker.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
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

void write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent went away: nobody to tell
    data += n;
    size -= static_cast<size_t>(n);
  }
}

/// `work` run in a child process: what it returns, or its exception's
/// message as an sdk::Error. The ONNX library's checker, converter and shape
/// inference dereference what a malformed model leaves out (a missing
/// producer, a kernel of the wrong rank); in a child, such a crash is an
/// error about the model, not the end of weft. The child shares the parent's
/// memory copy-on-write, so the model is not copied to it.
std::string in_child_process(const std::function<std::string()>& work) {
  int fds[2];
  if (::pipe(fds) != 0) throw sdk::Error(std::string("cannot make a pipe: ") + std::strerror(errno));
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw sdk::Error(std::string("cannot start a process for the ONNX library: ") + std::strerror(errno));
  }
  if (pid == 0) {
    // A crash ends the child quietly; the parent reports it.
    for (int sig : {SIGSEGV, SIGBUS, SIGABRT, SIGFPE, SIGILL}) std::signal(sig, SIG_DFL);
    ::close(fds[0]);
    char status = 0;
    std::string out;
    try {
      out = work();
    } catch (const std::exception& e) {
      status = 1;
      out = e.what();
    }
    write_all(fds[1], &status, 1);
    write_all(fds[1], out.data(), out.size());
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string received;
  std::vector<char> buffer(1 << 16);
  for (;;) {
    const ssize_t n = ::read(fds[0], buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    received.append(buffer.data(), static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int wait_status = 0;
  while (::waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(wait_status) || WEXITSTATUS(wait_status) != 0 || received.empty())
    throw sdk::Error("the ONNX library crashed on this model (" +
                     (WIFSIGNALED(wait_status) ? "signal " + std::to_string(WTERMSIG(wait_status))
                                               : "exit " + std::to_string(WEXITSTATUS(wait_status))) +
                     ") checking, converting or shape-inferring it: the model is malformed in a way its checker "
                     "does not catch");
  if (received[0] != 0) throw sdk::Error(received.substr(1));
  return received.substr(1);
}

/// ONNX's checker lets a graph output that nothing computes through, and
/// the version converter then dereferences its missing producer.
void check_outputs_computed(const onnx::GraphProto& graph) {
  std::set<std::string> defined;
  for (const onnx::ValueInfoProto& v : graph.input()) defined.insert(v.name());
  for (const onnx::TensorProto& t : graph.initializer()) defined.insert(t.name());
  for (const onnx::NodeProto& n : graph.node()) defined.insert(n.output().begin(), n.output().end());
  for (const onnx::ValueInfoProto& v : graph.output())
    if (!defined.count(v.name()))
      throw sdk::Error("graph output '" + v.name() + "' is no input, initializer or node output");
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

/// The shapes given for inputs written into their types, so shape inference
/// sees static shapes downstream of a symbolic batch. One of another rank is
/// left for the import to refuse with its message.
void bind_input_shapes(onnx::ModelProto& model, const InputShapes& shapes) {
  for (onnx::ValueInfoProto& input : *model.mutable_graph()->mutable_input()) {
    auto bound = shapes.find(input.name());
    if (bound == shapes.end() || !input.type().has_tensor_type()) continue;
    onnx::TensorShapeProto* shape = input.mutable_type()->mutable_tensor_type()->mutable_shape();
    if (static_cast<size_t>(shape->dim_size()) != bound->second.size()) continue;
    for (int d = 0; d < shape->dim_size(); ++d)
      if (!shape->dim(d).has_dim_value()) shape->mutable_dim(d)->set_dim_value(bound->second[static_cast<size_t>(d)]);
  }
}

}  // namespace

onnx::ModelProto load_model(const std::string& path, const InputShapes& shapes) {
  onnx::ModelProto model;
  if (!model.ParseFromString(read_bytes(path, "the ONNX model")))
    throw sdk::Error("not an ONNX model (its protobuf does not parse)");
  const fs::path folder = fs::path(path).parent_path();
  for (onnx::TensorProto& t : *model.mutable_graph()->mutable_initializer()) load_external(t, folder);
  const int64_t opset = default_opset(model);
  if (opset < kFirstOpset || opset > kLastOpset)
    throw sdk::Error("opset " + std::to_string(opset) + " of the default domain; weft reads opsets " +
                     std::to_string(kFirstOpset) + " to " + std::to_string(kLastOpset));
  // What comes back: the whole model when the converter rewrote it, else
  // (the weights unchanged, not copied back) the graph's typed values alone.
  const bool converts = opset < kOldestMappedOpset;
  const std::string prepared = in_child_process([&] {
    onnx::checker::check_model(model);
    check_outputs_computed(model.graph());
    if (converts) {
      const std::set<std::string> old_resizes = resizes_before_opset_11(model, opset);
      model = onnx::version_conversion::ConvertVersion(model, kOldestMappedOpset);
      keep_opset_10_resize_semantics(model, old_resizes);
    }
    bind_input_shapes(model, shapes);
    // Data propagation: sizes computed by shape arithmetic (Shape, Slice,
    // Concat into a Resize's sizes) give static shapes after them.
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(false, 0, true));
    if (converts) return model.SerializeAsString();
    onnx::GraphProto typed;
    *typed.mutable_input() = model.graph().input();
    *typed.mutable_output() = model.graph().output();
    *typed.mutable_value_info() = model.graph().value_info();
    return typed.SerializeAsString();
  });
  if (converts) {
    if (!model.ParseFromString(prepared)) throw sdk::Error("the converted model does not read back");
    return model;
  }
  onnx::GraphProto typed;
  if (!typed.ParseFromString(prepared)) throw sdk::Error("the shape-inferred graph does not read back");
  onnx::GraphProto& graph = *model.mutable_graph();
  graph.mutable_input()->Swap(typed.mutable_input());
  graph.mutable_output()->Swap(typed.mutable_output());
  graph.mutable_value_info()->Swap(typed.mutable_value_info());
  return model;
}

int64_t default_opset(const onnx::ModelProto& model) {
  int64_t opset = -1;
  for (const onnx::OperatorSetIdProto& o : model.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
  return opset;
}

}  // namespace onnx_frontend
