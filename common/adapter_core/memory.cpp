// Buffers, USM and the memory commands: the contract's checks in order, then the
// backend's allocation or copy.
#include "entry.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <vector>

using namespace dglink::core;

namespace dglink::core {

// Whether the backends' fill hooks take a pattern of this size (OpenCL's fills: a power of
// two up to 128 bytes). Wider patterns, and USM patterns of other sizes, are tiled on the
// host and written, blocking, so that the tile may go away.
bool drivable(size_t PatternSize) {
  return PatternSize <= 128 && (PatternSize & (PatternSize - 1)) == 0;
}

std::vector<unsigned char> tiled(const void *Pattern, size_t PatternSize, size_t Size) {
  std::vector<unsigned char> Tiled(Size);
  for (size_t At = 0; At < Size; At += PatternSize)
    std::memcpy(Tiled.data() + At, Pattern, PatternSize);
  return Tiled;
}

pi_result submitUsmFill(_pi_queue &Queue, pi_command_type Command, void *Ptr, const void *Pattern,
                        size_t PatternSize, size_t Size, pi_uint32 NumWaits, const pi_event *Waits,
                        pi_event *Event) {
  // A driver fill wants the pointer aligned to the whole pattern (OpenCL's SVM fill says so;
  // the 2D rule is the same): a wider pattern at a pointer aligned to 4 only is tiled.
  const bool Native = drivable(PatternSize) && reinterpret_cast<uintptr_t>(Ptr) % PatternSize == 0;
  if (Size == 0) // nothing to write: a command that only orders (as the driver's)
    return submit(Queue, Command, NumWaits, Waits, false, Event,
                  [&](const Enqueue &Request) { return Queue.Impl->marker(false, Request); });
  if (!Native) {
    const std::vector<unsigned char> Tiled = tiled(Pattern, PatternSize, Size);
    return submit(Queue, Command, NumWaits, Waits, true, Event, [&](const Enqueue &Request) {
      return Queue.Impl->usmCopy(Ptr, Tiled.data(), Size, Request);
    });
  }
  return submit(Queue, Command, NumWaits, Waits, false, Event, [&](const Enqueue &Request) {
    return Queue.Impl->usmFill(Ptr, Pattern, PatternSize, Size, Request);
  });
}

// Offset + Size inside Buffer, without overflow.
pi_result checkRange(const char *Function, const char *Which, const _pi_mem &Buffer, size_t Offset,
                     size_t Size) {
  if (Offset > Buffer.Size || Size > Buffer.Size - Offset)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "{}: {} offset {} + size {} is past the buffer's {} bytes", Function, Which,
                        Offset, Size, Buffer.Size);
  return PI_SUCCESS;
}

// Where a buffer's bytes are within the allocation they share with other sub-buffers of
// one parent: the parent and the offset in it.
const _pi_mem &rootOf(const _pi_mem &Buffer) {
  return Buffer.Parent != nullptr ? *Buffer.Parent : Buffer;
}

bool overlap(size_t A, size_t ASize, size_t B, size_t BSize) {
  return A < B + BSize && B < A + ASize;
}

// One side of a rectangle: resolves its pitches (0: tight), checks them against the
// region as OpenCL and UR do, and, where Limit is a buffer's size, that the last byte is
// inside it. Origin and Region as the PI structs give them.
pi_result resolveSide(const char *Function, const char *Side, const size_t Origin[3],
                      const size_t Region[3], size_t &RowPitch, size_t &SlicePitch,
                      const size_t *Limit) {
  if (RowPitch == 0)
    RowPitch = Region[0];
  size_t Tight = 0;
  if (RowPitch < Region[0] || __builtin_mul_overflow(Region[1], RowPitch, &Tight))
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "{}: {} row pitch {} is less than the region's {} bytes", Function, Side,
                        RowPitch, Region[0]);
  if (SlicePitch == 0)
    SlicePitch = Tight;
  if (SlicePitch < Tight || SlicePitch % RowPitch != 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "{}: {} slice pitch {} is not a multiple of the row pitch {} of at least "
                        "{} rows",
                        Function, Side, SlicePitch, RowPitch, Region[1]);
  // The byte past the last one: origin + (region - 1) in each dimension, then the width
  // (host memory too: its offsets must not overflow).
  size_t End = 0, Rows = 0, Slices = 0, LastSlice = 0, LastRow = 0, Width = 0;
  const bool Overflow = __builtin_add_overflow(Origin[2], Region[2] - 1, &LastSlice) ||
                        __builtin_add_overflow(Origin[1], Region[1] - 1, &LastRow) ||
                        __builtin_add_overflow(Origin[0], Region[0], &Width) ||
                        __builtin_mul_overflow(LastSlice, SlicePitch, &Slices) ||
                        __builtin_mul_overflow(LastRow, RowPitch, &Rows) ||
                        __builtin_add_overflow(Slices, Rows, &End) ||
                        __builtin_add_overflow(End, Width, &End);
  if (Overflow || (Limit != nullptr && End > *Limit))
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "{}: the {} rectangle (origin {}, {}, {}; region {} x {} x {}; pitches {}, "
                        "{}) ends past {}",
                        Function, Side, Origin[0], Origin[1], Origin[2], Region[0], Region[1],
                        Region[2], RowPitch, SlicePitch,
                        Limit != nullptr ? fmt::format("the buffer's {} bytes", *Limit)
                                         : std::string("the end of the address space"));
  return PI_SUCCESS;
}

// A rectangle between a source and a destination (either a buffer: its size given).
pi_result checkRect(const char *Function, pi_buff_rect_offset SrcOrigin,
                    pi_buff_rect_offset DstOrigin, pi_buff_rect_region Region, size_t SrcRowPitch,
                    size_t SrcSlicePitch, size_t DstRowPitch, size_t DstSlicePitch,
                    const size_t *SrcLimit, const size_t *DstLimit, RectCopy &Rect) {
  if (SrcOrigin == nullptr || DstOrigin == nullptr || Region == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: an origin or the region is null", Function);
  Rect.SrcOrigin[0] = SrcOrigin->x_bytes;
  Rect.SrcOrigin[1] = SrcOrigin->y_scalar;
  Rect.SrcOrigin[2] = SrcOrigin->z_scalar;
  Rect.DstOrigin[0] = DstOrigin->x_bytes;
  Rect.DstOrigin[1] = DstOrigin->y_scalar;
  Rect.DstOrigin[2] = DstOrigin->z_scalar;
  Rect.Region[0] = Region->width_bytes;
  Rect.Region[1] = Region->height_scalar;
  Rect.Region[2] = Region->depth_scalar;
  if (Rect.Region[0] == 0 || Rect.Region[1] == 0 || Rect.Region[2] == 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: region {} x {} x {} is empty", Function,
                        Rect.Region[0], Rect.Region[1], Rect.Region[2]);
  Rect.SrcRowPitch = SrcRowPitch;
  Rect.SrcSlicePitch = SrcSlicePitch;
  Rect.DstRowPitch = DstRowPitch;
  Rect.DstSlicePitch = DstSlicePitch;
  DGLINK_TRY(resolveSide(Function, "source", Rect.SrcOrigin, Rect.Region, Rect.SrcRowPitch,
                         Rect.SrcSlicePitch, SrcLimit));
  return resolveSide(Function, "destination", Rect.DstOrigin, Rect.Region, Rect.DstRowPitch,
                     Rect.DstSlicePitch, DstLimit);
}

} // namespace dglink::core

namespace {

constexpr pi_mem_flags AccessFlags =
    PI_MEM_FLAGS_ACCESS_RW | PI_MEM_FLAGS_ACCESS_READ_ONLY | PI_MEM_FLAGS_ACCESS_WRITE_ONLY;

// The access of a buffer's flags; none named is read/write.
pi_mem_flags accessOf(pi_mem_flags Flags) {
  const pi_mem_flags Access = Flags & AccessFlags;
  return Access == 0 ? PI_MEM_FLAGS_ACCESS_RW : Access;
}

const char *accessName(pi_mem_flags Access) {
  return Access == PI_MEM_FLAGS_ACCESS_READ_ONLY    ? "read only"
         : Access == PI_MEM_FLAGS_ACCESS_WRITE_ONLY ? "write only"
                                                    : "read/write";
}

// A buffer read or write: handles, host pointer, the buffer in the queue's context,
// Offset + Size inside the buffer (no overflow), the wait list.
pi_result checkBufferAccess(const char *Function, pi_queue Queue, pi_mem Buffer, size_t Offset,
                            size_t Size, const void *Host, const char *HostName,
                            pi_uint32 NumEvents, const pi_event *Events) {
  DGLINK_TRY(checkHandle(Queue, PI_ERROR_INVALID_QUEUE, Function, "Queue"));
  DGLINK_TRY(checkHandle(Buffer, PI_ERROR_INVALID_MEM_OBJECT, Function, "Buffer"));
  if (Buffer->Image)
    return dglink::fail(PI_ERROR_INVALID_MEM_OBJECT, "{}: 'Buffer' is an image, not a buffer",
                        Function);
  if (Host == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: argument '{}' is null", Function, HostName);
  if (Buffer->Context != Queue->Context && !Buffer->Context->hasDevice(Queue->Device))
    return dglink::fail(PI_ERROR_INVALID_CONTEXT, "{}: the buffer belongs to another device",
                        Function);
  if (Offset > Buffer->Size || Size > Buffer->Size - Offset)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "{}: offset {} + size {} is past the buffer's {} bytes", Function, Offset,
                        Size, Buffer->Size);
  return checkWaitList(NumEvents, Events);
}

// A buffer of a memory command: live, of the queue's context (or one that holds the
// queue's device).
pi_result checkQueueBuffer(const char *Function, pi_queue Queue, pi_mem Buffer,
                           const char *Argument) {
  DGLINK_TRY(checkHandle(Buffer, PI_ERROR_INVALID_MEM_OBJECT, Function, Argument));
  if (Buffer->Image)
    return dglink::fail(PI_ERROR_INVALID_MEM_OBJECT, "{}: '{}' is an image, not a buffer", Function,
                        Argument);
  if (Buffer->Context != Queue->Context && !Buffer->Context->hasDevice(Queue->Device))
    return dglink::fail(PI_ERROR_INVALID_CONTEXT, "{}: buffer '{}' belongs to another device",
                        Function, Argument);
  return PI_SUCCESS;
}

// The arguments every USM allocation checks first: the result pointer, the context,
// no properties, a size, an alignment that is a power of two (up to what the driver
// guarantees for the kind), and a device of the context that has that kind of USM.
pi_result checkUsmAllocation(const char *Function, void **ResultPtr, pi_context Context,
                             pi_device Device, UsmKind Kind,
                             const pi_usm_mem_properties *Properties, size_t Size,
                             pi_uint32 Alignment) {
  if (ResultPtr == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: argument 'ResultPtr' is null", Function);
  DGLINK_TRY(checkHandle(Context, PI_ERROR_INVALID_CONTEXT, Function, "Context"));
  if (Properties != nullptr && Properties[0] != 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: USM property {:#x} is not supported", Function,
                        static_cast<unsigned long long>(Properties[0]));
  if (Size == 0)
    return dglink::fail(PI_ERROR_INVALID_BUFFER_SIZE, "{}: argument 'Size' is 0", Function);
  if (Kind != UsmKind::Host) {
    DGLINK_TRY(checkHandle(Device, PI_ERROR_INVALID_DEVICE, Function, "Device"));
    if (!Context->hasDevice(Device))
      return dglink::fail(PI_ERROR_INVALID_DEVICE, "{}: device '{}' is not a device of the context",
                          Function, Device->Description.Name);
  }
  const DeviceDescription &D = (Kind == UsmKind::Host ? Context->Devices[0] : Device)->Description;
  const pi_uint32 MaxAlignment = Kind == UsmKind::Host     ? D.MaxHostUsmAlignment
                                 : Kind == UsmKind::Device ? D.MaxDeviceUsmAlignment
                                                           : D.MaxSharedUsmAlignment;
  if ((Alignment & (Alignment - 1)) != 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: alignment {} is not a power of two", Function,
                        Alignment);
  if (MaxAlignment != 0 && Alignment > MaxAlignment)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "{}: alignment {} is not a power of two up to {} (what the driver "
                        "guarantees)",
                        Function, Alignment, MaxAlignment);
  const pi_usm_capabilities Capabilities = Kind == UsmKind::Host     ? D.HostUsm
                                           : Kind == UsmKind::Device ? D.DeviceUsm
                                                                     : D.SharedUsm;
  if (Capabilities == 0)
    return dglink::fail(PI_ERROR_INVALID_OPERATION, "{}: device '{}' has no {} USM", Function,
                        D.Name, usmKindName(Kind));
  return PI_SUCCESS;
}

pi_result allocatePiUsm(const char *Function, void **ResultPtr, pi_context Context,
                        pi_device Device, UsmKind Kind, const pi_usm_mem_properties *Properties,
                        size_t Size, pi_uint32 Alignment) {
  DGLINK_TRY(
      checkUsmAllocation(Function, ResultPtr, Context, Device, Kind, Properties, Size, Alignment));
  return allocateUsm(Function, ResultPtr, Context, Device, Kind, Size, Alignment, nullptr);
}

} // namespace

namespace dglink::core {

pi_result allocateUsm(const char *Function, void **ResultPtr, pi_context Context, pi_device Device,
                      UsmKind Kind, size_t Size, pi_uint32 Alignment, UsmPool *Pool) {
  DGLINK_TRY(
      checkUsmAllocation(Function, ResultPtr, Context, Device, Kind, nullptr, Size, Alignment));
  if (Pool != nullptr) {
    DGLINK_TRY(checkHandle(Pool, PI_ERROR_INVALID_VALUE, Function, "pool"));
    if (Pool->Context != Context)
      return dglink::fail(PI_ERROR_INVALID_CONTEXT,
                          "{}: USM pool {} belongs to context {}, not to the context {} asked",
                          Function, fmt::ptr(Pool), fmt::ptr(Pool->Context), fmt::ptr(Context));
    void *Pointer = nullptr;
    DGLINK_TRY(allocateFromPool(*Pool, Device, Kind, Size, Alignment, Pointer));
    *ResultPtr = Pointer;
    return PI_SUCCESS;
  }
  void *Pointer = nullptr;
  DGLINK_TRY(Context->Impl->allocateUsm(Kind, Device, Size, Alignment, Pointer));
  try {
    recordUsmAllocation(*Context, Pointer, Size, Kind, Device);
  } catch (...) {
    (void)Context->Impl->freeUsm(Pointer);
    throw;
  }
  *ResultPtr = Pointer;
  return PI_SUCCESS;
}

} // namespace dglink::core

extern "C" {

PI_API_EXPORT pi_result piMemBufferCreate(pi_context Context, pi_mem_flags Flags, size_t Size,
                                          void *HostPtr, pi_mem *RetMem) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  DGLINK_CHECK_NOT_NULL(RetMem, PI_ERROR_INVALID_VALUE);
  if (Size == 0)
    return dglink::fail(PI_ERROR_INVALID_BUFFER_SIZE, "piMemBufferCreate: argument 'Size' is 0");
  if ((Flags & ~(AccessFlags | PI_MEM_FLAGS_HOST_PTR_COPY | PI_MEM_FLAGS_HOST_PTR_USE)) != 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "piMemBufferCreate: unsupported flags {:#x}",
                        static_cast<unsigned long long>(Flags));
  if (__builtin_popcountll(Flags & AccessFlags) > 1)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piMemBufferCreate: flags {:#x} name more than one access (read/write, "
                        "read only, write only)",
                        static_cast<unsigned long long>(Flags));
  const bool Copy = (Flags & PI_MEM_FLAGS_HOST_PTR_COPY) != 0;
  const bool Use = (Flags & PI_MEM_FLAGS_HOST_PTR_USE) != 0;
  if (Copy && Use)
    return dglink::fail(
        PI_ERROR_INVALID_VALUE,
        "piMemBufferCreate: PI_MEM_FLAGS_HOST_PTR_COPY and _USE exclude each other");
  if ((Copy || Use) != (HostPtr != nullptr))
    return dglink::fail(PI_ERROR_INVALID_HOST_PTR,
                        "piMemBufferCreate: 'HostPtr' must be given exactly when "
                        "PI_MEM_FLAGS_HOST_PTR_COPY or _USE is set");
  std::unique_ptr<_pi_mem> Mem = makeHandle<_pi_mem>();
  Mem->Context = Context;
  Mem->Size = Size;
  Mem->Flags = accessOf(Flags) | (Flags & PI_MEM_FLAGS_HOST_PTR_USE);
  if (Use) {
    Mem->HostPointer = HostPtr;
    DGLINK_TRY(Context->Impl->createHostBuffer(Mem->Flags, Size, HostPtr, Mem->Impl));
  } else {
    DGLINK_TRY(Context->Impl->createBuffer(Size, HostPtr, Mem->Impl));
  }
  retain(Context);
  *RetMem = Mem.release();
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piMemRetain(pi_mem Mem) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Mem, PI_ERROR_INVALID_MEM_OBJECT);
  retain(Mem);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piMemRelease(pi_mem Mem) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Mem, PI_ERROR_INVALID_MEM_OBJECT);
  release(Mem);
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piEnqueueMemBufferRead(pi_queue Queue, pi_mem Buffer, pi_bool BlockingRead,
                                               size_t Offset, size_t Size, void *Dst,
                                               pi_uint32 NumEventsInWaitList,
                                               const pi_event *EventWaitList, pi_event *Event) try {
  DGLINK_ENTRY();
  DGLINK_TRY(checkBufferAccess(__func__, Queue, Buffer, Offset, Size, Dst, "Dst",
                               NumEventsInWaitList, EventWaitList));
  const DeviceGlobalLocation Location{Offset, Buffer->Impl.get()};
  return submit(*Queue, PI_COMMAND_TYPE_MEM_BUFFER_READ, NumEventsInWaitList, EventWaitList,
                BlockingRead != PI_FALSE, Event, [&](const Enqueue &Request) {
                  return Queue->Impl->read(Dst, Location, Size, Request);
                });
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piEnqueueMemBufferWrite(pi_queue Queue, pi_mem Buffer,
                                                pi_bool BlockingWrite, size_t Offset, size_t Size,
                                                const void *Src, pi_uint32 NumEventsInWaitList,
                                                const pi_event *EventWaitList,
                                                pi_event *Event) try {
  DGLINK_ENTRY();
  DGLINK_TRY(checkBufferAccess(__func__, Queue, Buffer, Offset, Size, Src, "Src",
                               NumEventsInWaitList, EventWaitList));
  const DeviceGlobalLocation Location{Offset, Buffer->Impl.get()};
  return submit(*Queue, PI_COMMAND_TYPE_MEM_BUFFER_WRITE, NumEventsInWaitList, EventWaitList,
                BlockingWrite != PI_FALSE, Event, [&](const Enqueue &Request) {
                  return Queue->Impl->write(Location, Src, Size, Request);
                });
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piextUSMDeviceAlloc(void **ResultPtr, pi_context Context, pi_device Device,
                                            const pi_usm_mem_properties *Properties, size_t Size,
                                            pi_uint32 Alignment) try {
  DGLINK_ENTRY();
  return allocatePiUsm(__func__, ResultPtr, Context, Device, UsmKind::Device, Properties, Size,
                       Alignment);
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piextUSMHostAlloc(void **ResultPtr, pi_context Context,
                                          const pi_usm_mem_properties *Properties, size_t Size,
                                          pi_uint32 Alignment) try {
  DGLINK_ENTRY();
  return allocatePiUsm(__func__, ResultPtr, Context, nullptr, UsmKind::Host, Properties, Size,
                       Alignment);
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piextUSMSharedAlloc(void **ResultPtr, pi_context Context, pi_device Device,
                                            const pi_usm_mem_properties *Properties, size_t Size,
                                            pi_uint32 Alignment) try {
  DGLINK_ENTRY();
  return allocatePiUsm(__func__, ResultPtr, Context, Device, UsmKind::Shared, Properties, Size,
                       Alignment);
}
DGLINK_CATCH_ALL

// Freeing null does nothing, as free(NULL) does. Memory of a USM pool goes back to the
// pool (UR's pools: usm_pool.cpp).
PI_API_EXPORT pi_result piextUSMFree(pi_context Context, void *Ptr) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  if (Ptr == nullptr)
    return PI_SUCCESS;
  if (pi_result Result = PI_SUCCESS; freeToPool(__func__, *Context, Ptr, Result))
    return Result;
  const std::optional<UsmRecord> Record = forgetUsmAllocation(*Context, Ptr);
  if (pi_result Result = Context->Impl->freeUsm(Ptr); Result != PI_SUCCESS) {
    if (Record)
      restoreUsmAllocation(*Context, Ptr, *Record);
    return Result;
  }
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piextUSMEnqueueMemcpy(pi_queue Queue, pi_bool Blocking, void *Dst,
                                              const void *Src, size_t Size,
                                              pi_uint32 NumEventsInWaitList,
                                              const pi_event *EventWaitList, pi_event *Event) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_CHECK_NOT_NULL(Dst, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(Src, PI_ERROR_INVALID_VALUE);
  DGLINK_TRY(checkWaitList(NumEventsInWaitList, EventWaitList));
  return submit(
      *Queue, PI_COMMAND_TYPE_USM_MEMCPY, NumEventsInWaitList, EventWaitList, Blocking != PI_FALSE,
      Event, [&](const Enqueue &Request) { return Queue->Impl->usmCopy(Dst, Src, Size, Request); });
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piextUSMEnqueueFill(pi_queue Queue, void *Ptr, const void *Pattern,
                                            size_t PatternSize, size_t Size,
                                            pi_uint32 NumEventsInWaitList,
                                            const pi_event *EventWaitList, pi_event *Event) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_CHECK_NOT_NULL(Ptr, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(Pattern, PI_ERROR_INVALID_VALUE);
  if (PatternSize == 0 || Size % PatternSize != 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piextUSMEnqueueFill: a pattern of {} bytes does not tile {} bytes",
                        PatternSize, Size);
  const bool Native = drivable(PatternSize);
  if (Native && reinterpret_cast<uintptr_t>(Ptr) % (PatternSize < 4 ? PatternSize : 4) != 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piextUSMEnqueueFill: pointer {} is not aligned to the pattern",
                        fmt::ptr(Ptr));
  DGLINK_TRY(checkWaitList(NumEventsInWaitList, EventWaitList));
  return submitUsmFill(*Queue, PI_COMMAND_TYPE_USM_FILL, Ptr, Pattern, PatternSize, Size,
                       NumEventsInWaitList, EventWaitList, Event);
}
DGLINK_CATCH_ALL

// A sub-buffer shares its parent's bytes: the parent stays alive while it lives, flags
// left 0 inherit the parent's access, an access the parent does not allow is refused,
// and the origin is aligned for every device of the context.
PI_API_EXPORT pi_result piMemBufferPartition(pi_mem Buffer, pi_mem_flags Flags,
                                             pi_buffer_create_type Type, void *CreateInfo,
                                             pi_mem *RetMem) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Buffer, PI_ERROR_INVALID_MEM_OBJECT);
  DGLINK_CHECK_NOT_NULL(RetMem, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(CreateInfo, PI_ERROR_INVALID_VALUE);
  if (Type != PI_BUFFER_CREATE_TYPE_REGION)
    return dglink::fail(
        PI_ERROR_INVALID_VALUE,
        "piMemBufferPartition: create type {:#x} is not PI_BUFFER_CREATE_TYPE_REGION",
        static_cast<unsigned>(Type));
  if (Buffer->Parent != nullptr || Buffer->Image)
    return dglink::fail(PI_ERROR_INVALID_MEM_OBJECT,
                        "piMemBufferPartition: argument 'Buffer' is {}",
                        Buffer->Image ? "an image" : "itself a sub-buffer");
  if ((Flags & ~AccessFlags) != 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piMemBufferPartition: flags {:#x}: a sub-buffer takes only an access "
                        "flag (the host pointer is its parent's)",
                        static_cast<unsigned long long>(Flags));
  if (__builtin_popcountll(Flags) > 1)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piMemBufferPartition: flags {:#x} name more than one access",
                        static_cast<unsigned long long>(Flags));
  const pi_mem_flags ParentAccess = Buffer->Flags & AccessFlags;
  const pi_mem_flags Access = Flags == 0 ? ParentAccess : Flags;
  if (ParentAccess != PI_MEM_FLAGS_ACCESS_RW && Access != ParentAccess)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piMemBufferPartition: a {} sub-buffer of a {} buffer", accessName(Access),
                        accessName(ParentAccess));
  const auto &Region = *static_cast<const pi_buffer_region_struct *>(CreateInfo);
  if (Region.Size == 0)
    return dglink::fail(PI_ERROR_INVALID_BUFFER_SIZE,
                        "piMemBufferPartition: the region's size is 0");
  if (Region.Origin > Buffer->Size || Region.Size > Buffer->Size - Region.Origin)
    return dglink::fail(PI_ERROR_INVALID_BUFFER_SIZE,
                        "piMemBufferPartition: origin {} + size {} is past the buffer's {} bytes",
                        Region.Origin, Region.Size, Buffer->Size);
  for (const _pi_device *Device : Buffer->Context->Devices) {
    const size_t Alignment = Device->Description.Memory.BaseAddressAlignBits / 8;
    if (Alignment != 0 && Region.Origin % Alignment != 0)
      return dglink::fail(PI_ERROR_MISALIGNED_SUB_BUFFER_OFFSET,
                          "piMemBufferPartition: origin {} is not a multiple of {} bytes, the "
                          "base-address alignment of device '{}'",
                          Region.Origin, Alignment, Device->Description.Name);
  }
  std::unique_ptr<_pi_mem> Mem = makeHandle<_pi_mem>();
  Mem->Context = Buffer->Context;
  Mem->Size = Region.Size;
  Mem->Flags = Access | (Buffer->Flags & PI_MEM_FLAGS_HOST_PTR_USE);
  Mem->Parent = Buffer;
  Mem->Origin = Region.Origin;
  if (Buffer->HostPointer != nullptr)
    Mem->HostPointer = static_cast<char *>(Buffer->HostPointer) + Region.Origin;
  DGLINK_TRY(Buffer->Context->Impl->createSubBuffer(*Buffer, Access, Region.Origin, Region.Size,
                                                    Mem->Impl));
  retain(Buffer->Context);
  retain(Buffer);
  *RetMem = Mem.release();
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piEnqueueMemBufferCopy(pi_queue Queue, pi_mem SrcBuffer, pi_mem DstBuffer,
                                               size_t SrcOffset, size_t DstOffset, size_t Size,
                                               pi_uint32 NumEventsInWaitList,
                                               const pi_event *EventWaitList, pi_event *Event) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_TRY(checkQueueBuffer(__func__, Queue, SrcBuffer, "SrcBuffer"));
  DGLINK_TRY(checkQueueBuffer(__func__, Queue, DstBuffer, "DstBuffer"));
  if (Size == 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "piEnqueueMemBufferCopy: argument 'Size' is 0");
  DGLINK_TRY(checkRange(__func__, "source", *SrcBuffer, SrcOffset, Size));
  DGLINK_TRY(checkRange(__func__, "destination", *DstBuffer, DstOffset, Size));
  if (&rootOf(*SrcBuffer) == &rootOf(*DstBuffer) &&
      overlap(SrcBuffer->Origin + SrcOffset, Size, DstBuffer->Origin + DstOffset, Size))
    return dglink::fail(PI_ERROR_MEM_COPY_OVERLAP,
                        "piEnqueueMemBufferCopy: source bytes [{}, +{}) and destination bytes "
                        "[{}, +{}) of one allocation overlap",
                        SrcBuffer->Origin + SrcOffset, Size, DstBuffer->Origin + DstOffset, Size);
  DGLINK_TRY(checkWaitList(NumEventsInWaitList, EventWaitList));
  return submit(*Queue, PI_COMMAND_TYPE_MEM_BUFFER_COPY, NumEventsInWaitList, EventWaitList, false,
                Event, [&](const Enqueue &Request) {
                  return Queue->Impl->copyBuffer(*SrcBuffer->Impl, SrcOffset, *DstBuffer->Impl,
                                                 DstOffset, Size, Request);
                });
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piEnqueueMemBufferFill(pi_queue Queue, pi_mem Buffer, const void *Pattern,
                                               size_t PatternSize, size_t Offset, size_t Size,
                                               pi_uint32 NumEventsInWaitList,
                                               const pi_event *EventWaitList, pi_event *Event) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_TRY(checkQueueBuffer(__func__, Queue, Buffer, "Buffer"));
  DGLINK_CHECK_NOT_NULL(Pattern, PI_ERROR_INVALID_VALUE);
  if (PatternSize == 0 || (PatternSize & (PatternSize - 1)) != 0 || Size == 0 ||
      Size % PatternSize != 0 || Offset % PatternSize != 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piEnqueueMemBufferFill: a pattern of {} bytes (a power of two is "
                        "needed) does not tile {} bytes at offset {}",
                        PatternSize, Size, Offset);
  DGLINK_TRY(checkRange(__func__, "fill", *Buffer, Offset, Size));
  DGLINK_TRY(checkWaitList(NumEventsInWaitList, EventWaitList));
  if (!drivable(PatternSize)) {
    const std::vector<unsigned char> Tiled = tiled(Pattern, PatternSize, Size);
    const DeviceGlobalLocation Location{Offset, Buffer->Impl.get()};
    return submit(*Queue, PI_COMMAND_TYPE_MEM_BUFFER_FILL, NumEventsInWaitList, EventWaitList, true,
                  Event, [&](const Enqueue &Request) {
                    return Queue->Impl->write(Location, Tiled.data(), Size, Request);
                  });
  }
  return submit(*Queue, PI_COMMAND_TYPE_MEM_BUFFER_FILL, NumEventsInWaitList, EventWaitList, false,
                Event, [&](const Enqueue &Request) {
                  return Queue->Impl->fillBuffer(*Buffer->Impl, Offset, Pattern, PatternSize, Size,
                                                 Request);
                });
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piEnqueueMemBufferReadRect(
    pi_queue Queue, pi_mem Buffer, pi_bool BlockingRead, pi_buff_rect_offset BufferOffset,
    pi_buff_rect_offset HostOffset, pi_buff_rect_region Region, size_t BufferRowPitch,
    size_t BufferSlicePitch, size_t HostRowPitch, size_t HostSlicePitch, void *Ptr,
    pi_uint32 NumEventsInWaitList, const pi_event *EventWaitList, pi_event *Event) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_TRY(checkQueueBuffer(__func__, Queue, Buffer, "Buffer"));
  DGLINK_CHECK_NOT_NULL(Ptr, PI_ERROR_INVALID_VALUE);
  RectCopy Rect;
  DGLINK_TRY(checkRect(__func__, BufferOffset, HostOffset, Region, BufferRowPitch, BufferSlicePitch,
                       HostRowPitch, HostSlicePitch, &Buffer->Size, nullptr, Rect));
  DGLINK_TRY(checkWaitList(NumEventsInWaitList, EventWaitList));
  return submit(*Queue, PI_COMMAND_TYPE_MEM_BUFFER_READ_RECT, NumEventsInWaitList, EventWaitList,
                BlockingRead != PI_FALSE, Event, [&](const Enqueue &Request) {
                  return Queue->Impl->readRect(Ptr, *Buffer->Impl, Rect, Request);
                });
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piEnqueueMemBufferWriteRect(
    pi_queue Queue, pi_mem Buffer, pi_bool BlockingWrite, pi_buff_rect_offset BufferOffset,
    pi_buff_rect_offset HostOffset, pi_buff_rect_region Region, size_t BufferRowPitch,
    size_t BufferSlicePitch, size_t HostRowPitch, size_t HostSlicePitch, const void *Ptr,
    pi_uint32 NumEventsInWaitList, const pi_event *EventWaitList, pi_event *Event) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_TRY(checkQueueBuffer(__func__, Queue, Buffer, "Buffer"));
  DGLINK_CHECK_NOT_NULL(Ptr, PI_ERROR_INVALID_VALUE);
  RectCopy Rect;
  DGLINK_TRY(checkRect(__func__, HostOffset, BufferOffset, Region, HostRowPitch, HostSlicePitch,
                       BufferRowPitch, BufferSlicePitch, nullptr, &Buffer->Size, Rect));
  DGLINK_TRY(checkWaitList(NumEventsInWaitList, EventWaitList));
  return submit(*Queue, PI_COMMAND_TYPE_MEM_BUFFER_WRITE_RECT, NumEventsInWaitList, EventWaitList,
                BlockingWrite != PI_FALSE, Event, [&](const Enqueue &Request) {
                  return Queue->Impl->writeRect(*Buffer->Impl, Ptr, Rect, Request);
                });
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piEnqueueMemBufferCopyRect(
    pi_queue Queue, pi_mem SrcBuffer, pi_mem DstBuffer, pi_buff_rect_offset SrcOrigin,
    pi_buff_rect_offset DstOrigin, pi_buff_rect_region Region, size_t SrcRowPitch,
    size_t SrcSlicePitch, size_t DstRowPitch, size_t DstSlicePitch, pi_uint32 NumEventsInWaitList,
    const pi_event *EventWaitList, pi_event *Event) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_TRY(checkQueueBuffer(__func__, Queue, SrcBuffer, "SrcBuffer"));
  DGLINK_TRY(checkQueueBuffer(__func__, Queue, DstBuffer, "DstBuffer"));
  RectCopy Rect;
  DGLINK_TRY(checkRect(__func__, SrcOrigin, DstOrigin, Region, SrcRowPitch, SrcSlicePitch,
                       DstRowPitch, DstSlicePitch, &SrcBuffer->Size, &DstBuffer->Size, Rect));
  if (&rootOf(*SrcBuffer) == &rootOf(*DstBuffer)) {
    // The spans of both rectangles in their allocation: overlapping spans are refused
    // (OpenCL refuses overlapping rectangles; the spans are the simple, safe test).
    const size_t SrcStart = SrcBuffer->Origin + Rect.srcOffset(0, 0);
    const size_t SrcEnd =
        SrcBuffer->Origin + Rect.srcOffset(Rect.Region[1] - 1, Rect.Region[2] - 1) + Rect.Region[0];
    const size_t DstStart = DstBuffer->Origin + Rect.dstOffset(0, 0);
    const size_t DstEnd =
        DstBuffer->Origin + Rect.dstOffset(Rect.Region[1] - 1, Rect.Region[2] - 1) + Rect.Region[0];
    if (overlap(SrcStart, SrcEnd - SrcStart, DstStart, DstEnd - DstStart))
      return dglink::fail(PI_ERROR_MEM_COPY_OVERLAP,
                          "piEnqueueMemBufferCopyRect: the source bytes [{}, {}) and destination "
                          "bytes [{}, {}) of one allocation overlap",
                          SrcStart, SrcEnd, DstStart, DstEnd);
  }
  DGLINK_TRY(checkWaitList(NumEventsInWaitList, EventWaitList));
  return submit(*Queue, PI_COMMAND_TYPE_MEM_BUFFER_COPY_RECT, NumEventsInWaitList, EventWaitList,
                false, Event, [&](const Enqueue &Request) {
                  return Queue->Impl->copyRect(*SrcBuffer->Impl, *DstBuffer->Impl, Rect, Request);
                });
}
DGLINK_CATCH_ALL

} // extern "C"

// ---- maps ----
//
// A map is a read of the region into host memory the core allocates (a HOST_PTR_USE
// buffer: into the caller's own memory at the offset, which the map returns, as OpenCL
// does), an unmap a write of it back where the map may have written, both through the
// backend's read and write hooks; WRITE_INVALIDATE_REGION alone reads nothing and a
// read-only map writes nothing (a marker keeps their order and events). The core keeps
// each buffer's maps (BufferMappings) and frees a map's memory only once no command
// uses it: after its unmap's write completed, or at the buffer's release, which waits.

namespace dglink::core {

namespace {

constexpr std::align_val_t MappedAlignment{64};

constexpr pi_map_flags KnownMapFlags = PI_MAP_READ | PI_MAP_WRITE | PI_MAP_WRITE_INVALIDATE_REGION;

// Whether a map gets the buffer's bytes, and whether its unmap writes them back.
bool mapReads(pi_map_flags Flags) { return Flags != PI_MAP_WRITE_INVALIDATE_REGION; }
bool mapWrites(pi_map_flags Flags) {
  return Flags == 0 || (Flags & (PI_MAP_WRITE | PI_MAP_WRITE_INVALIDATE_REGION)) != 0;
}

// Takes the maps of List whose command completed (or whose command failed: nothing
// uses the memory then either) into Done.
bool running(const _pi_event *Event) {
  pi_int32 Status = PI_EVENT_COMPLETE;
  return Event != nullptr && Event->Impl->status(Status) == PI_SUCCESS &&
         Status != PI_EVENT_COMPLETE;
}

void takeFinished(std::list<BufferMapping> &List, std::list<BufferMapping> &Done) {
  for (auto It = List.begin(); It != List.end();) {
    if (running(It->Reading) || running(It->WritingBack))
      ++It;
    else
      Done.splice(Done.end(), List, It++);
  }
}

// Frees what Done holds: the events' references, then the memory (outside the buffer's
// lock: a release may end a queue, which waits for its work).
void finish(std::list<BufferMapping> &Done) {
  for (BufferMapping &Map : Done)
    for (_pi_event *Event : {Map.Reading, Map.WritingBack})
      if (Event != nullptr)
        release(Event);
  Done.clear();
}

// The unmapped maps of Buffer whose write-back completed are freed.
void freeUnmapped(_pi_mem &Buffer) {
  std::list<BufferMapping> Done;
  {
    std::lock_guard<std::mutex> Lock(Buffer.Mappings.Mutex);
    takeFinished(Buffer.Mappings.Unmapped, Done);
  }
  finish(Done);
}

// submit() whose command's event the caller gets where it asked (Out) and the core
// keeps (Kept, one reference of its own) until the memory the command uses is freed.
template <typename SubmitFunction>
pi_result submitKept(_pi_queue &Queue, pi_command_type Command, pi_uint32 NumWaits,
                     const pi_event *Waits, bool Blocking, pi_event *Out, _pi_event *&Kept,
                     SubmitFunction &&Submit) {
  pi_event Made = nullptr;
  DGLINK_TRY(submit(Queue, Command, NumWaits, Waits, Blocking, &Made, Submit));
  if (Out != nullptr) {
    retain(Made);
    *Out = Made;
  }
  Kept = Made;
  return PI_SUCCESS;
}

} // namespace

void MappedMemoryDelete::operator()(void *Pointer) const {
  ::operator delete(Pointer, MappedAlignment);
}

void dropMappings(_pi_mem &Mem) {
  std::list<BufferMapping> Done;
  {
    std::lock_guard<std::mutex> Lock(Mem.Mappings.Mutex);
    Done.splice(Done.end(), Mem.Mappings.Live);
    Done.splice(Done.end(), Mem.Mappings.Unmapped);
  }
  for (BufferMapping &Map : Done)
    for (_pi_event *Event : {Map.Reading, Map.WritingBack})
      if (Event != nullptr)
        (void)Event->Impl->wait(); // a failed command uses the memory no longer either
  finish(Done);
}

} // namespace dglink::core

extern "C" {

PI_API_EXPORT pi_result piEnqueueMemBufferMap(pi_queue Queue, pi_mem Buffer, pi_bool BlockingMap,
                                              pi_map_flags MapFlags, size_t Offset, size_t Size,
                                              pi_uint32 NumEventsInWaitList,
                                              const pi_event *EventWaitList, pi_event *Event,
                                              void **RetMap) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_TRY(checkQueueBuffer(__func__, Queue, Buffer, "Buffer"));
  DGLINK_CHECK_NOT_NULL(RetMap, PI_ERROR_INVALID_VALUE);
  if ((MapFlags & ~KnownMapFlags) != 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piEnqueueMemBufferMap: map flags {:#x} are not PI_MAP_READ, PI_MAP_WRITE "
                        "and PI_MAP_WRITE_INVALIDATE_REGION",
                        static_cast<unsigned long long>(MapFlags));
  if ((MapFlags & PI_MAP_READ) != 0 && (MapFlags & PI_MAP_WRITE_INVALIDATE_REGION) != 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE,
                        "piEnqueueMemBufferMap: PI_MAP_READ and PI_MAP_WRITE_INVALIDATE_REGION "
                        "exclude each other");
  if (Size == 0)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "piEnqueueMemBufferMap: argument 'Size' is 0");
  DGLINK_TRY(checkRange(__func__, "map", *Buffer, Offset, Size));
  DGLINK_TRY(checkWaitList(NumEventsInWaitList, EventWaitList));
  freeUnmapped(*Buffer);

  // The map's record is made before the command, so that nothing can fail after it.
  std::list<BufferMapping> Made(1);
  BufferMapping &Map = Made.front();
  Map.Offset = Offset;
  Map.Size = Size;
  Map.Flags = MapFlags;
  if (Buffer->HostPointer != nullptr) {
    Map.Pointer = static_cast<char *>(Buffer->HostPointer) + Offset;
  } else {
    allocationPoint();
    Map.Memory.reset(::operator new(Size, MappedAlignment));
    Map.Pointer = Map.Memory.get();
  }
  BufferMappings &Mappings = Buffer->Mappings;
  {
    // As OpenCL: a region mapped for writing overlaps no other map of the buffer (the
    // unmap's write-back would overwrite the other map's bytes). Checked and recorded
    // under one lock, so that two threads cannot both map overlapping regions.
    std::lock_guard<std::mutex> Lock(Mappings.Mutex);
    for (const BufferMapping &Other : Mappings.Live)
      if (Other.Offset < Offset + Size && Offset < Other.Offset + Other.Size &&
          (mapWrites(Other.Flags) || mapWrites(MapFlags)))
        return dglink::fail(PI_ERROR_INVALID_OPERATION,
                            "piEnqueueMemBufferMap: bytes [{}, {}) overlap bytes [{}, {}) mapped "
                            "{}; a region mapped for writing may not overlap another map",
                            Offset, Offset + Size, Other.Offset, Other.Offset + Other.Size,
                            mapWrites(Other.Flags) ? "for writing" : "for reading");
    Mappings.Live.splice(Mappings.Live.end(), Made);
  }
  // Until the command is enqueued the record is forgotten on every way out (an error, or
  // an allocation failure thrown): nothing was enqueued, the region is free again.
  struct Forget {
    BufferMappings &Mappings;
    const BufferMapping *Map;
    ~Forget() {
      if (Map == nullptr)
        return;
      std::lock_guard<std::mutex> Lock(Mappings.Mutex);
      Mappings.Live.remove_if([&](const BufferMapping &Each) { return &Each == Map; });
    }
  } Unless{Mappings, &Map};
  const bool Blocking = BlockingMap != PI_FALSE;
  const DeviceGlobalLocation Location{Offset, Buffer->Impl.get()};
  _pi_event *Kept = nullptr;
  DGLINK_TRY(submitKept(*Queue, PI_COMMAND_TYPE_MEM_BUFFER_MAP, NumEventsInWaitList, EventWaitList,
                        Blocking, Event, Kept, [&](const Enqueue &Request) {
                          return mapReads(MapFlags)
                                     ? Queue->Impl->read(Map.Pointer, Location, Size, Request)
                                     : Queue->Impl->marker(false, Request);
                        }));
  Unless.Map = nullptr; // enqueued: the map is live
  if (Blocking) {
    release(Kept); // complete: nothing writes the memory any more
  } else {
    std::lock_guard<std::mutex> Lock(Mappings.Mutex);
    Map.Reading = Kept;
  }
  *RetMap = Map.Pointer;
  return PI_SUCCESS;
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piEnqueueMemUnmap(pi_queue Queue, pi_mem Buffer, void *MappedPtr,
                                          pi_uint32 NumEventsInWaitList,
                                          const pi_event *EventWaitList, pi_event *Event) try {
  DGLINK_ENTRY();
  DGLINK_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_TRY(checkQueueBuffer(__func__, Queue, Buffer, "Buffer"));
  DGLINK_CHECK_NOT_NULL(MappedPtr, PI_ERROR_INVALID_VALUE);
  DGLINK_TRY(checkWaitList(NumEventsInWaitList, EventWaitList));
  freeUnmapped(*Buffer);

  // The map leaves the live ones while its write-back is submitted (another thread's
  // unmap of the same pointer takes another map of it, or is refused), and goes back
  // where the submission fails.
  BufferMappings &Mappings = Buffer->Mappings;
  std::list<BufferMapping> Taken;
  {
    std::lock_guard<std::mutex> Lock(Mappings.Mutex);
    const auto It =
        std::find_if(Mappings.Live.begin(), Mappings.Live.end(),
                     [&](const BufferMapping &Map) { return Map.Pointer == MappedPtr; });
    if (It == Mappings.Live.end())
      return dglink::fail(PI_ERROR_INVALID_VALUE,
                          "piEnqueueMemUnmap: pointer {} is not a live map of this buffer (it "
                          "has {} live map{}); unmap each pointer piEnqueueMemBufferMap returned "
                          "for it once",
                          fmt::ptr(MappedPtr), Mappings.Live.size(),
                          Mappings.Live.size() == 1 ? "" : "s");
    Taken.splice(Taken.end(), Mappings.Live, It);
  }
  BufferMapping &Map = Taken.front();
  const DeviceGlobalLocation Location{Map.Offset, Buffer->Impl.get()};
  // Back among the live maps where the write-back was refused (or an allocation threw);
  // else freed once both commands completed (the map's may have been on another queue).
  const auto settle = [&](bool Unmapped) {
    std::lock_guard<std::mutex> Lock(Mappings.Mutex);
    std::list<BufferMapping> &Into = Unmapped ? Mappings.Unmapped : Mappings.Live;
    Into.splice(Into.end(), Taken);
  };
  _pi_event *Kept = nullptr;
  pi_result Result = PI_SUCCESS;
  try {
    Result = submitKept(*Queue, PI_COMMAND_TYPE_MEM_BUFFER_UNMAP, NumEventsInWaitList,
                        EventWaitList, false, Event, Kept, [&](const Enqueue &Request) {
                          return mapWrites(Map.Flags)
                                     ? Queue->Impl->write(Location, Map.Pointer, Map.Size, Request)
                                     : Queue->Impl->marker(false, Request);
                        });
  } catch (...) {
    settle(false);
    throw;
  }
  Map.WritingBack = Kept;
  settle(Result == PI_SUCCESS);
  return Result;
}
DGLINK_CATCH_ALL

} // extern "C"
