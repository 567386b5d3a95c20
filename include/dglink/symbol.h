// CP027's global device symbols (shared/seeds/cp027-global-device-symbols.md) as a host
// C++ API that needs no SYCL front end (docs/symbols.md). A symbol<T> or symbol<T[N]> is
// a host global with exactly one host value, named by the unique id of the device global
// that device code declares (the name piextEnqueueDeviceGlobalVariableRead/Write take).
// It is bound to an executable program by a SymbolQueue (a queue and a program, the
// handler of the proposal): every program built from the device code holds its own
// device instance, which copy_to_symbol / copy_from_symbol / update_device /
// update_host / fill move bytes to and from.
//
// Nothing here throws: every failure is a dglink::runtime::Status whose message names
// the symbol. Every operation is complete when it returns (blocking copies on the
// queue, so they also follow the kernels enqueued before them on an in-order queue).
#pragma once

#include <dglink/pi.h>
#include <dglink/runtime.h>

#include <cstddef>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

namespace dglink::runtime {

class SymbolQueue;

namespace detail {

// What the non-template code needs of a symbol: its name, its host value and its shape.
struct SymbolView {
  const std::string *UniqueId = nullptr;
  void *Host = nullptr;
  size_t ElementSize = 0;
  size_t Length = 0; // elements: N for symbol<T[N]>, 1 for symbol<T>
};

template <typename T> struct Identity { using type = T; };
// A parameter that does not take part in deduction (std::type_identity_t of C++20).
template <typename T> using NoDeduce = typename Identity<T>::type;

// T from the symbol constructor's arguments: T(Args...) when T has such a constructor,
// else T{Args...} (aggregates).
template <typename T, typename... Args> T makeValue(Args &&...A) {
  if constexpr (std::is_constructible_v<T, Args &&...>)
    return T(std::forward<Args>(A)...);
  else
    return T{std::forward<Args>(A)...};
}

} // namespace detail

// One global value of type T on the host, with a device instance per program that
// declares the device global UniqueId. Not copyable or movable (it is the variable).
template <typename T> class symbol {
  static_assert(!std::is_reference_v<T>, "T cannot be a reference");
  static_assert(std::is_trivially_copyable_v<T>,
                "a symbol's value travels to and from devices as bytes: T must be trivially "
                "copyable");

public:
  using type = T;
  using const_type = std::add_const_t<T>;
  static constexpr size_t length = 1;

  // UniqueId: the device global's unique id. Args are forwarded to T's constructor (no
  // arguments: T is value-initialised).
  template <typename... Args>
  explicit symbol(std::string UniqueId, Args &&...A)
      : Id(std::move(UniqueId)), Value(detail::makeValue<T>(std::forward<Args>(A)...)) {}
  symbol(const symbol &) = delete;
  symbol(symbol &&) = delete;
  symbol &operator=(const symbol &) = delete;
  symbol &operator=(symbol &&) = delete;
  ~symbol() = default;

  // The host value.
  operator type &() { return Value; }             // NOLINT: implicit, as in CP027
  operator const type &() const { return Value; } // NOLINT: implicit, as in CP027
  symbol &operator=(const T &NewValue) {
    Value = NewValue;
    return *this;
  }
  T *host() { return &Value; }
  const T *host() const { return &Value; }
  const std::string &unique_id() const { return Id; }
  static constexpr size_t size_bytes() { return sizeof(T); }

private:
  friend class SymbolQueue;
  detail::SymbolView view() { return {&Id, &Value, sizeof(T), 1}; }

  std::string Id;
  T Value;
};

// An array of N values of T: element offsets and counts for the copies.
template <typename T, size_t N> class symbol<T[N]> {
  static_assert(!std::is_reference_v<T>, "T cannot be a reference");
  static_assert(std::is_trivially_copyable_v<T>,
                "a symbol's value travels to and from devices as bytes: T must be trivially "
                "copyable");
  static_assert(N > 0, "a symbol array has at least one element");

public:
  using type = T;
  using const_type = std::add_const_t<T>;
  static constexpr size_t length = N;

  // Every element is made from Args (copies of one value made with T's constructor; no
  // arguments: value-initialised).
  template <typename... Args>
  explicit symbol(std::string UniqueId, Args &&...A) : Id(std::move(UniqueId)), Values{} {
    if constexpr (sizeof...(Args) > 0) {
      const T First = detail::makeValue<T>(std::forward<Args>(A)...);
      for (T &Element : Values)
        Element = First;
    }
  }
  symbol(const symbol &) = delete;
  symbol(symbol &&) = delete;
  symbol &operator=(const symbol &) = delete;
  symbol &operator=(symbol &&) = delete;
  ~symbol() = default;

  // The host value: the first element (array-to-pointer decay) and element I.
  operator type *() { return Values; }             // NOLINT: implicit, as in CP027
  operator const_type *() const { return Values; } // NOLINT: implicit, as in CP027
  T &operator[](size_t I) { return Values[I]; }
  const T &operator[](size_t I) const { return Values[I]; }
  T *host() { return Values; }
  const T *host() const { return Values; }
  T *begin() { return Values; }
  T *end() { return Values + N; }
  const T *begin() const { return Values; }
  const T *end() const { return Values + N; }
  const std::string &unique_id() const { return Id; }
  static constexpr size_t size() { return N; }
  static constexpr size_t size_bytes() { return sizeof(T) * N; }

private:
  friend class SymbolQueue;
  detail::SymbolView view() { return {&Id, Values, sizeof(T), N}; }

  std::string Id;
  T Values[N]; // NOLINT: the C array is the symbol's type
};

// A queue and an executable program, bound: the handler of CP027's copy operations.
// The copies go to (or come from) the device instance of a symbol in that program, on the
// device of the queue, through piextEnqueueDeviceGlobalVariableRead/Write (the dispatch
// layer). Before the first copy the binding asks the program for the sizes of the device
// instances its images declare, and every copy of a symbol whose host value has another
// size fails.
//
// The queue and the program are retained while the binding lives (a Program is held).
// One binding may be used by several threads at once.
class DGLINK_RUNTIME_API SymbolQueue {
public:
  SymbolQueue(pi_queue Queue, pi_program Program);
  SymbolQueue(pi_queue Queue, const Program &Built);
  ~SymbolQueue();
  SymbolQueue(SymbolQueue &&Other) noexcept;
  SymbolQueue &operator=(SymbolQueue &&Other) noexcept;
  SymbolQueue(const SymbolQueue &) = delete;
  SymbolQueue &operator=(const SymbolQueue &) = delete;

  pi_queue queue() const;
  pi_program program() const;

  // Host value -> the device instance, and back (the whole value).
  template <typename S> Status update_device(S &Sym) {
    return write(Sym.view(), Sym.host(), S::length, 0);
  }
  template <typename S> Status update_host(S &Sym) {
    return read(Sym.view(), Sym.host(), S::length, 0);
  }

  // A value -> the device instance, and the device instance -> Dst; the host value is
  // left alone.
  template <typename T> Status copy_to_symbol(symbol<T> &Sym, const detail::NoDeduce<T> &Src) {
    return write(Sym.view(), &Src, 1, 0);
  }
  template <typename T> Status copy_from_symbol(symbol<T> &Sym, detail::NoDeduce<T> &Dst) {
    return read(Sym.view(), &Dst, 1, 0);
  }
  // Count elements from Src to elements [Offset, Offset + Count) of the device instance,
  // and back to Dst.
  template <typename T, size_t N>
  Status copy_to_symbol(symbol<T[N]> &Sym, const detail::NoDeduce<T> *Src, size_t Count = N,
                        size_t Offset = 0) {
    return write(Sym.view(), Src, Count, Offset);
  }
  template <typename T, size_t N>
  Status copy_from_symbol(symbol<T[N]> &Sym, detail::NoDeduce<T> *Dst, size_t Count = N,
                          size_t Offset = 0) {
    return read(Sym.view(), Dst, Count, Offset);
  }

  // Every element of the device instance (or Count elements from Offset) set to Value;
  // the host value is left alone.
  template <typename T> Status fill(symbol<T> &Sym, const detail::NoDeduce<T> &Value) {
    return fillElements(Sym.view(), &Value, 1, 0);
  }
  template <typename T, size_t N>
  Status fill(symbol<T[N]> &Sym, const detail::NoDeduce<T> &Value, size_t Count = N,
              size_t Offset = 0) {
    return fillElements(Sym.view(), &Value, Count, Offset);
  }

  // Waits for everything enqueued on the queue (piQueueFinish).
  Status wait();

  // The size in bytes of Sym's device instance in the program, as its images declare it
  // (PI_EXT_PROGRAM_INFO_DEVICE_GLOBALS, asked once per binding); 0 when they do not.
  template <typename S> Expected<size_t> device_size(S &Sym) { return deviceSize(Sym.view()); }

private:
  Status write(const detail::SymbolView &Sym, const void *Src, size_t Count, size_t Offset);
  Status read(const detail::SymbolView &Sym, void *Dst, size_t Count, size_t Offset);
  Status fillElements(const detail::SymbolView &Sym, const void *Element, size_t Count,
                      size_t Offset);
  Expected<size_t> deviceSize(const detail::SymbolView &Sym);

  struct Impl;
  std::unique_ptr<Impl> Self;
};

} // namespace dglink::runtime
