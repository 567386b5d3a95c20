// RAII owners of PI handles, so that a failed assertion in the middle of a
// scenario still releases what it created and the next scenario starts clean.
#pragma once

#include <dglink/pi.h>

#include <utility>

namespace dglink::conformance {

// Owns one reference to Handle and releases it with Release.
template <typename Handle, pi_result (*Release)(Handle)> class UniqueHandle {
public:
  UniqueHandle() = default;
  explicit UniqueHandle(Handle H) : Value(H) {}
  UniqueHandle(const UniqueHandle &) = delete;
  UniqueHandle &operator=(const UniqueHandle &) = delete;
  UniqueHandle(UniqueHandle &&Other) noexcept : Value(std::exchange(Other.Value, nullptr)) {}
  UniqueHandle &operator=(UniqueHandle &&Other) noexcept {
    if (this != &Other) {
      reset();
      Value = std::exchange(Other.Value, nullptr);
    }
    return *this;
  }
  ~UniqueHandle() { reset(); }

  Handle get() const { return Value; }
  explicit operator bool() const { return Value != nullptr; }
  // For entry points that return a new handle through a pointer: the previous
  // one is released first.
  Handle *out() {
    reset();
    return &Value;
  }
  void reset() {
    if (Value != nullptr)
      Release(std::exchange(Value, nullptr));
  }
  Handle release() { return std::exchange(Value, nullptr); }

private:
  Handle Value = nullptr;
};

using ContextHandle = UniqueHandle<pi_context, piContextRelease>;
using QueueHandle = UniqueHandle<pi_queue, piQueueRelease>;
using MemHandle = UniqueHandle<pi_mem, piMemRelease>;
using ProgramHandle = UniqueHandle<pi_program, piProgramRelease>;
using KernelHandle = UniqueHandle<pi_kernel, piKernelRelease>;
using EventHandle = UniqueHandle<pi_event, piEventRelease>;

// A USM allocation, freed in its context.
class UsmPointer {
public:
  UsmPointer() = default;
  UsmPointer(const UsmPointer &) = delete;
  UsmPointer &operator=(const UsmPointer &) = delete;
  ~UsmPointer() { reset(); }

  void *get() const { return Pointer; }
  // For piextUSM*Alloc: the allocation will be freed in Context.
  void **out(pi_context Context) {
    reset();
    Owner = Context;
    return &Pointer;
  }
  void reset() {
    if (Pointer != nullptr)
      piextUSMFree(Owner, std::exchange(Pointer, nullptr));
  }

private:
  pi_context Owner = nullptr;
  void *Pointer = nullptr;
};

} // namespace dglink::conformance
