// Reference-counted, immutable IR objects.
//
// Every IR node derives from Object and is held through Ref<T>. Reference counts
// are intrusive so a node can cross the plugin boundary as a plain pointer
// (plugin.h handles are Object pointers). Destruction is iterative: releasing the
// last reference to the root of a 100,000-node chain must not recurse 100,000
// frames deep, so nodes whose count drops to zero while another node is being
// destroyed are queued and freed by the outermost release.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <utility>

#pragma GCC visibility push(default)  // weft's public API: the rest of the core is hidden

namespace weft {

class Object {
 public:
  Object(const Object&) = delete;
  Object& operator=(const Object&) = delete;
  virtual ~Object() = default;

  void inc_ref() const noexcept { ref_count_.fetch_add(1, std::memory_order_relaxed); }
  /// Drops one reference; the last one frees the object (iteratively, see above).
  void dec_ref() const noexcept {
    if (ref_count_.fetch_sub(1, std::memory_order_acq_rel) == 1) destroy(this);
  }
  int use_count() const noexcept { return ref_count_.load(std::memory_order_relaxed); }

 protected:
  Object() = default;

 private:
  static void destroy(const Object* obj) noexcept;
  mutable std::atomic<int32_t> ref_count_{0};
};

/// A strong reference to an Object subclass. Null-able; compares by identity.
template <typename T>
class Ref {
 public:
  using element_type = T;

  Ref() noexcept = default;
  Ref(std::nullptr_t) noexcept {}  // NOLINT: implicit from nullptr reads well
  /// Adopts a raw pointer, adding a reference (the count is intrusive).
  explicit Ref(T* ptr) noexcept : ptr_(ptr) {
    if (ptr_) ptr_->inc_ref();
  }
  Ref(const Ref& other) noexcept : Ref(other.ptr_) {}
  Ref(Ref&& other) noexcept : ptr_(std::exchange(other.ptr_, nullptr)) {}
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  Ref(const Ref<U>& other) noexcept : Ref(static_cast<T*>(other.get())) {}  // NOLINT: upcast
  template <typename U, typename = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  Ref(Ref<U>&& other) noexcept : ptr_(static_cast<T*>(other.release())) {}  // NOLINT: upcast
  ~Ref() {
    if (ptr_) ptr_->dec_ref();
  }

  Ref& operator=(Ref other) noexcept {
    std::swap(ptr_, other.ptr_);
    return *this;
  }

  T* get() const noexcept { return ptr_; }
  T* operator->() const noexcept { return ptr_; }
  T& operator*() const noexcept { return *ptr_; }
  explicit operator bool() const noexcept { return ptr_ != nullptr; }
  bool defined() const noexcept { return ptr_ != nullptr; }
  bool same_as(const Ref& other) const noexcept { return ptr_ == other.ptr_; }

  /// Gives up ownership without dropping the reference (for the C boundary).
  T* release() noexcept { return std::exchange(ptr_, nullptr); }

  /// Downcast view: the node as U if it is one, else nullptr.
  template <typename U>
  const U* as() const noexcept {
    return dynamic_cast<const U*>(ptr_);
  }

  friend bool operator==(const Ref& a, const Ref& b) noexcept { return a.ptr_ == b.ptr_; }
  friend bool operator==(const Ref& a, std::nullptr_t) noexcept { return a.ptr_ == nullptr; }

 private:
  T* ptr_ = nullptr;
};

template <typename T, typename... Args>
Ref<T> make_ref(Args&&... args) {
  return Ref<T>(new T(std::forward<Args>(args)...));
}

/// Checked downcast to a Ref of a subclass; null when the node is not a U.
template <typename U, typename T>
Ref<const U> downcast(const Ref<T>& ref) {
  return Ref<const U>(const_cast<U*>(dynamic_cast<const U*>(ref.get())));
}

/// Hash by identity, for unordered containers keyed by nodes.
struct RefHash {
  template <typename T>
  size_t operator()(const Ref<T>& r) const noexcept {
    return std::hash<const void*>()(r.get());
  }
};

}  // namespace weft

#pragma GCC visibility pop
