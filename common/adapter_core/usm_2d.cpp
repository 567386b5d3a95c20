// 2D USM copies and fills (UR's urEnqueueUSMMemcpy2D / urEnqueueUSMFill2D) on every
// backend, checked once here: contiguous rows go to the 1D hooks, the rest to the
// backend's 2D hooks, whose default composes them of 1D commands row by row; and the
// device's timestamp as a command (urEnqueueTimestampRecordingExp).
#include "entry.h"

#include <cstring>
#include <limits>

using namespace dglink::core;

namespace dglink::core {

namespace {

// Runs Row(Index, Request) for each of Height rows in queue order: the first after the
// caller's wait list, the last with its event and blocking (the queue is in order, so
// the last row's completion is the command's).
template <typename RowFunction>
pi_result rowByRow(size_t Height, const Enqueue &Request, RowFunction &&Row) {
  for (size_t Index = 0; Index < Height; ++Index) {
    Enqueue Part;
    if (Index == 0) {
      Part.Waits = Request.Waits;
      Part.NumWaits = Request.NumWaits;
    }
    if (Index + 1 == Height) {
      Part.Blocking = Request.Blocking;
      Part.Out = Request.Out;
    }
    DGLINK_TRY(Row(Index, Part));
  }
  return PI_SUCCESS;
}

// Pitch * Height bytes at Ptr inside the USM allocation Ptr lies in, where the core or
// the driver knows it (UR's spec: "pitch * height is higher than the allocation size").
pi_result checkRows(const char *Function, _pi_context &Context, const char *Name, const void *Ptr,
                    size_t Pitch, size_t Height) {
  if (Pitch > std::numeric_limits<size_t>::max() / Height)
    return dglink::fail(PI_ERROR_INVALID_BUFFER_SIZE, "{}: {} rows of pitch {} overflow size_t",
                        Function, Height, Pitch);
  UsmAllocationInfo Allocation;
  if (!findUsmAllocation(Context, Ptr, Allocation))
    return PI_SUCCESS; // host memory of the caller's: its size is not known
  const size_t Offset =
      reinterpret_cast<uintptr_t>(Ptr) - reinterpret_cast<uintptr_t>(Allocation.Base);
  if (Pitch * Height > Allocation.Size - Offset)
    return dglink::fail(PI_ERROR_INVALID_BUFFER_SIZE,
                        "{}: {} rows of pitch {} at '{}' ({} bytes into the {}-byte {} allocation "
                        "at {}) pass its end",
                        Function, Height, Pitch, Name, Offset, Allocation.Size,
                        usmKindName(Allocation.Kind), fmt::ptr(Allocation.Base));
  return PI_SUCCESS;
}

pi_result checkPitch(const char *Function, const char *Name, size_t Pitch, size_t Width) {
  if (Pitch == 0 || Pitch < Width)
    return dglink::fail(PI_ERROR_INVALID_BUFFER_SIZE, "{}: '{}' {} is {}", Function, Name, Pitch,
                        Pitch == 0 ? "0" : fmt::format("below the width {}", Width));
  return PI_SUCCESS;
}

} // namespace

pi_result QueueImpl::usmCopy2D(void *Dst, size_t DstPitch, const void *Src, size_t SrcPitch,
                               size_t Width, size_t Height, const Enqueue &Request) {
  return rowByRow(Height, Request, [&](size_t Row, const Enqueue &Part) {
    return usmCopy(static_cast<char *>(Dst) + Row * DstPitch,
                   static_cast<const char *>(Src) + Row * SrcPitch, Width, Part);
  });
}

pi_result QueueImpl::usmFill2D(void *Ptr, size_t Pitch, const void *Pattern, size_t PatternSize,
                               size_t Width, size_t Height, const Enqueue &Request) {
  return rowByRow(Height, Request, [&](size_t Row, const Enqueue &Part) {
    return usmFill(static_cast<char *>(Ptr) + Row * Pitch, Pattern, PatternSize, Width, Part);
  });
}

pi_result QueueImpl::timestamp(const Enqueue & /*Request*/) { return PI_ERROR_UNSUPPORTED_FEATURE; }

pi_result enqueueUsmCopy2D(const char *Function, pi_queue Queue, bool Blocking, void *Dst,
                           size_t DstPitch, const void *Src, size_t SrcPitch, size_t Width,
                           size_t Height, pi_uint32 NumWaits, const pi_event *Waits,
                           pi_event *Event) {
  DGLINK_TRY(checkHandle(Queue, PI_ERROR_INVALID_QUEUE, Function, "Queue"));
  if (Dst == nullptr || Src == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: argument '{}' is null", Function,
                        Dst == nullptr ? "Dst" : "Src");
  DGLINK_TRY(checkPitch(Function, "DstPitch", DstPitch, Width));
  DGLINK_TRY(checkPitch(Function, "SrcPitch", SrcPitch, Width));
  if (Height == 0)
    return dglink::fail(PI_ERROR_INVALID_BUFFER_SIZE, "{}: argument 'Height' is 0", Function);
  DGLINK_TRY(checkRows(Function, *Queue->Context, "Dst", Dst, DstPitch, Height));
  DGLINK_TRY(checkRows(Function, *Queue->Context, "Src", Src, SrcPitch, Height));
  DGLINK_TRY(checkWaitList(NumWaits, Waits));
  return submit(*Queue, PI_COMMAND_TYPE_USM_MEMCPY_2D, NumWaits, Waits, Blocking, Event,
                [&](const Enqueue &Request) {
                  if (Width == 0) // nothing to copy: a command that only orders
                    return Queue->Impl->marker(false, Request);
                  if (Height == 1 || (DstPitch == Width && SrcPitch == Width))
                    return Queue->Impl->usmCopy(Dst, Src, Width * Height, Request);
                  return Queue->Impl->usmCopy2D(Dst, DstPitch, Src, SrcPitch, Width, Height,
                                                Request);
                });
}

pi_result enqueueUsmFill2D(const char *Function, pi_queue Queue, void *Ptr, size_t Pitch,
                           const void *Pattern, size_t PatternSize, size_t Width, size_t Height,
                           pi_uint32 NumWaits, const pi_event *Waits, pi_event *Event) {
  DGLINK_TRY(checkHandle(Queue, PI_ERROR_INVALID_QUEUE, Function, "Queue"));
  if (Ptr == nullptr || Pattern == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: argument '{}' is null", Function,
                        Ptr == nullptr ? "Ptr" : "Pattern");
  DGLINK_TRY(checkPitch(Function, "Pitch", Pitch, Width));
  if (Width == 0 || Height == 0)
    return dglink::fail(PI_ERROR_INVALID_BUFFER_SIZE, "{}: argument '{}' is 0", Function,
                        Width == 0 ? "Width" : "Height");
  if (PatternSize == 0 || (PatternSize & (PatternSize - 1)) != 0)
    return dglink::fail(PI_ERROR_INVALID_BUFFER_SIZE,
                        "{}: a pattern of {} bytes: its size must be a power of two", Function,
                        PatternSize);
  if (Width > std::numeric_limits<size_t>::max() / Height)
    return dglink::fail(PI_ERROR_INVALID_BUFFER_SIZE, "{}: {} rows of {} bytes overflow size_t",
                        Function, Height, Width);
  const size_t Bytes = Width * Height;
  if (PatternSize > Bytes || Bytes % PatternSize != 0)
    return dglink::fail(PI_ERROR_INVALID_BUFFER_SIZE,
                        "{}: a pattern of {} bytes does not tile {} rows of {} bytes", Function,
                        PatternSize, Height, Width);
  DGLINK_TRY(checkRows(Function, *Queue->Context, "Ptr", Ptr, Pitch, Height));
  DGLINK_TRY(checkWaitList(NumWaits, Waits));
  // Rows whose starts are aligned to the whole pattern (what OpenCL's SVM fill asks) go to
  // the backend's fills: contiguous rows as one, else its 2D fill where every row starts
  // at the pattern's start. Otherwise the rows as the pattern tiles them, copied from the
  // host, blocking (the tile then goes away).
  const bool Contiguous = Height == 1 || Pitch == Width;
  const bool Aligned = reinterpret_cast<uintptr_t>(Ptr) % PatternSize == 0 &&
                       (Contiguous || Pitch % PatternSize == 0);
  if (Contiguous && Aligned)
    return submitUsmFill(*Queue, PI_COMMAND_TYPE_USM_FILL_2D, Ptr, Pattern, PatternSize, Bytes,
                         NumWaits, Waits, Event);
  if (Aligned && Width % PatternSize == 0 && drivable(PatternSize))
    return submit(*Queue, PI_COMMAND_TYPE_USM_FILL_2D, NumWaits, Waits, false, Event,
                  [&](const Enqueue &Request) {
                    return Queue->Impl->usmFill2D(Ptr, Pitch, Pattern, PatternSize, Width, Height,
                                                  Request);
                  });
  const std::vector<unsigned char> Tiled = tiled(Pattern, PatternSize, Bytes);
  return submit(*Queue, PI_COMMAND_TYPE_USM_FILL_2D, NumWaits, Waits, true, Event,
                [&](const Enqueue &Request) {
                  if (Contiguous)
                    return Queue->Impl->usmCopy(Ptr, Tiled.data(), Bytes, Request);
                  return Queue->Impl->usmCopy2D(Ptr, Pitch, Tiled.data(), Width, Width, Height,
                                                Request);
                });
}

pi_result enqueueTimestamp(const char *Function, pi_queue Queue, bool Blocking, pi_uint32 NumWaits,
                           const pi_event *Waits, pi_event *Event) {
  DGLINK_TRY(checkHandle(Queue, PI_ERROR_INVALID_QUEUE, Function, "Queue"));
  if (Event == nullptr)
    return dglink::fail(PI_ERROR_INVALID_VALUE, "{}: argument 'Event' is null", Function);
  if (!Queue->Device->Description.TimestampRecording)
    return dglink::fail(PI_ERROR_UNSUPPORTED_FEATURE,
                        "{}: device '{}' cannot record timestamps on its queues", Function,
                        Queue->Device->Description.Name);
  DGLINK_TRY(checkWaitList(NumWaits, Waits));
  return submit(*Queue, PI_COMMAND_TYPE_TIMESTAMP_RECORDING, NumWaits, Waits, Blocking, Event,
                [&](const Enqueue &Request) { return Queue->Impl->timestamp(Request); });
}

} // namespace dglink::core
