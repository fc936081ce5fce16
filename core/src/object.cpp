// Iterative destruction of reference-counted objects.
#include "weft/object.h"

#include <vector>

namespace weft {

namespace {
// Objects whose last reference dropped while another object was being
// destroyed on this thread. It lives on the outermost destroy()'s frame, so the
// thread_local is a plain pointer with nothing to tear down at thread exit
// (objects held by statics are destroyed after thread_locals are gone).
thread_local std::vector<const Object*>* t_pending = nullptr;
}  // namespace

void Object::destroy(const Object* obj) noexcept {
  if (t_pending) {
    // A destructor up the stack is releasing its children: defer, don't recurse.
    t_pending->push_back(obj);
    return;
  }
  std::vector<const Object*> pending;
  t_pending = &pending;
  delete obj;
  while (!pending.empty()) {
    const Object* next = pending.back();
    pending.pop_back();
    delete next;
  }
  t_pending = nullptr;
}

}  // namespace weft
