// Command buffers: commands checked and captured at append time, replayed in append
// order on a queue at each submission (command_buffer.h says why that order is enough).
#include "entry.h"

#include <dglink/core/command_buffer.h>

#include <algorithm>
#include <cstring>

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
  _pi_kernel *Kernel = nullptr; // owned: the command's private kernel

private:
  std::vector<_pi_mem *> Buffers;
};

class KernelLaunch final : public RecordedCommand {
public:
  pi_result replay(_pi_queue &Queue) override {
    return piEnqueueKernelLaunch(&Queue, Held.Kernel, WorkDim, HasOffset ? Offset : nullptr, Global,
                                 HasLocal ? Local : nullptr, 0, nullptr, nullptr);
  }
  Holds Held;
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

// Adds Command as the next command: checks, under the command buffer's mutex, that it
// still records and that every sync point names a command appended before.
pi_result record(const char *Function, _pi_command_buffer &CommandBuffer,
                 std::unique_ptr<RecordedCommand> Command, const SyncPoints &Waits) {
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
  CommandBuffer.Commands.push_back(std::move(Command));
  if (Waits.Out != nullptr)
    *Waits.Out = static_cast<pi_uint32>(Appended);
  return PI_SUCCESS;
}

// Sets one captured argument on the command's private kernel.
pi_result applyArgument(const char *Function, _pi_command_buffer &CommandBuffer,
                        KernelLaunch &Launch, pi_uint32 Index, const KernelArgument &Argument) {
  KernelImpl &Impl = *Launch.Held.Kernel->Impl;
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
    Launch.Held.hold(Argument.Buffer);
  }
  return Impl.setBufferArgument(Function, Index, Argument.Buffer);
}

} // namespace

namespace dglink::core {

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
                              bool InOrder, bool Profiling, _pi_command_buffer **Out) {
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
                             const SyncPoints &Waits) {
  DGLINK_TRY(checkRecording(Function, CommandBuffer));
  DGLINK_TRY(checkHandle(Kernel, PI_ERROR_INVALID_KERNEL, Function, "Kernel"));
  _pi_program &Program = *Kernel->Program;
  if (Program.Context != CommandBuffer->Context || !Program.hasDevice(CommandBuffer->Device))
    return dglink::fail(PI_ERROR_INVALID_KERNEL,
                        "{}: kernel '{}' is not of the command buffer's context and device '{}'",
                        Function, dglink::clip(Kernel->Name),
                        CommandBuffer->Device->Description.Name);
  LaunchShape Shape;
  DGLINK_TRY(checkLaunch(Function, *CommandBuffer->Device, *Kernel, WorkDim, GlobalWorkOffset,
                         GlobalWorkSize, LocalWorkSize, Shape));
  // The arguments as set now, those given replacing theirs.
  std::map<pi_uint32, KernelArgument> Captured;
  {
    const std::lock_guard<std::mutex> Lock(Kernel->ArgumentsMutex);
    Captured = Kernel->Arguments;
  }
  if (Arguments != nullptr)
    for (const auto &[Index, Argument] : *Arguments)
      Captured.insert_or_assign(Index, Argument);

  auto Launch = std::make_unique<KernelLaunch>();
  {
    std::unique_ptr<_pi_kernel> Private = makeHandle<_pi_kernel>();
    Private->Program = &Program;
    Private->Name = Kernel->Name;
    DGLINK_TRY(Program.Impl->createKernel(Program, Kernel->Name.c_str(), Private->Impl));
    retain(&Program);
    Launch->Held.Kernel = Private.release();
  }
  for (const auto &[Index, Argument] : Captured)
    DGLINK_TRY(applyArgument(Function, *CommandBuffer, *Launch, Index, Argument));
  Launch->Held.Kernel->Arguments = std::move(Captured);
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

  const std::lock_guard<std::mutex> Lock(CommandBuffer->Mutex);
  // After the wait list and the previous submission (which may be on another queue).
  std::vector<pi_event> Before(EventWaitList, EventWaitList + NumEventsInWaitList);
  if (CommandBuffer->LastSubmission != nullptr)
    Before.push_back(CommandBuffer->LastSubmission);
  if (!Before.empty())
    DGLINK_TRY(
        piEnqueueEventsWait(Queue, static_cast<pi_uint32>(Before.size()), Before.data(), nullptr));
  // In append order: each command after the ones its sync points name.
  for (const std::unique_ptr<RecordedCommand> &Command : CommandBuffer->Commands)
    DGLINK_TRY(Command->replay(*Queue));
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

} // namespace dglink::core
