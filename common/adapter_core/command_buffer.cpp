// Command buffers: commands checked and captured at append time, replayed in append
// order on a queue at each submission (command_buffer.h says why that order is enough).
#include "entry.h"

#include <dglink/core/command_buffer.h>

#include <algorithm>
#include <cstring>
#include <iterator>

using namespace dglink::core;

namespace {

// The handles a command holds alive, released with it.
class Holds {
public:
  Holds() = default;
  Holds(const Holds &) = delete;
  Holds &operator=(const Holds &) = delete;
  ~Holds() {
    for (_pi_mem *Buffer : Buffers)
      release(Buffer);
    if (Kernel != nullptr)
      release(Kernel);
  }
  void hold(_pi_mem *Buffer) {
    Buffers.reserve(Buffers.size() + 1);
    retain(Buffer);
    Buffers.push_back(Buffer);
  }
  // Releases one of the holds on Buffer (an argument an update replaced).
  void drop(_pi_mem *Buffer) {
    const auto Found = std::find(Buffers.begin(), Buffers.end(), Buffer);
    if (Found == Buffers.end())
      return;
    Buffers.erase(Found);
    release(Buffer);
  }
  _pi_kernel *Kernel = nullptr; // owned: the command's private kernel

private:
  std::vector<_pi_mem *> Buffers;
};

class KernelLaunch final : public RecordedCommand {
public:
  ~KernelLaunch() override {
    for (_pi_kernel *Kernel : Alternatives)
      release(Kernel);
  }
  pi_result replay(_pi_queue &Queue) override {
    return piEnqueueKernelLaunch(&Queue, Held->Kernel, WorkDim, HasOffset ? Offset : nullptr,
                                 Global, HasLocal ? Local : nullptr, 0, nullptr, nullptr);
  }
  pi_command_type type() const override { return PI_COMMAND_TYPE_NDRANGE_KERNEL; }
  std::unique_ptr<Holds> Held = std::make_unique<Holds>();
  // Updatable command buffers: the kernel appended and its alternatives (retained), the
  // one the command runs now, and the private kernels (with their arguments) of those it
  // ran before, kept for a return to them (null where one never ran).
  std::vector<_pi_kernel *> Alternatives;
  std::vector<std::unique_ptr<Holds>> Parked;
  _pi_kernel *Selected = nullptr;
  pi_uint32 WorkDim = 1;
  size_t Offset[3] = {0, 0, 0};
  size_t Global[3] = {1, 1, 1};
  size_t Local[3] = {1, 1, 1};
  bool HasOffset = false, HasLocal = false;
};

class UsmCopy final : public RecordedCommand {
public:
  UsmCopy(void *To, const void *From, size_t Bytes) : Dst(To), Src(From), Size(Bytes) {}
  pi_result replay(_pi_queue &Queue) override {
    return piextUSMEnqueueMemcpy(&Queue, PI_FALSE, Dst, Src, Size, 0, nullptr, nullptr);
  }
  pi_command_type type() const override { return PI_COMMAND_TYPE_USM_MEMCPY; }

private:
  void *Dst;
  const void *Src;
  size_t Size;
};

class UsmFill final : public RecordedCommand {
public:
  UsmFill(void *To, const void *Bytes, size_t PatternSize, size_t FillSize)
      : Ptr(To), Pattern(static_cast<const uint8_t *>(Bytes),
                         static_cast<const uint8_t *>(Bytes) + PatternSize),
        Size(FillSize) {}
  pi_result replay(_pi_queue &Queue) override {
    return piextUSMEnqueueFill(&Queue, Ptr, Pattern.data(), Pattern.size(), Size, 0, nullptr,
                               nullptr);
  }
  pi_command_type type() const override { return PI_COMMAND_TYPE_USM_FILL; }

private:
  void *Ptr;
  std::vector<uint8_t> Pattern;
  size_t Size;
};

class UsmHint final : public RecordedCommand {
public:
  UsmHint(const char *Caller, const void *At, size_t Bytes, bool IsPrefetch, UsmMigration Where,
          uint32_t AdviceBits)
      : Function(Caller), Ptr(At), Size(Bytes), Prefetch(IsPrefetch), To(Where),
        Advice(AdviceBits) {}
  pi_result replay(_pi_queue &Queue) override {
    if (Prefetch)
      return enqueueUsmPrefetch(Function, &Queue, Ptr, Size, To, 0, nullptr, nullptr);
    return enqueueUsmAdvise(Function, &Queue, Ptr, Size, Advice, nullptr);
  }
  pi_command_type type() const override {
    return Prefetch ? PI_COMMAND_TYPE_USM_PREFETCH : PI_COMMAND_TYPE_USM_ADVISE;
  }

private:
  const char *Function;
  const void *Ptr;
  size_t Size;
  bool Prefetch;
  UsmMigration To;
  uint32_t Advice;
};

class BufferCopy final : public RecordedCommand {
public:
  pi_result replay(_pi_queue &Queue) override {
    return piEnqueueMemBufferCopy(&Queue, Src, Dst, SrcOffset, DstOffset, Size, 0, nullptr,
                                  nullptr);
  }
  pi_command_type type() const override { return PI_COMMAND_TYPE_MEM_BUFFER_COPY; }
  Holds Held;
  _pi_mem *Src = nullptr, *Dst = nullptr;
  size_t SrcOffset = 0, DstOffset = 0, Size = 0;
};

// A buffer read or write: host memory the caller keeps.
class BufferAccess final : public RecordedCommand {
public:
  pi_result replay(_pi_queue &Queue) override {
    if (Read)
      return piEnqueueMemBufferRead(&Queue, Buffer, PI_FALSE, Offset, Size, Host, 0, nullptr,
                                    nullptr);
    return piEnqueueMemBufferWrite(&Queue, Buffer, PI_FALSE, Offset, Size, Host, 0, nullptr,
                                   nullptr);
  }
  pi_command_type type() const override {
    return Read ? PI_COMMAND_TYPE_MEM_BUFFER_READ : PI_COMMAND_TYPE_MEM_BUFFER_WRITE;
  }
  Holds Held;
  bool Read = false;
  _pi_mem *Buffer = nullptr;
  size_t Offset = 0, Size = 0;
  void *Host = nullptr;
};

class BufferFill final : public RecordedCommand {
public:
  pi_result replay(_pi_queue &Queue) override {
    return piEnqueueMemBufferFill(&Queue, Buffer, Pattern.data(), Pattern.size(), Offset, Size, 0,
                                  nullptr, nullptr);
  }
  pi_command_type type() const override { return PI_COMMAND_TYPE_MEM_BUFFER_FILL; }
  Holds Held;
  _pi_mem *Buffer = nullptr;
  std::vector<uint8_t> Pattern;
  size_t Offset = 0, Size = 0;
};

// A rectangle between two buffers or a buffer and host memory, as
// piEnqueueMemBuffer{Read,Write,Copy}Rect take it.
class BufferRect final : public RecordedCommand {
public:
  enum class Kind { Read, Write, Copy };
  pi_result replay(_pi_queue &Queue) override {
    switch (Type) {
    case Kind::Read:
      return piEnqueueMemBufferReadRect(&Queue, Src, PI_FALSE, &SrcOrigin, &DstOrigin, &Region,
                                        SrcRowPitch, SrcSlicePitch, DstRowPitch, DstSlicePitch,
                                        Host, 0, nullptr, nullptr);
    case Kind::Write:
      return piEnqueueMemBufferWriteRect(&Queue, Dst, PI_FALSE, &DstOrigin, &SrcOrigin, &Region,
                                         DstRowPitch, DstSlicePitch, SrcRowPitch, SrcSlicePitch,
                                         Host, 0, nullptr, nullptr);
    case Kind::Copy:
      break;
    }
    return piEnqueueMemBufferCopyRect(&Queue, Src, Dst, &SrcOrigin, &DstOrigin, &Region,
                                      SrcRowPitch, SrcSlicePitch, DstRowPitch, DstSlicePitch, 0,
                                      nullptr, nullptr);
  }
  pi_command_type type() const override {
    switch (Type) {
    case Kind::Read:
      return PI_COMMAND_TYPE_MEM_BUFFER_READ_RECT;
    case Kind::Write:
      return PI_COMMAND_TYPE_MEM_BUFFER_WRITE_RECT;
    case Kind::Copy:
      break;
    }
    return PI_COMMAND_TYPE_MEM_BUFFER_COPY_RECT;
  }
  Holds Held;
  Kind Type = Kind::Copy;
  _pi_mem *Src = nullptr, *Dst = nullptr; // the buffer side(s)
  void *Host = nullptr;                   // Read: destination, Write: source
  pi_buff_rect_offset_struct SrcOrigin{}, DstOrigin{};
  pi_buff_rect_region_struct Region{};
  size_t SrcRowPitch = 0, SrcSlicePitch = 0, DstRowPitch = 0, DstSlicePitch = 0;
};

pi_result notNull(const char *Function, const void *Pointer, const char *Argument) {
  if (Pointer == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: argument '{}' is null", Function, Argument);
  return PI_SUCCESS;
}

pi_result checkCommandBuffer(const char *Function, _pi_command_buffer *CommandBuffer) {
  return checkHandle(CommandBuffer, PI_ERROR_INVALID_COMMAND_BUFFER_KHR, Function, "CommandBuffer");
}

// The command buffer is live and still recording.
pi_result checkRecording(const char *Function, _pi_command_buffer *CommandBuffer) {
  DGLINK_TRY(checkCommandBuffer(Function, CommandBuffer));
  if (CommandBuffer->Finalized.load(std::memory_order_acquire))
    return dglink::fail(PI_ERROR_INVALID_OPERATION,
                        "{}: the command buffer is finalized: no command can be appended",
                        Function);
  return PI_SUCCESS;
}

// A buffer argument: live, of the command buffer's context.
pi_result checkBuffer(const char *Function, const _pi_command_buffer &CommandBuffer, pi_mem Buffer,
                      const char *Argument) {
  DGLINK_TRY(checkHandle(Buffer, PI_ERROR_INVALID_MEM_OBJECT, Function, Argument));
  if (Buffer->Context != CommandBuffer.Context)
    return dglink::fail(PI_ERROR_INVALID_MEM_OBJECT,
                        "{}: buffer '{}' belongs to another context than the command buffer",
                        Function, Argument);
  return PI_SUCCESS;
}

// A wait list of a command: live events, of the command buffer's context.
pi_result checkCommandWaits(const char *Function, const _pi_command_buffer &CommandBuffer,
                            pi_uint32 NumEvents, const pi_event *Events) {
  DGLINK_TRY(checkWaitList(NumEvents, Events));
  for (pi_uint32 I = 0; I < NumEvents; ++I)
    if (Events[I]->Context != CommandBuffer.Context)
      return dglink::fail(PI_ERROR_INVALID_EVENT_WAIT_LIST,
                          "{}: event {} of the wait list belongs to another context than the "
                          "command buffer",
                          Function, I);
  return PI_SUCCESS;
}

// A command's event, not yet of any execution.
_pi_event *makeCommandEvent(_pi_command_buffer &CommandBuffer, pi_command_type Type) {
  std::unique_ptr<_pi_event> Event = makeHandle<_pi_event>();
  Event->Impl = std::make_unique<CommandEventImpl>();
  Event->Context = CommandBuffer.Context;
  Event->Command = Type;
  Event->OfCommand = true;
  retain(CommandBuffer.Context);
  return Event.release();
}

// Adds Command as the next command: checks, under the command buffer's mutex, that it
// still records and that every sync point names a command appended before; gives it its
// wait list, event and handle as Waits asks.
pi_result record(const char *Function, _pi_command_buffer &CommandBuffer,
                 std::unique_ptr<RecordedCommand> Command, const SyncPoints &Waits) {
  if (Waits.Command != nullptr && !CommandBuffer.Updatable)
    return dglink::fail(PI_ERROR_INVALID_OPERATION,
                        "{}: a command handle is asked for but the command buffer is not "
                        "updatable",
                        Function);
  DGLINK_TRY(checkCommandWaits(Function, CommandBuffer, Waits.NumEvents, Waits.Events));
  std::unique_ptr<CommandHandle> Handle;
  if (Waits.Command != nullptr) {
    Handle = makeHandle<CommandHandle>();
    Handle->CommandBuffer = &CommandBuffer;
    Handle->Command = Command.get();
  }
  Command->Waits.reserve(Waits.NumEvents);
  if (Waits.Event != nullptr)
    Command->Signal = makeCommandEvent(CommandBuffer, Command->type()); // released with Command

  const std::lock_guard<std::mutex> Lock(CommandBuffer.Mutex);
  if (CommandBuffer.Finalized.load(std::memory_order_relaxed))
    return dglink::fail(PI_ERROR_INVALID_OPERATION,
                        "{}: the command buffer is finalized: no command can be appended",
                        Function);
  const size_t Appended = CommandBuffer.Commands.size();
  if (!CommandBuffer.InOrder)
    for (pi_uint32 I = 0; I < Waits.Count; ++I)
      if (Waits.List[I] >= Appended)
        return dglink::fail(PI_ERROR_INVALID_SYNC_POINT_WAIT_LIST_KHR,
                            "{}: sync point {} (entry {} of the wait list) names no command: {} "
                            "were appended before",
                            Function, Waits.List[I], I, Appended);
  CommandBuffer.Commands.reserve(Appended + 1);
  // Nothing fails from here on.
  for (pi_uint32 I = 0; I < Waits.NumEvents; ++I) {
    retain(Waits.Events[I]);
    Command->Waits.push_back(Waits.Events[I]);
  }
  if (Waits.Event != nullptr) {
    retain(Command->Signal);
    *Waits.Event = Command->Signal;
  }
  if (Handle != nullptr) {
    Command->Handle = Handle.release();
    *Waits.Command = Command->Handle;
  }
  CommandBuffer.Commands.push_back(std::move(Command));
  if (Waits.Out != nullptr)
    *Waits.Out = static_cast<pi_uint32>(Appended);
  return PI_SUCCESS;
}

// Sets one captured argument on the private kernel of Held, which holds its buffer.
pi_result applyArgument(const char *Function, _pi_command_buffer &CommandBuffer, Holds &Held,
                        pi_uint32 Index, const KernelArgument &Argument) {
  KernelImpl &Impl = *Held.Kernel->Impl;
  switch (Argument.Type) {
  case KernelArgument::Kind::Value:
    return Impl.setArgument(Function, Index, Argument.Bytes.size(), Argument.Bytes.data());
  case KernelArgument::Kind::Pointer:
    return Impl.setPointerArgument(Function, Index, Argument.Bytes.size(), Argument.Bytes.data());
  case KernelArgument::Kind::Local:
    return Impl.setArgument(Function, Index, Argument.LocalSize, nullptr);
  case KernelArgument::Kind::Buffer:
    break;
  }
  if (Argument.Buffer != nullptr) {
    const std::string Name = fmt::format("argument {}", Index);
    DGLINK_TRY(checkBuffer(Function, CommandBuffer, Argument.Buffer, Name.c_str()));
    Held.hold(Argument.Buffer);
  }
  return Impl.setBufferArgument(Function, Index, Argument.Buffer);
}

// A private kernel of Kernel's program and name in Held, with Kernel's arguments as set
// now, Arguments (may be null) replacing those of their indices.
pi_result privateKernel(const char *Function, _pi_command_buffer &CommandBuffer, _pi_kernel &Kernel,
                        const std::vector<std::pair<pi_uint32, KernelArgument>> *Arguments,
                        Holds &Held) {
  std::map<pi_uint32, KernelArgument> Captured;
  {
    const std::lock_guard<std::mutex> Lock(Kernel.ArgumentsMutex);
    Captured = Kernel.Arguments;
  }
  if (Arguments != nullptr)
    for (const auto &[Index, Argument] : *Arguments)
      Captured.insert_or_assign(Index, Argument);
  _pi_program &Program = *Kernel.Program;
  {
    std::unique_ptr<_pi_kernel> Private = makeHandle<_pi_kernel>();
    Private->Program = &Program;
    Private->Name = Kernel.Name;
    DGLINK_TRY(Program.Impl->createKernel(Program, Kernel.Name.c_str(), Private->Impl));
    retain(&Program);
    Held.Kernel = Private.release();
  }
  for (const auto &[Index, Argument] : Captured)
    DGLINK_TRY(applyArgument(Function, CommandBuffer, Held, Index, Argument));
  Held.Kernel->Arguments = std::move(Captured);
  return PI_SUCCESS;
}

// A kernel of the command buffer's context and device.
pi_result checkKernel(const char *Function, const _pi_command_buffer &CommandBuffer,
                      pi_kernel Kernel, const char *Argument) {
  DGLINK_TRY(checkHandle(Kernel, PI_ERROR_INVALID_KERNEL, Function, Argument));
  const _pi_program &Program = *Kernel->Program;
  if (Program.Context != CommandBuffer.Context || !Program.hasDevice(CommandBuffer.Device))
    return dglink::fail(PI_ERROR_INVALID_KERNEL,
                        "{}: kernel '{}' is not of the command buffer's context and device '{}'",
                        Function, dglink::clip(Kernel->Name),
                        CommandBuffer.Device->Description.Name);
  return PI_SUCCESS;
}

} // namespace

namespace dglink::core {

RecordedCommand::~RecordedCommand() {
  for (_pi_event *Event : Waits)
    release(Event);
  if (Signal != nullptr)
    release(Signal);
  if (Handle != nullptr)
    release(Handle);
}

CommandEventImpl::~CommandEventImpl() {
  if (Current != nullptr)
    release(Current);
}

_pi_event *CommandEventImpl::current() const {
  const std::lock_guard<std::mutex> Lock(Mutex);
  if (Current != nullptr)
    retain(Current);
  return Current;
}

void CommandEventImpl::follow(_pi_event *Execution) {
  _pi_event *Previous = nullptr;
  {
    const std::lock_guard<std::mutex> Lock(Mutex);
    Previous = Current;
    Current = Execution;
  }
  if (Previous != nullptr)
    release(Previous);
}

pi_result CommandEventImpl::wait() {
  _pi_event *Execution = current();
  if (Execution == nullptr)
    return PI_SUCCESS;
  const pi_result Result = Execution->Impl->wait();
  release(Execution);
  return Result;
}

pi_result CommandEventImpl::status(pi_int32 &Status) {
  _pi_event *Execution = current();
  Status = PI_EVENT_COMPLETE;
  if (Execution == nullptr)
    return PI_SUCCESS;
  const pi_result Result = Execution->Impl->status(Status);
  release(Execution);
  return Result;
}

pi_result CommandEventImpl::profilingInfo(pi_profiling_info Point, pi_uint64 &Nanoseconds) {
  _pi_event *Execution = current();
  if (Execution == nullptr)
    return dglink::fail(PI_ERROR_PROFILING_INFO_NOT_AVAILABLE,
                        "the command buffer's command has not run yet");
  const pi_result Result = Execution->Impl->profilingInfo(Point, Nanoseconds);
  release(Execution);
  return Result;
}

bool CommandEventImpl::nativeHandle(uintptr_t &Out) const {
  _pi_event *Execution = current();
  if (Execution == nullptr)
    return false;
  const bool Found = Execution->Impl->nativeHandle(Out);
  release(Execution);
  return Found;
}

_pi_event *currentExecution(_pi_event &Event) {
  return static_cast<CommandEventImpl &>(*Event.Impl).current();
}

void dropCommands(_pi_command_buffer &CommandBuffer) {
  // UR's release blocks until the command buffer's submissions completed; they are
  // serialized, so the last one completes after all others.
  if (_pi_event *Last = CommandBuffer.LastSubmission; Last != nullptr) {
    if (Last->Impl != nullptr)
      (void)Last->Impl->wait(); // a failed wait: the driver reported the error already
    release(Last);
    CommandBuffer.LastSubmission = nullptr;
  }
  CommandBuffer.Commands.clear();
}

pi_result createCommandBuffer(const char *Function, pi_context Context, pi_device Device,
                              bool InOrder, bool Profiling, bool Updatable,
                              _pi_command_buffer **Out) {
  DGLINK_TRY(checkHandle(Context, PI_ERROR_INVALID_CONTEXT, Function, "Context"));
  DGLINK_TRY(checkHandle(Device, PI_ERROR_INVALID_DEVICE, Function, "Device"));
  if (!Context->hasDevice(Device))
    return dglink::fail(PI_ERROR_INVALID_DEVICE, "{}: device '{}' is not a device of the context",
                        Function, Device->Description.Name);
  std::unique_ptr<_pi_command_buffer> CommandBuffer = makeHandle<_pi_command_buffer>();
  CommandBuffer->Context = Context;
  CommandBuffer->Device = Device;
  CommandBuffer->InOrder = InOrder;
  CommandBuffer->Profiling = Profiling;
  CommandBuffer->Updatable = Updatable;
  retain(Context);
  *Out = CommandBuffer.release();
  return PI_SUCCESS;
}

pi_result retainCommandBuffer(const char *Function, _pi_command_buffer *CommandBuffer) {
  DGLINK_TRY(checkCommandBuffer(Function, CommandBuffer));
  retain(CommandBuffer);
  return PI_SUCCESS;
}

pi_result releaseCommandBuffer(const char *Function, _pi_command_buffer *CommandBuffer) {
  DGLINK_TRY(checkCommandBuffer(Function, CommandBuffer));
  release(CommandBuffer);
  return PI_SUCCESS;
}

pi_result finalizeCommandBuffer(const char *Function, _pi_command_buffer *CommandBuffer) {
  DGLINK_TRY(checkCommandBuffer(Function, CommandBuffer));
  const std::lock_guard<std::mutex> Lock(CommandBuffer->Mutex);
  if (CommandBuffer->Finalized.exchange(true, std::memory_order_acq_rel))
    return dglink::fail(PI_ERROR_INVALID_OPERATION, "{}: the command buffer is finalized already",
                        Function);
  return PI_SUCCESS;
}

pi_result appendKernelLaunch(const char *Function, _pi_command_buffer *CommandBuffer,
                             pi_kernel Kernel, pi_uint32 WorkDim, const size_t *GlobalWorkOffset,
                             const size_t *GlobalWorkSize, const size_t *LocalWorkSize,
                             const std::map<pi_uint32, KernelArgument> *Arguments,
                             pi_uint32 NumAlternatives, const pi_kernel *Alternatives,
                             const SyncPoints &Waits) {
  DGLINK_TRY(checkRecording(Function, CommandBuffer));
  DGLINK_TRY(checkKernel(Function, *CommandBuffer, Kernel, "Kernel"));
  for (pi_uint32 I = 0; I < NumAlternatives; ++I) {
    const std::string Name = fmt::format("kernel alternative {}", I);
    DGLINK_TRY(checkKernel(Function, *CommandBuffer, Alternatives[I], Name.c_str()));
  }
  LaunchShape Shape;
  DGLINK_TRY(checkLaunch(Function, *CommandBuffer->Device, *Kernel, WorkDim, GlobalWorkOffset,
                         GlobalWorkSize, LocalWorkSize, Shape));
  std::vector<std::pair<pi_uint32, KernelArgument>> Given;
  if (Arguments != nullptr)
    Given.assign(Arguments->begin(), Arguments->end());
  auto Launch = std::make_unique<KernelLaunch>();
  DGLINK_TRY(privateKernel(Function, *CommandBuffer, *Kernel, &Given, *Launch->Held));
  Launch->WorkDim = WorkDim;
  for (pi_uint32 D = 0; D < WorkDim; ++D) {
    Launch->Global[D] = GlobalWorkSize[D];
    if (GlobalWorkOffset != nullptr)
      Launch->Offset[D] = GlobalWorkOffset[D];
    if (LocalWorkSize != nullptr)
      Launch->Local[D] = LocalWorkSize[D];
  }
  Launch->HasOffset = GlobalWorkOffset != nullptr;
  Launch->HasLocal = LocalWorkSize != nullptr;
  if (CommandBuffer->Updatable) {
    Launch->Alternatives.reserve(NumAlternatives + 1);
    Launch->Parked.resize(NumAlternatives + 1);
    Launch->Alternatives.push_back(Kernel);
    retain(Kernel);
    for (pi_uint32 I = 0; I < NumAlternatives; ++I) {
      Launch->Alternatives.push_back(Alternatives[I]);
      retain(Alternatives[I]);
    }
    Launch->Selected = Kernel;
  }
  return record(Function, *CommandBuffer, std::move(Launch), Waits);
}

pi_result appendUsmCopy(const char *Function, _pi_command_buffer *CommandBuffer, void *Dst,
                        const void *Src, size_t Size, const SyncPoints &Waits) {
  DGLINK_TRY(checkRecording(Function, CommandBuffer));
  DGLINK_TRY(notNull(Function, Dst, "Dst"));
  DGLINK_TRY(notNull(Function, Src, "Src"));
  if (Size == 0)
    return dglink::fail(PI_ERROR_INVALID_BUFFER_SIZE, "{}: argument 'Size' is 0", Function);
  // Where the core knows the allocations, the bytes must lie inside them (host memory
  // of the caller's is not USM, and is not checked).
  UsmAllocationInfo Allocation;
  for (const void *Side : {static_cast<const void *>(Dst), Src})
    if (findUsmAllocation(*CommandBuffer->Context, Side, Allocation))
      DGLINK_TRY(checkUsmRange(Function, *CommandBuffer->Context, Side, Size));
  return record(Function, *CommandBuffer, std::make_unique<UsmCopy>(Dst, Src, Size), Waits);
}

pi_result appendUsmFill(const char *Function, _pi_command_buffer *CommandBuffer, void *Ptr,
                        const void *Pattern, size_t PatternSize, size_t Size,
                        const SyncPoints &Waits) {
  DGLINK_TRY(checkRecording(Function, CommandBuffer));
  DGLINK_TRY(notNull(Function, Ptr, "Ptr"));
  DGLINK_TRY(notNull(Function, Pattern, "Pattern"));
  if (PatternSize == 0 || Size == 0 || PatternSize > Size || Size % PatternSize != 0)
    return dglink::fail(PI_ERROR_INVALID_BUFFER_SIZE,
                        "{}: a pattern of {} bytes does not tile {} bytes", Function, PatternSize,
                        Size);
  if (drivable(PatternSize) &&
      reinterpret_cast<uintptr_t>(Ptr) % (PatternSize < 4 ? PatternSize : 4) != 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: pointer {} is not aligned to the pattern",
                        Function, fmt::ptr(Ptr));
  UsmAllocationInfo Allocation;
  if (findUsmAllocation(*CommandBuffer->Context, Ptr, Allocation))
    DGLINK_TRY(checkUsmRange(Function, *CommandBuffer->Context, Ptr, Size));
  return record(Function, *CommandBuffer,
                std::make_unique<UsmFill>(Ptr, Pattern, PatternSize, Size), Waits);
}

pi_result appendUsmPrefetch(const char *Function, _pi_command_buffer *CommandBuffer,
                            const void *Ptr, size_t Size, UsmMigration To,
                            const SyncPoints &Waits) {
  DGLINK_TRY(checkRecording(Function, CommandBuffer));
  DGLINK_TRY(checkUsmRange(Function, *CommandBuffer->Context, Ptr, Size));
  return record(Function, *CommandBuffer,
                std::make_unique<UsmHint>(Function, Ptr, Size, true, To, 0), Waits);
}

pi_result appendUsmAdvise(const char *Function, _pi_command_buffer *CommandBuffer, const void *Ptr,
                          size_t Size, uint32_t Advice, const SyncPoints &Waits) {
  DGLINK_TRY(checkRecording(Function, CommandBuffer));
  DGLINK_TRY(checkUsmRange(Function, *CommandBuffer->Context, Ptr, Size));
  return record(
      Function, *CommandBuffer,
      std::make_unique<UsmHint>(Function, Ptr, Size, false, UsmMigration::ToDevice, Advice), Waits);
}

pi_result appendBufferCopy(const char *Function, _pi_command_buffer *CommandBuffer, pi_mem Src,
                           pi_mem Dst, size_t SrcOffset, size_t DstOffset, size_t Size,
                           const SyncPoints &Waits) {
  DGLINK_TRY(checkRecording(Function, CommandBuffer));
  DGLINK_TRY(checkBuffer(Function, *CommandBuffer, Src, "SrcBuffer"));
  DGLINK_TRY(checkBuffer(Function, *CommandBuffer, Dst, "DstBuffer"));
  if (Size == 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: argument 'Size' is 0", Function);
  DGLINK_TRY(checkRange(Function, "source", *Src, SrcOffset, Size));
  DGLINK_TRY(checkRange(Function, "destination", *Dst, DstOffset, Size));
  if (&rootOf(*Src) == &rootOf(*Dst) &&
      overlap(Src->Origin + SrcOffset, Size, Dst->Origin + DstOffset, Size))
    return dglink::fail(PI_ERROR_MEM_COPY_OVERLAP,
                        "{}: source bytes [{}, +{}) and destination bytes [{}, +{}) of one "
                        "allocation overlap",
                        Function, Src->Origin + SrcOffset, Size, Dst->Origin + DstOffset, Size);
  auto Copy = std::make_unique<BufferCopy>();
  Copy->Held.hold(Src);
  Copy->Held.hold(Dst);
  Copy->Src = Src;
  Copy->Dst = Dst;
  Copy->SrcOffset = SrcOffset;
  Copy->DstOffset = DstOffset;
  Copy->Size = Size;
  return record(Function, *CommandBuffer, std::move(Copy), Waits);
}

namespace {

pi_result appendAccess(const char *Function, _pi_command_buffer *CommandBuffer, bool Read,
                       pi_mem Buffer, size_t Offset, size_t Size, void *Host,
                       const SyncPoints &Waits) {
  DGLINK_TRY(checkRecording(Function, CommandBuffer));
  DGLINK_TRY(checkBuffer(Function, *CommandBuffer, Buffer, "Buffer"));
  if (Host == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: argument '{}' is null", Function,
                        Read ? "Dst" : "Src");
  DGLINK_TRY(checkRange(Function, Read ? "read" : "write", *Buffer, Offset, Size));
  auto Access = std::make_unique<BufferAccess>();
  Access->Held.hold(Buffer);
  Access->Read = Read;
  Access->Buffer = Buffer;
  Access->Offset = Offset;
  Access->Size = Size;
  Access->Host = Host;
  return record(Function, *CommandBuffer, std::move(Access), Waits);
}

} // namespace

pi_result appendBufferWrite(const char *Function, _pi_command_buffer *CommandBuffer, pi_mem Buffer,
                            size_t Offset, size_t Size, const void *Src, const SyncPoints &Waits) {
  // The write only reads Src (piEnqueueMemBufferWrite takes it as const).
  return appendAccess(Function, CommandBuffer, false, Buffer, Offset, Size, const_cast<void *>(Src),
                      Waits); // NOLINT(cppcoreguidelines-pro-type-const-cast)
}

pi_result appendBufferRead(const char *Function, _pi_command_buffer *CommandBuffer, pi_mem Buffer,
                           size_t Offset, size_t Size, void *Dst, const SyncPoints &Waits) {
  return appendAccess(Function, CommandBuffer, true, Buffer, Offset, Size, Dst, Waits);
}

pi_result appendBufferFill(const char *Function, _pi_command_buffer *CommandBuffer, pi_mem Buffer,
                           const void *Pattern, size_t PatternSize, size_t Offset, size_t Size,
                           const SyncPoints &Waits) {
  DGLINK_TRY(checkRecording(Function, CommandBuffer));
  DGLINK_TRY(checkBuffer(Function, *CommandBuffer, Buffer, "Buffer"));
  DGLINK_TRY(notNull(Function, Pattern, "Pattern"));
  if (PatternSize == 0 || (PatternSize & (PatternSize - 1)) != 0 || Size == 0 ||
      Size % PatternSize != 0 || Offset % PatternSize != 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "{}: a pattern of {} bytes (a power of two is needed) does not tile {} "
                        "bytes at offset {}",
                        Function, PatternSize, Size, Offset);
  DGLINK_TRY(checkRange(Function, "fill", *Buffer, Offset, Size));
  auto Fill = std::make_unique<BufferFill>();
  Fill->Held.hold(Buffer);
  Fill->Buffer = Buffer;
  const auto *Bytes = static_cast<const uint8_t *>(Pattern);
  Fill->Pattern.assign(Bytes, Bytes + PatternSize);
  Fill->Offset = Offset;
  Fill->Size = Size;
  return record(Function, *CommandBuffer, std::move(Fill), Waits);
}

namespace {

// Checks a rectangle as the enqueue entry points do (SrcLimit / DstLimit: the buffer
// sides' sizes) and fills Rect's arguments.
pi_result checkedRect(const char *Function, BufferRect &Rect, const size_t *SrcLimit,
                      const size_t *DstLimit) {
  RectCopy Checked;
  return checkRect(Function, &Rect.SrcOrigin, &Rect.DstOrigin, &Rect.Region, Rect.SrcRowPitch,
                   Rect.SrcSlicePitch, Rect.DstRowPitch, Rect.DstSlicePitch, SrcLimit, DstLimit,
                   Checked);
}

} // namespace

pi_result appendBufferReadRect(const char *Function, _pi_command_buffer *CommandBuffer,
                               pi_mem Buffer, const pi_buff_rect_offset_struct &BufferOrigin,
                               const pi_buff_rect_offset_struct &HostOrigin,
                               const pi_buff_rect_region_struct &Region, size_t BufferRowPitch,
                               size_t BufferSlicePitch, size_t HostRowPitch, size_t HostSlicePitch,
                               void *Dst, const SyncPoints &Waits) {
  DGLINK_TRY(checkRecording(Function, CommandBuffer));
  DGLINK_TRY(checkBuffer(Function, *CommandBuffer, Buffer, "Buffer"));
  DGLINK_TRY(notNull(Function, Dst, "Dst"));
  auto Rect = std::make_unique<BufferRect>();
  Rect->Type = BufferRect::Kind::Read;
  Rect->Src = Buffer;
  Rect->Host = Dst;
  Rect->SrcOrigin = BufferOrigin;
  Rect->DstOrigin = HostOrigin;
  Rect->Region = Region;
  Rect->SrcRowPitch = BufferRowPitch;
  Rect->SrcSlicePitch = BufferSlicePitch;
  Rect->DstRowPitch = HostRowPitch;
  Rect->DstSlicePitch = HostSlicePitch;
  DGLINK_TRY(checkedRect(Function, *Rect, &Buffer->Size, nullptr));
  Rect->Held.hold(Buffer);
  return record(Function, *CommandBuffer, std::move(Rect), Waits);
}

pi_result appendBufferWriteRect(const char *Function, _pi_command_buffer *CommandBuffer,
                                pi_mem Buffer, const pi_buff_rect_offset_struct &BufferOrigin,
                                const pi_buff_rect_offset_struct &HostOrigin,
                                const pi_buff_rect_region_struct &Region, size_t BufferRowPitch,
                                size_t BufferSlicePitch, size_t HostRowPitch, size_t HostSlicePitch,
                                const void *Src, const SyncPoints &Waits) {
  DGLINK_TRY(checkRecording(Function, CommandBuffer));
  DGLINK_TRY(checkBuffer(Function, *CommandBuffer, Buffer, "Buffer"));
  DGLINK_TRY(notNull(Function, Src, "Src"));
  auto Rect = std::make_unique<BufferRect>();
  Rect->Type = BufferRect::Kind::Write;
  Rect->Dst = Buffer;
  // The write only reads Host (piEnqueueMemBufferWriteRect takes it as const).
  Rect->Host = const_cast<void *>(Src); // NOLINT(cppcoreguidelines-pro-type-const-cast)
  Rect->SrcOrigin = HostOrigin;
  Rect->DstOrigin = BufferOrigin;
  Rect->Region = Region;
  Rect->SrcRowPitch = HostRowPitch;
  Rect->SrcSlicePitch = HostSlicePitch;
  Rect->DstRowPitch = BufferRowPitch;
  Rect->DstSlicePitch = BufferSlicePitch;
  DGLINK_TRY(checkedRect(Function, *Rect, nullptr, &Buffer->Size));
  Rect->Held.hold(Buffer);
  return record(Function, *CommandBuffer, std::move(Rect), Waits);
}

pi_result appendBufferCopyRect(const char *Function, _pi_command_buffer *CommandBuffer, pi_mem Src,
                               pi_mem Dst, const pi_buff_rect_offset_struct &SrcOrigin,
                               const pi_buff_rect_offset_struct &DstOrigin,
                               const pi_buff_rect_region_struct &Region, size_t SrcRowPitch,
                               size_t SrcSlicePitch, size_t DstRowPitch, size_t DstSlicePitch,
                               const SyncPoints &Waits) {
  DGLINK_TRY(checkRecording(Function, CommandBuffer));
  DGLINK_TRY(checkBuffer(Function, *CommandBuffer, Src, "SrcBuffer"));
  DGLINK_TRY(checkBuffer(Function, *CommandBuffer, Dst, "DstBuffer"));
  auto Rect = std::make_unique<BufferRect>();
  Rect->Type = BufferRect::Kind::Copy;
  Rect->Src = Src;
  Rect->Dst = Dst;
  Rect->SrcOrigin = SrcOrigin;
  Rect->DstOrigin = DstOrigin;
  Rect->Region = Region;
  Rect->SrcRowPitch = SrcRowPitch;
  Rect->SrcSlicePitch = SrcSlicePitch;
  Rect->DstRowPitch = DstRowPitch;
  Rect->DstSlicePitch = DstSlicePitch;
  DGLINK_TRY(checkedRect(Function, *Rect, &Src->Size, &Dst->Size));
  Rect->Held.hold(Src);
  Rect->Held.hold(Dst);
  return record(Function, *CommandBuffer, std::move(Rect), Waits);
}

pi_result enqueueCommandBuffer(const char *Function, pi_queue Queue,
                               _pi_command_buffer *CommandBuffer, pi_uint32 NumEventsInWaitList,
                               const pi_event *EventWaitList, pi_event *Event) {
  DGLINK_TRY(checkHandle(Queue, PI_ERROR_INVALID_QUEUE, Function, "Queue"));
  DGLINK_TRY(checkCommandBuffer(Function, CommandBuffer));
  if (!CommandBuffer->Finalized.load(std::memory_order_acquire))
    return dglink::fail(PI_ERROR_INVALID_OPERATION,
                        "{}: the command buffer is not finalized: finalize it before it is "
                        "submitted",
                        Function);
  if (Queue->Context != CommandBuffer->Context || Queue->Device != CommandBuffer->Device)
    return dglink::fail(PI_ERROR_INVALID_QUEUE,
                        "{}: the queue is not of the command buffer's context and device '{}'",
                        Function, CommandBuffer->Device->Description.Name);
  DGLINK_TRY(checkWaitList(NumEventsInWaitList, EventWaitList));
  // Events of another context are waited for on the host (as submit does), before the
  // command buffer's lock: not while an update or another submission waits behind it.
  for (pi_uint32 I = 0; I < NumEventsInWaitList; ++I)
    if (EventWaitList[I]->Context != Queue->Context && EventWaitList[I]->Impl != nullptr &&
        !EventWaitList[I]->OfCommand)
      DGLINK_TRY(EventWaitList[I]->Impl->wait());

  const std::lock_guard<std::mutex> Lock(CommandBuffer->Mutex);
  // After the wait list and the previous submission (which may be on another queue).
  std::vector<pi_event> Before(EventWaitList, EventWaitList + NumEventsInWaitList);
  if (CommandBuffer->LastSubmission != nullptr)
    Before.push_back(CommandBuffer->LastSubmission);
  if (!Before.empty())
    DGLINK_TRY(
        piEnqueueEventsWait(Queue, static_cast<pi_uint32>(Before.size()), Before.data(), nullptr));
  // In append order: each command after the ones its sync points name; a command's
  // wait list before it, its event's execution after it.
  for (const std::unique_ptr<RecordedCommand> &Command : CommandBuffer->Commands) {
    if (!Command->Waits.empty())
      DGLINK_TRY(piEnqueueEventsWait(Queue, static_cast<pi_uint32>(Command->Waits.size()),
                                     Command->Waits.data(), nullptr));
    DGLINK_TRY(Command->replay(*Queue));
    if (Command->Signal != nullptr) {
      pi_event Execution = nullptr;
      DGLINK_TRY(piEnqueueEventsWait(Queue, 0, nullptr, &Execution));
      Execution->Command = Command->type();
      static_cast<CommandEventImpl &>(*Command->Signal->Impl).follow(Execution);
    }
  }
  pi_event Done = nullptr;
  DGLINK_TRY(piEnqueueEventsWait(Queue, 0, nullptr, &Done));
  Done->Command = PI_COMMAND_TYPE_EXT_COMMAND_BUFFER;
  if (CommandBuffer->LastSubmission != nullptr)
    release(CommandBuffer->LastSubmission);
  CommandBuffer->LastSubmission = Done;
  if (Event != nullptr) {
    retain(Done);
    *Event = Done;
  }
  return PI_SUCCESS;
}

namespace {

// The command buffer may be updated now: updatable and finalized.
pi_result checkUpdatable(const char *Function, const _pi_command_buffer &CommandBuffer) {
  if (!CommandBuffer.Updatable)
    return dglink::fail(PI_ERROR_INVALID_OPERATION, "{}: the command buffer was not made updatable",
                        Function);
  if (!CommandBuffer.Finalized.load(std::memory_order_acquire))
    return dglink::fail(PI_ERROR_INVALID_OPERATION,
                        "{}: the command buffer is not finalized: commands are updated after "
                        "the finalize",
                        Function);
  return PI_SUCCESS;
}

// A live command handle; its command buffer, which must be updatable and finalized.
pi_result checkCommand(const char *Function, CommandHandle *Command, const char *Argument) {
  DGLINK_TRY(checkHandle(Command, InvalidMutableCommand, Function, Argument));
  return checkUpdatable(Function, *Command->CommandBuffer);
}

// Waits for the command buffer's last submission (under its mutex): an update then
// changes nothing a submission in flight uses.
pi_result waitForSubmissions(_pi_command_buffer &CommandBuffer) {
  if (_pi_event *Last = CommandBuffer.LastSubmission; Last != nullptr && Last->Impl != nullptr)
    return Last->Impl->wait();
  return PI_SUCCESS;
}

// One update, checked: the launch it changes and what the launch becomes.
struct CheckedUpdate {
  KernelLaunch *Launch = nullptr;
  _pi_kernel *Kernel = nullptr; // the kernel the command runs after the update
  bool NewKernel = false;       // another kernel than the command runs now
  pi_uint32 WorkDim = 1;
  size_t Offset[3] = {0, 0, 0}, Global[3] = {1, 1, 1}, Local[3] = {1, 1, 1};
  bool HasOffset = false, HasLocal = false;
};

pi_result checkUpdate(const char *Function, _pi_command_buffer &CommandBuffer, size_t Which,
                      const KernelLaunchUpdate &Update, CheckedUpdate &Out) {
  const std::string Name = fmt::format("update {}: command", Which);
  DGLINK_TRY(checkHandle(Update.Command, InvalidMutableCommand, Function, Name.c_str()));
  if (Update.Command->CommandBuffer != &CommandBuffer)
    return dglink::fail(InvalidMutableCommand,
                        "{}: update {}: the command is of another command buffer", Function, Which);
  RecordedCommand &Command = *Update.Command->Command;
  if (Command.type() != PI_COMMAND_TYPE_NDRANGE_KERNEL)
    return dglink::fail(InvalidMutableCommand, "{}: update {}: the command is no kernel launch",
                        Function, Which);
  auto &Launch = static_cast<KernelLaunch &>(Command);
  Out.Launch = &Launch;
  if (Update.GlobalWorkOffset != nullptr && !backend().globalOffsets())
    return dglink::fail(PI_ERROR_UNSUPPORTED_FEATURE,
                        "{}: update {}: the {} adapter launches with global offset 0 only: a "
                        "global offset is not updated",
                        Function, Which, adapterLabel());
  if (Update.WorkDim < 1 || Update.WorkDim > 3)
    return dglink::fail(PI_ERROR_INVALID_WORK_DIMENSION,
                        "{}: update {}: work dimension {} is not 1, 2 or 3", Function, Which,
                        Update.WorkDim);
  if (Update.WorkDim != Launch.WorkDim &&
      (Update.GlobalWorkSize == nullptr || Update.GlobalWorkOffset == nullptr))
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "{}: update {}: the work dimension changes from {} to {}, so a global "
                        "size and offset are needed",
                        Function, Which, Launch.WorkDim, Update.WorkDim);
  Out.Kernel = Launch.Selected;
  if (Update.NewKernel != nullptr) {
    const auto Known =
        std::find(Launch.Alternatives.begin(), Launch.Alternatives.end(), Update.NewKernel);
    if (Known == Launch.Alternatives.end())
      return dglink::fail(PI_ERROR_INVALID_VALUE,
                          "{}: update {}: the kernel is neither the command's nor one of its "
                          "alternatives",
                          Function, Which);
    Out.Kernel = *Known;
    Out.NewKernel = *Known != Launch.Selected;
  }
  // The shape: what the update gives, the command's where it gives nothing; a new global
  // size without a local size lets the backend choose.
  Out.WorkDim = Update.WorkDim;
  for (pi_uint32 D = 0; D < 3; ++D) {
    Out.Global[D] = Update.GlobalWorkSize != nullptr
                        ? (D < Update.WorkDim ? Update.GlobalWorkSize[D] : 1)
                        : Launch.Global[D];
    Out.Offset[D] = Update.GlobalWorkOffset != nullptr
                        ? (D < Update.WorkDim ? Update.GlobalWorkOffset[D] : 0)
                        : Launch.Offset[D];
    Out.Local[D] = Update.LocalWorkSize != nullptr
                       ? (D < Update.WorkDim ? Update.LocalWorkSize[D] : 1)
                       : Launch.Local[D];
  }
  Out.HasOffset = Update.GlobalWorkOffset != nullptr || Launch.HasOffset;
  Out.HasLocal =
      Update.LocalWorkSize != nullptr || (Update.GlobalWorkSize == nullptr && Launch.HasLocal);
  LaunchShape Shape;
  DGLINK_TRY(checkLaunch(Function, *CommandBuffer.Device, *Out.Kernel, Out.WorkDim,
                         Out.HasOffset ? Out.Offset : nullptr, Out.Global,
                         Out.HasLocal ? Out.Local : nullptr, Shape));
  const KernelImpl &Impl = *Out.Kernel->Impl;
  for (const auto &[Index, Argument] : Update.Arguments) {
    if (Impl.knowsArguments() && Index >= Impl.numArguments())
      return dglink::fail(PI_ERROR_INVALID_ARG_INDEX,
                          "{}: update {}: argument index {}, kernel '{}' has {} arguments",
                          Function, Which, Index, dglink::clip(Out.Kernel->Name),
                          Impl.numArguments());
    if (Argument.Type == KernelArgument::Kind::Buffer && Argument.Buffer != nullptr) {
      const std::string Buffer = fmt::format("update {}: argument {}", Which, Index);
      DGLINK_TRY(checkBuffer(Function, CommandBuffer, Argument.Buffer, Buffer.c_str()));
    }
  }
  return PI_SUCCESS;
}

// Applies a checked update (after the last submission completed).
pi_result applyUpdate(const char *Function, _pi_command_buffer &CommandBuffer,
                      const KernelLaunchUpdate &Update, const CheckedUpdate &Checked) {
  KernelLaunch &Launch = *Checked.Launch;
  bool Fresh = false;
  if (Checked.NewKernel) {
    // Another kernel: its private kernel of a former run, with the arguments it had then,
    // or a new one with its arguments as set now; the update's arguments on top. The
    // private kernel it leaves is parked for a return.
    const auto Index = [&Launch](const _pi_kernel *Kernel) {
      return static_cast<size_t>(
          std::find(Launch.Alternatives.begin(), Launch.Alternatives.end(), Kernel) -
          Launch.Alternatives.begin());
    };
    std::unique_ptr<Holds> &Target = Launch.Parked[Index(Checked.Kernel)];
    if (Target == nullptr) {
      auto Held = std::make_unique<Holds>();
      DGLINK_TRY(privateKernel(Function, CommandBuffer, *Checked.Kernel, &Update.Arguments, *Held));
      Target = std::move(Held);
      Fresh = true;
    }
    std::swap(Launch.Parked[Index(Launch.Selected)], Launch.Held);
    Launch.Held = std::move(Target);
    Launch.Selected = Checked.Kernel;
  }
  if (!Fresh) {
    Holds &Held = *Launch.Held;
    for (const auto &[Index, Argument] : Update.Arguments) {
      DGLINK_TRY(applyArgument(Function, CommandBuffer, Held, Index, Argument));
      std::map<pi_uint32, KernelArgument> &Set = Held.Kernel->Arguments;
      if (const auto Old = Set.find(Index); Old != Set.end()) {
        if (Old->second.Type == KernelArgument::Kind::Buffer && Old->second.Buffer != nullptr)
          Held.drop(Old->second.Buffer);
        Old->second = Argument;
      } else {
        Set.emplace(Index, Argument);
      }
    }
  }
  Launch.WorkDim = Checked.WorkDim;
  std::copy(std::begin(Checked.Global), std::end(Checked.Global), std::begin(Launch.Global));
  std::copy(std::begin(Checked.Offset), std::end(Checked.Offset), std::begin(Launch.Offset));
  std::copy(std::begin(Checked.Local), std::end(Checked.Local), std::begin(Launch.Local));
  Launch.HasOffset = Checked.HasOffset;
  Launch.HasLocal = Checked.HasLocal;
  return PI_SUCCESS;
}

} // namespace

pi_result updateKernelLaunches(const char *Function, _pi_command_buffer *CommandBuffer,
                               const std::vector<KernelLaunchUpdate> &Updates) {
  DGLINK_TRY(checkCommandBuffer(Function, CommandBuffer));
  DGLINK_TRY(checkUpdatable(Function, *CommandBuffer));
  const std::lock_guard<std::mutex> Lock(CommandBuffer->Mutex);
  std::vector<CheckedUpdate> Checked(Updates.size());
  for (size_t I = 0; I < Updates.size(); ++I)
    DGLINK_TRY(checkUpdate(Function, *CommandBuffer, I, Updates[I], Checked[I]));
  DGLINK_TRY(waitForSubmissions(*CommandBuffer));
  for (size_t I = 0; I < Updates.size(); ++I)
    DGLINK_TRY(applyUpdate(Function, *CommandBuffer, Updates[I], Checked[I]));
  return PI_SUCCESS;
}

pi_result updateSignalEvent(const char *Function, CommandHandle *Command, pi_event *Out) {
  DGLINK_TRY(checkCommand(Function, Command, "Command"));
  _pi_command_buffer &CommandBuffer = *Command->CommandBuffer;
  const std::lock_guard<std::mutex> Lock(CommandBuffer.Mutex);
  RecordedCommand &Recorded = *Command->Command;
  if (Recorded.Signal == nullptr)
    return dglink::fail(PI_ERROR_INVALID_OPERATION,
                        "{}: the command was appended without an event to signal", Function);
  _pi_event *Fresh = makeCommandEvent(CommandBuffer, Recorded.type());
  release(Recorded.Signal);
  Recorded.Signal = Fresh;
  retain(Fresh);
  *Out = Fresh;
  return PI_SUCCESS;
}

pi_result updateWaitEvents(const char *Function, CommandHandle *Command, pi_uint32 NumEvents,
                           const pi_event *Events) {
  DGLINK_TRY(checkCommand(Function, Command, "Command"));
  _pi_command_buffer &CommandBuffer = *Command->CommandBuffer;
  DGLINK_TRY(checkCommandWaits(Function, CommandBuffer, NumEvents, Events));
  const std::lock_guard<std::mutex> Lock(CommandBuffer.Mutex);
  RecordedCommand &Recorded = *Command->Command;
  if (NumEvents != Recorded.Waits.size())
    return dglink::fail(PI_ERROR_INVALID_EVENT_WAIT_LIST,
                        "{}: {} events given, the command was appended with {}: the number "
                        "stays",
                        Function, NumEvents, Recorded.Waits.size());
  for (pi_uint32 I = 0; I < NumEvents; ++I) {
    retain(Events[I]);
    release(Recorded.Waits[I]);
    Recorded.Waits[I] = Events[I];
  }
  return PI_SUCCESS;
}

} // namespace dglink::core
