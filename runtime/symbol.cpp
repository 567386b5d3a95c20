// dglink::runtime::SymbolQueue: CP027's copies of a symbol (include/dglink/symbol.h)
// through the dispatch layer's piextEnqueueDeviceGlobalVariableRead/Write. The checks
// come first, in this order, and a refused copy calls nothing that moves data: the
// binding (queue, program), the host pointer, the element range against the symbol's
// length, then the size of the device instance against the host value's size.
//
// PI has no query for the size of a device global, so the binding learns it once per
// unique id from the adapter core's range check: a read at an offset past any variable
// is refused before anything is enqueued, with the message "... is past its size of
// <bytes> bytes" (common/support/include/dglink/support/validate.h). A refusal without
// that sentence (an unknown name, a program that is not built) is the symbol's error.
#include <dglink/symbol.h>

#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>
#include <utility>
#include <vector>

namespace dglink::runtime {

namespace {

std::string lastError() {
  char *Message = nullptr; // piPluginGetLastError returns the failed call's code
  piPluginGetLastError(&Message);
  return Message == nullptr ? "" : Message;
}

std::string pointerText(const void *Pointer) {
  char Text[32];
  std::snprintf(Text, sizeof(Text), "%p", Pointer);
  return Text;
}

std::string symbolText(const detail::SymbolView &Sym) {
  return "symbol '" + (Sym.UniqueId != nullptr ? *Sym.UniqueId : std::string()) + "'";
}

Status failure(pi_result Code, const detail::SymbolView &Sym, const std::string &What) {
  return Status{Code, symbolText(Sym) + ": " + What};
}

// The size the adapter core states when it refuses a range ("past its size of N bytes").
bool sizeFromRangeError(const std::string &Message, size_t &Size) {
  static const std::string Marker = "past its size of ";
  const size_t At = Message.find(Marker);
  if (At == std::string::npos)
    return false;
  size_t Value = 0;
  size_t Digits = 0;
  for (size_t I = At + Marker.size(); I < Message.size() && Message[I] >= '0' && Message[I] <= '9';
       ++I, ++Digits) {
    if (Value > (std::numeric_limits<size_t>::max() - 9) / 10)
      return false;
    Value = Value * 10 + static_cast<size_t>(Message[I] - '0');
  }
  if (Digits == 0)
    return false;
  Size = Value;
  return true;
}

} // namespace

struct SymbolQueue::Impl {
  pi_queue Queue = nullptr;
  pi_program Handle = nullptr;
  Program Held; // when bound to a runtime Program (keeps it alive)
  bool Retained = false;

  std::mutex Mutex;
  std::vector<std::pair<std::string, size_t>> DeviceSizes; // unique id -> bytes

  ~Impl() {
    if (Queue != nullptr)
      piQueueRelease(Queue);
    if (Retained)
      piProgramRelease(Handle);
  }

  bool knownSize(const std::string &Id, size_t &Size) {
    std::lock_guard<std::mutex> Lock(Mutex);
    for (const auto &[Known, Bytes] : DeviceSizes)
      if (Known == Id) {
        Size = Bytes;
        return true;
      }
    return false;
  }
  void remember(const std::string &Id, size_t Size) {
    std::lock_guard<std::mutex> Lock(Mutex);
    for (const auto &Entry : DeviceSizes)
      if (Entry.first == Id)
        return;
    DeviceSizes.emplace_back(Id, Size);
  }
};

SymbolQueue::SymbolQueue(pi_queue Queue, pi_program Program) : Self(std::make_unique<Impl>()) {
  if (Queue != nullptr && piQueueRetain(Queue) == PI_SUCCESS)
    Self->Queue = Queue;
  if (Program != nullptr && piProgramRetain(Program) == PI_SUCCESS) {
    Self->Handle = Program;
    Self->Retained = true;
  }
}

SymbolQueue::SymbolQueue(pi_queue Queue, const Program &Built) : Self(std::make_unique<Impl>()) {
  if (Queue != nullptr && piQueueRetain(Queue) == PI_SUCCESS)
    Self->Queue = Queue;
  Self->Held = Built;
  Self->Handle = Built ? Built.get() : nullptr;
}

SymbolQueue::~SymbolQueue() = default;
SymbolQueue::SymbolQueue(SymbolQueue &&Other) noexcept = default;
SymbolQueue &SymbolQueue::operator=(SymbolQueue &&Other) noexcept = default;

pi_queue SymbolQueue::queue() const { return Self ? Self->Queue : nullptr; }
pi_program SymbolQueue::program() const { return Self ? Self->Handle : nullptr; }

Status SymbolQueue::wait() {
  if (queue() == nullptr)
    return Status{PI_ERROR_INVALID_QUEUE, "SymbolQueue::wait: the binding has no queue"};
  const pi_result Result = piQueueFinish(queue());
  if (Result != PI_SUCCESS)
    return Status{Result, "SymbolQueue::wait: " + lastError()};
  return {};
}

Expected<size_t> SymbolQueue::deviceSize(const detail::SymbolView &Sym) {
  if (queue() == nullptr)
    return failure(PI_ERROR_INVALID_QUEUE, Sym, "the binding has no queue");
  if (program() == nullptr)
    return failure(PI_ERROR_INVALID_PROGRAM, Sym, "the binding has no program");
  size_t Size = 0;
  if (Self->knownSize(*Sym.UniqueId, Size))
    return Size;
  // A read that the range check refuses before anything is enqueued: Scratch is never
  // written, whatever the variable's host access.
  unsigned char Scratch = 0;
  const pi_result Result = piextEnqueueDeviceGlobalVariableRead(
      queue(), program(), Sym.UniqueId->c_str(), PI_TRUE, 1, std::numeric_limits<size_t>::max(),
      &Scratch, 0, nullptr, nullptr);
  if (Result == PI_SUCCESS)
    return failure(PI_ERROR_UNKNOWN, Sym,
                   "the adapter accepted a read past the end of any variable, so the size of "
                   "the device instance is unknown");
  const std::string Message = lastError();
  if (Result != PI_ERROR_INVALID_VALUE || !sizeFromRangeError(Message, Size))
    return failure(Result, Sym, Message);
  Self->remember(*Sym.UniqueId, Size);
  return Size;
}

namespace {

// Everything a copy checks before it moves a byte. Status with Code PI_SUCCESS: go on.
Status checkRange(const detail::SymbolView &Sym, const void *Host, const char *HostName,
                  size_t Count, size_t Offset) {
  if (Offset > Sym.Length)
    return failure(PI_ERROR_INVALID_VALUE, Sym,
                   "offset " + std::to_string(Offset) + " is past its " +
                       std::to_string(Sym.Length) + " elements");
  if (Count > Sym.Length - Offset)
    return failure(PI_ERROR_INVALID_VALUE, Sym,
                   "offset " + std::to_string(Offset) + " + count " + std::to_string(Count) +
                       " is past its " + std::to_string(Sym.Length) + " elements");
  if (Count > 0 && Host == nullptr)
    return failure(PI_ERROR_INVALID_VALUE, Sym, std::string(HostName) + " is null");
  return {};
}

// The host value and the device instance have the same size.
Status sameSize(const detail::SymbolView &Sym, const Expected<size_t> &DeviceSize,
                pi_program Program) {
  if (!DeviceSize.ok())
    return DeviceSize.status();
  const size_t HostBytes = Sym.ElementSize * Sym.Length;
  if (*DeviceSize != HostBytes)
    return failure(PI_ERROR_INVALID_BUFFER_SIZE, Sym,
                   "the host value has " + std::to_string(HostBytes) +
                       " bytes but its device instance in program " + pointerText(Program) +
                       " has " + std::to_string(*DeviceSize) + " bytes");
  return {};
}

} // namespace

Status SymbolQueue::write(const detail::SymbolView &Sym, const void *Src, size_t Count,
                          size_t Offset) {
  if (Status Checked = checkRange(Sym, Src, "the source", Count, Offset); !Checked.ok())
    return Checked;
  if (Status Sized = sameSize(Sym, deviceSize(Sym), program()); !Sized.ok())
    return Sized;
  if (Count == 0)
    return {};
  const pi_result Result = piextEnqueueDeviceGlobalVariableWrite(
      queue(), program(), Sym.UniqueId->c_str(), PI_TRUE, Count * Sym.ElementSize,
      Offset * Sym.ElementSize, Src, 0, nullptr, nullptr);
  if (Result != PI_SUCCESS)
    return failure(Result, Sym, lastError());
  return {};
}

Status SymbolQueue::read(const detail::SymbolView &Sym, void *Dst, size_t Count, size_t Offset) {
  if (Status Checked = checkRange(Sym, Dst, "the destination", Count, Offset); !Checked.ok())
    return Checked;
  if (Status Sized = sameSize(Sym, deviceSize(Sym), program()); !Sized.ok())
    return Sized;
  if (Count == 0)
    return {};
  const pi_result Result = piextEnqueueDeviceGlobalVariableRead(
      queue(), program(), Sym.UniqueId->c_str(), PI_TRUE, Count * Sym.ElementSize,
      Offset * Sym.ElementSize, Dst, 0, nullptr, nullptr);
  if (Result != PI_SUCCESS)
    return failure(Result, Sym, lastError());
  return {};
}

Status SymbolQueue::fillElements(const detail::SymbolView &Sym, const void *Element, size_t Count,
                                 size_t Offset) {
  if (Status Checked = checkRange(Sym, Element, "the value", Count, Offset); !Checked.ok())
    return Checked;
  std::vector<unsigned char> Pattern(Count * Sym.ElementSize);
  for (size_t I = 0; I < Count; ++I)
    std::memcpy(Pattern.data() + I * Sym.ElementSize, Element, Sym.ElementSize);
  return write(Sym, Pattern.data(), Count, Offset);
}

} // namespace dglink::runtime
