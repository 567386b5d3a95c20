// dglink::runtime::SymbolQueue: CP027's copies of a symbol (include/dglink/symbol.h)
// through the dispatch layer's piextEnqueueDeviceGlobalVariableRead/Write. The checks
// come first, in this order, and a refused copy calls nothing that moves data: the
// binding (queue, program), the host pointer, the element range against the symbol's
// length, then the size of the device instance against the host value's size.
//
// The size of a device instance comes from the program's declared device globals
// (PI_EXT_PROGRAM_INFO_DEVICE_GLOBALS, the images' "SYCL/device globals"), asked once
// per binding. A variable the program does not declare has no size to compare: the
// adapter's own checks (unknown name, range) decide, and their refusal is the symbol's
// error.
#include <dglink/symbol.h>

#include <cstdio>
#include <cstring>
#include <limits>
#include <mutex>
#include <sstream>
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

// The program's declared device globals (PI_EXT_PROGRAM_INFO_DEVICE_GLOBALS): unique id
// -> bytes of the device instance, from lines "<id> <bytes> <scope>".
bool declaredSizes(pi_program Program, std::vector<std::pair<std::string, size_t>> &Out,
                   std::string &Why) {
  size_t Length = 0;
  if (const pi_result Result =
          piProgramGetInfo(Program, PI_EXT_PROGRAM_INFO_DEVICE_GLOBALS, 0, nullptr, &Length);
      Result != PI_SUCCESS) {
    Why = "piProgramGetInfo(PI_EXT_PROGRAM_INFO_DEVICE_GLOBALS) failed: " + lastError();
    return false;
  }
  std::string Text(Length, '\0');
  if (Length != 0 && piProgramGetInfo(Program, PI_EXT_PROGRAM_INFO_DEVICE_GLOBALS, Length,
                                      Text.data(), nullptr) != PI_SUCCESS) {
    Why = "piProgramGetInfo(PI_EXT_PROGRAM_INFO_DEVICE_GLOBALS) failed: " + lastError();
    return false;
  }
  std::istringstream Lines(Text.substr(0, Text.find('\0')));
  std::string Id;
  unsigned long long Bytes = 0;
  int Scope = 0;
  while (Lines >> Id >> Bytes >> Scope)
    Out.emplace_back(Id, static_cast<size_t>(Bytes));
  return true;
}

} // namespace

struct SymbolQueue::Impl {
  pi_queue Queue = nullptr;
  pi_program Handle = nullptr;
  Program Held; // when bound to a runtime Program (keeps it alive)
  bool Retained = false;

  std::mutex Mutex;
  // The program's declared device globals: unique id -> bytes of the device instance,
  // asked once (PI_EXT_PROGRAM_INFO_DEVICE_GLOBALS).
  std::vector<std::pair<std::string, size_t>> DeviceSizes;
  bool SizesKnown = false;

  ~Impl() {
    if (Queue != nullptr)
      piQueueRelease(Queue);
    if (Retained)
      piProgramRelease(Handle);
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
  std::lock_guard<std::mutex> Lock(Self->Mutex);
  if (!Self->SizesKnown) {
    std::string Why;
    if (!declaredSizes(program(), Self->DeviceSizes, Why))
      return failure(PI_ERROR_INVALID_PROGRAM, Sym, Why);
    Self->SizesKnown = true;
  }
  for (const auto &[Known, Bytes] : Self->DeviceSizes)
    if (Known == *Sym.UniqueId)
      return Bytes;
  return size_t(0); // not declared: the adapter's own checks decide
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
  if (*DeviceSize != 0 && *DeviceSize != HostBytes)
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
