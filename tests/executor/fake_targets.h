// Test-local targets for the graph executor, independent of weft's kernels:
// they run Primitive functions of float32 `add` (equal shapes) and `nn.relu`
// with plain loops. Both queue everything on their streams and do it only at
// synchronize, so a read the executor did not order after its write sees stale
// bytes. HostTarget's buffers are host pointers; DeviceTarget's are ids into
// storage of its own, which nothing but its own copies and kernels can reach
// (an id from elsewhere is an error), so every value crossing to it must be
// copied. Thread-safe, counting what they are asked to do.
#pragma once

#include <atomic>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "weft/error.h"
#include "weft/functor.h"
#include "weft/target.h"
#include "weft/type.h"

namespace weft::testing {

/// A queue of work run at synchronize.
struct FakeStream {
  std::vector<std::function<void()>> work;
};

/// Resolves a kernel argument to its floats.
using ResolveBuffer = std::function<float*(const DLTensor&)>;

/// A Primitive function of add and nn.relu, as a list of instructions.
class LoopKernel : public TargetKernel {
 public:
  LoopKernel(const Function& fn, ResolveBuffer resolve) : resolve_(std::move(resolve)) {
    std::unordered_map<const ExprNode*, int> value_of;  // node -> index (params first, then temps)
    for (size_t i = 0; i < fn->params.size(); ++i) value_of[fn->params[i].get()] = static_cast<int>(i);
    num_params_ = fn->params.size();
    int next = static_cast<int>(num_params_);
    post_order_visit(fn->body, [&](const Expr& e) {
      auto* c = e.as<CallNode>();
      if (!c) return;
      auto* op = c->op.as<OpNode>();
      const std::string name = op ? op->name() : "";
      if (name != "add" && name != "nn.relu") throw Error("fake target runs add and nn.relu only").op(name).status(StatusCode::kUnsupported);
      Instr in{name == "add", value_of.at(c->args[0].get()), name == "add" ? value_of.at(c->args[1].get()) : -1, next};
      value_of[e.get()] = next++;
      code_.push_back(in);
    });
    num_values_ = next;
    std::vector<Expr> outs = {fn->body};
    if (auto* t = fn->body.as<TupleNode>()) outs = t->fields;
    for (const Expr& o : outs) outputs_.push_back(value_of.at(o.get()));
    numel_ = downcast<TensorTypeNode>(fn->params[0]->checked_type())->numel();
  }

  void launch(StreamHandle stream, std::span<const DLTensor> args) const override {
    if (args.size() != num_params_ + outputs_.size()) throw std::logic_error("wrong number of kernel arguments");
    std::vector<DLTensor> copy(args.begin(), args.end());
    static_cast<FakeStream*>(stream)->work.push_back([this, copy] { run(copy); });
  }

 private:
  struct Instr {
    bool is_add;
    int a, b, out;
  };

  void run(const std::vector<DLTensor>& args) const {
    std::vector<std::vector<float>> values(num_values_);
    auto read = [&](int v) -> const float* {
      return v < static_cast<int>(num_params_) ? resolve_(args[v]) : values[v].data();
    };
    for (const Instr& in : code_) {
      values[in.out].resize(numel_);
      const float* a = read(in.a);
      const float* b = in.is_add ? read(in.b) : nullptr;
      for (int64_t i = 0; i < numel_; ++i) values[in.out][i] = in.is_add ? a[i] + b[i] : (a[i] > 0 ? a[i] : 0.f);
    }
    for (size_t o = 0; o < outputs_.size(); ++o)
      std::memcpy(resolve_(args[num_params_ + o]), read(outputs_[o]), numel_ * sizeof(float));
  }

  ResolveBuffer resolve_;
  size_t num_params_ = 0;
  int num_values_ = 0;
  int64_t numel_ = 0;
  std::vector<Instr> code_;
  std::vector<int> outputs_;
};

/// What both fakes share: deferred streams, compile, capability, counters.
class FakeTarget : public Target {
 public:
  std::atomic<int> compiles{0}, uploads{0}, downloads{0}, buffer_copies{0}, allocs{0}, frees{0};

  bool supports(const Call& call) const override {
    auto* op = call->op.as<OpNode>();
    return op && (op->name() == "add" || op->name() == "nn.relu");
  }
  std::unique_ptr<TargetKernel> compile(const Function& primitive, std::span<const Tensor>) override {
    ++compiles;
    return std::make_unique<LoopKernel>(primitive, [this](const DLTensor& t) { return resolve(t); });
  }
  std::vector<TargetDevice> devices() const override { return {TargetDevice{0, "fake", {}}}; }
  StreamHandle create_stream(int) override { return new FakeStream; }
  void destroy_stream(StreamHandle s) override { delete static_cast<FakeStream*>(s); }
  void synchronize(StreamHandle s) override {
    auto* stream = static_cast<FakeStream*>(s);
    for (auto& w : stream->work) w();
    stream->work.clear();
  }

 protected:
  virtual float* resolve(const DLTensor& t) = 0;
  static void enqueue(StreamHandle s, std::function<void()> fn) { static_cast<FakeStream*>(s)->work.push_back(std::move(fn)); }
};

class HostTarget : public FakeTarget {
 public:
  bool host_addressable() const override { return true; }
  BufferHandle alloc(int, size_t nbytes, size_t alignment) override {
    ++allocs;
    return ::operator new(nbytes, std::align_val_t{alignment});
  }
  void free(int, BufferHandle b) override {
    ++frees;
    ::operator delete(b, std::align_val_t{64});
  }
  void copy_from_host(StreamHandle s, const void* src, BufferHandle dst, size_t off, size_t n) override {
    ++uploads;
    enqueue(s, [=] { std::memcpy(static_cast<std::byte*>(dst) + off, src, n); });
  }
  void copy_to_host(StreamHandle s, BufferHandle src, size_t off, void* dst, size_t n) override {
    ++downloads;
    enqueue(s, [=] { std::memcpy(dst, static_cast<std::byte*>(src) + off, n); });
  }
  void copy_buffer(StreamHandle s, BufferHandle src, size_t so, BufferHandle dst, size_t d, size_t n) override {
    ++buffer_copies;
    enqueue(s, [=] { std::memcpy(static_cast<std::byte*>(dst) + d, static_cast<std::byte*>(src) + so, n); });
  }

 protected:
  float* resolve(const DLTensor& t) override {
    return reinterpret_cast<float*>(static_cast<std::byte*>(t.data) + t.byte_offset);
  }
};

class DeviceTarget : public FakeTarget {
 public:
  bool host_addressable() const override { return false; }
  BufferHandle alloc(int, size_t nbytes, size_t) override {
    ++allocs;
    std::lock_guard lock(mutex_);
    const uintptr_t id = next_id_++;
    storage_[id].resize(nbytes);
    return reinterpret_cast<BufferHandle>(id);
  }
  void free(int, BufferHandle b) override {
    ++frees;
    std::lock_guard lock(mutex_);
    if (!storage_.erase(reinterpret_cast<uintptr_t>(b))) throw std::logic_error("freeing a buffer not allocated here");
  }
  void copy_from_host(StreamHandle s, const void* src, BufferHandle dst, size_t off, size_t n) override {
    ++uploads;
    std::byte* to = bytes(dst, off, n);
    enqueue(s, [=] { std::memcpy(to, src, n); });
  }
  void copy_to_host(StreamHandle s, BufferHandle src, size_t off, void* dst, size_t n) override {
    ++downloads;
    std::byte* from = bytes(src, off, n);
    enqueue(s, [=] { std::memcpy(dst, from, n); });
  }
  void copy_buffer(StreamHandle s, BufferHandle src, size_t so, BufferHandle dst, size_t d, size_t n) override {
    ++buffer_copies;
    std::byte *from = bytes(src, so, n), *to = bytes(dst, d, n);
    enqueue(s, [=] { std::memcpy(to, from, n); });
  }
  size_t live_buffers() {
    std::lock_guard lock(mutex_);
    return storage_.size();
  }

 protected:
  float* resolve(const DLTensor& t) override { return reinterpret_cast<float*>(bytes(t.data, t.byte_offset, 0)); }

 private:
  /// The storage behind an id; an id not allocated here (a host pointer, say) is a logic_error.
  std::byte* bytes(BufferHandle b, size_t offset, size_t n) {
    std::lock_guard lock(mutex_);
    auto it = storage_.find(reinterpret_cast<uintptr_t>(b));
    if (it == storage_.end() || offset + n > it->second.size())
      throw std::logic_error("device target: not one of its buffers");
    return it->second.data() + offset;
  }

  std::mutex mutex_;
  uintptr_t next_id_ = 1;
  std::map<uintptr_t, std::vector<std::byte>> storage_;  // node-based: data pointers stay put
};

}  // namespace weft::testing
