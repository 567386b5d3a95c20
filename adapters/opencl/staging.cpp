// Copies between pageable host memory and the device through pinned staging: NVIDIA's
// OpenCL moves driver-allocated host memory by DMA, and pageable memory only after
// copying it through its own staging with one thread. Here the adapter's host threads
// (common/host_copy, the stream backend's) copy between the caller's memory and blocks of
// pinned memory, in chunks, while the driver moves the chunk before (docs/opencl.md,
// "Staging").
#include "backend.h"

#include <dglink/host_copy/tuning.h>
#include <dglink/support/log.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace dglink::opencl {
namespace {

// Chunks a blocking copy keeps in flight: the driver moves one while the threads fill
// (or empty) the next.
constexpr size_t ChunksInFlight = 4;

// DGLINK_OPENCL_STAGING: 1 (on, every device), 0 (off), unset or "auto": NVIDIA's GPUs.
int stagingForced() {
  static const int Forced = [] {
    const char *Text = std::getenv("DGLINK_OPENCL_STAGING");
    if (Text == nullptr || *Text == '\0' || !std::strcmp(Text, "auto"))
      return -1;
    if (!std::strcmp(Text, "0") || !std::strcmp(Text, "off") || !std::strcmp(Text, "false"))
      return 0;
    if (!std::strcmp(Text, "1") || !std::strcmp(Text, "on") || !std::strcmp(Text, "true"))
      return 1;
    logger().warn("ignoring DGLINK_OPENCL_STAGING='{}' (use 0, 1 or auto); staging on NVIDIA's "
                  "OpenCL GPUs only",
                  Text);
    return -1;
  }();
  return Forced;
}

// 64 KiB: NVIDIA's OpenCL on an H200 wrote 64 KiB in 21.1 us from pageable memory and in
// 18.7 us with a memcpy into pinned memory first (reads 23.1 and 18.1); smaller copies
// gain less than staging costs (docs/opencl.md).
size_t stagingBytes() {
  static const size_t Bytes = host_copy::knobSize("DGLINK_OPENCL_STAGING_BYTES", size_t{64} * 1024);
  return Bytes;
}

const host_copy::CopyTuning &tuning() { return host_copy::copyTuning(); }

void releaseEvent(cl_event &Event) {
  if (Event != nullptr)
    clReleaseEvent(Event);
  Event = nullptr;
}

// The host side of one chunk, on the adapter's threads where it is large enough.
void hostCopy(void *Dst, const void *Src, size_t Count, bool IsRead) {
  const host_copy::CopyTuning &T = tuning();
  const bool Streaming = IsRead ? T.ReadNonTemporal : T.NonTemporal;
  const unsigned Threads = Count >= T.ParallelBytes ? (IsRead ? T.ReadThreads : T.Threads) : 1;
  copyThreads().copy(Dst, Src, Count, T.PieceBytes, Streaming, Threads);
}

// A non-blocking read whose chunks are on their way into staging: the last one's
// callback copies them out, gives the blocks back and completes User.
struct PendingRead {
  ClStaging *Staging = nullptr;
  char *Dst = nullptr;
  size_t Size = 0;
  size_t Chunk = 0;
  std::vector<ClStaging::Block> Blocks; // chunk I in block I
  cl_event User = nullptr;
};

void CL_CALLBACK readArrived(cl_event, cl_int Status, void *Data) {
  const std::unique_ptr<PendingRead> Read(static_cast<PendingRead *>(Data));
  if (Status == CL_COMPLETE)
    for (size_t I = 0, Offset = 0; Offset < Read->Size; ++I, Offset += Read->Chunk)
      hostCopy(Read->Dst + Offset, Read->Blocks[I].Host, std::min(Read->Chunk, Read->Size - Offset),
               true);
  for (ClStaging::Block &B : Read->Blocks)
    releaseEvent(B.Busy); // complete: the last chunk is, and the queue is in order
  Read->Staging->give(Read->Blocks);
  Read->Staging->ended(); // the last touch of the staging
  // A failed chunk fails the read with its code (OpenCL's callbacks see a negative status).
  clSetUserEventStatus(Read->User, Status == CL_COMPLETE ? CL_COMPLETE
                                   : Status < 0          ? Status
                                                         : CL_OUT_OF_RESOURCES);
  clReleaseEvent(Read->User);
}

} // namespace

size_t stagingThreshold(const std::string &PlatformVendor, cl_device_type Type) {
  const int Forced = stagingForced();
  const bool On = Forced == -1 ? PlatformVendor.find("NVIDIA") != std::string::npos &&
                                     (Type & CL_DEVICE_TYPE_GPU) != 0
                               : Forced == 1;
  return On ? stagingBytes() : SIZE_MAX;
}

ClStaging::~ClStaging() {
  std::unique_lock<std::mutex> Lock(Mutex);
  Quiet.wait(Lock, [&] { return Pending == 0; });
  for (Block &B : Free) {
    if (B.Busy != nullptr)
      clWaitForEvents(1, &B.Busy);
    releaseEvent(B.Busy);
    clEnqueueUnmapMemObject(MapQueue, B.Mem, B.Host, 0, nullptr, nullptr);
  }
  clFinish(MapQueue);
  for (Block &B : Free)
    clReleaseMemObject(B.Mem);
  clReleaseCommandQueue(MapQueue);
}

pi_result ClStaging::take(size_t Wanted, std::vector<Block> &Out) {
  size_t ToMake = 0;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    for (size_t I = 0; I < Free.size() && Out.size() < Wanted;) {
      cl_int Status = CL_COMPLETE;
      if (Free[I].Busy != nullptr && clGetEventInfo(Free[I].Busy, CL_EVENT_COMMAND_EXECUTION_STATUS,
                                                    sizeof(Status), &Status, nullptr) != CL_SUCCESS)
        Status = CL_COMPLETE; // no answer: its command is gone
      // A negative status is a failed command: it no longer touches the block.
      if (Status > CL_COMPLETE) {
        ++I;
        continue;
      }
      releaseEvent(Free[I].Busy);
      Out.push_back(Free[I]);
      Free[I] = Free.back();
      Free.pop_back();
    }
    ToMake = std::min(Wanted - Out.size(), MostBlocks - Made);
    Made += ToMake;
  }
  for (size_t I = 0; I < ToMake; ++I) {
    Block B;
    cl_int Error = CL_SUCCESS;
    B.Mem = clCreateBuffer(Context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, BlockBytes, nullptr,
                           &Error);
    if (Error == CL_SUCCESS)
      B.Host = static_cast<char *>(clEnqueueMapBuffer(MapQueue, B.Mem, CL_TRUE,
                                                      CL_MAP_READ | CL_MAP_WRITE, 0, BlockBytes, 0,
                                                      nullptr, nullptr, &Error));
    if (Error != CL_SUCCESS) {
      if (B.Mem != nullptr)
        clReleaseMemObject(B.Mem);
      std::lock_guard<std::mutex> Lock(Mutex);
      Made -= ToMake - I;
      // Without staging memory the copy goes to the driver; say why once per failure.
      logger().warn("opencl: no pinned staging memory ({} of {} bytes: {}); copying directly",
                    B.Mem == nullptr ? "clCreateBuffer" : "clEnqueueMapBuffer", BlockBytes,
                    clErrorName(Error));
      break;
    }
    Out.push_back(B);
  }
  return PI_SUCCESS;
}

void ClStaging::give(std::vector<Block> &Blocks) {
  std::lock_guard<std::mutex> Lock(Mutex);
  Free.insert(Free.end(), Blocks.begin(), Blocks.end());
  Blocks.clear();
}

void ClStaging::began() {
  std::lock_guard<std::mutex> Lock(Mutex);
  ++Pending;
}

void ClStaging::ended() {
  std::lock_guard<std::mutex> Lock(Mutex);
  if (--Pending == 0)
    Quiet.notify_all();
}

pi_result ClContext::staging(const _pi_device &Device, ClStaging *&Out) {
  std::lock_guard<std::mutex> Lock(StagingMutex);
  for (const auto &[Of, Staging] : Stagings)
    if (Of == &Device) {
      Out = Staging.get();
      return PI_SUCCESS;
    }
  // The blocks are mapped and unmapped on a queue of their own, which outlives the
  // caller's queues.
  cl_int Error = CL_SUCCESS;
  cl_command_queue MapQueue =
      clCreateCommandQueueWithProperties(Context, clDevice(Device).Device, nullptr, &Error);
  if (Error != CL_SUCCESS)
    return clFailure(Error, "a staged copy", "clCreateCommandQueueWithProperties");
  const host_copy::CopyTuning &T = tuning();
  const size_t BlockBytes = std::max(T.WriteChunkBytes, T.ReadChunkBytes);
  const size_t MostBlocks = std::max<size_t>(T.StagingLimitBytes / BlockBytes, 1);
  Stagings.emplace_back(&Device,
                        std::make_unique<ClStaging>(Context, MapQueue, BlockBytes, MostBlocks));
  Out = Stagings.back().second.get();
  logger().debug("opencl: pinned staging for device '{}' of a context: blocks of {} bytes, at "
                 "most {}",
                 Device.Description.Name, BlockBytes, MostBlocks);
  return PI_SUCCESS;
}

bool ClQueue::stages(const void *Host, size_t Size) const {
  if (Size < clDevice(Device).StagesFrom)
    return false;
  // The context's own USM host memory is the driver's (pinned where it pins anything).
  core::UsmAllocationInfo Info;
  return Context.Usm == PI_USM_MECHANISM_NONE ||
         !core::findUsmAllocation(Context.Owner, Host, Info);
}

pi_result ClQueue::stagingBlocks(const core::Enqueue &Request, size_t Size, size_t ChunkBytes,
                                 ClStaging *&Staging, size_t &Chunk,
                                 std::vector<ClStaging::Block> &Blocks) {
  DGLINK_TRY(checkSameContext(Request, Context));
  DGLINK_TRY(Context.staging(Device, Staging));
  Chunk = std::min(ChunkBytes, Staging->blockBytes());
  const size_t Chunks = (Size + Chunk - 1) / Chunk;
  // A non-blocking copy stages whole or not at all: waiting for a block of its own would
  // wait for its wait list, which may hold a user event set after this call returns (a
  // read also holds a block per chunk until its callback has copied them out).
  const size_t Wanted = Request.Blocking ? std::min(Chunks, ChunksInFlight) : Chunks;
  DGLINK_TRY(Staging->take(Wanted, Blocks));
  if (!Request.Blocking && Blocks.size() < Chunks)
    Staging->give(Blocks); // empties Blocks: the copy goes to the driver
  return PI_SUCCESS;
}

pi_result ClQueue::stagedWrite(const char *ClFunction, const void *Src, size_t Size,
                               const core::Enqueue &Request, const ChunkCommand &Command,
                               bool &Staged) {
  Staged = false;
  ClStaging *Staging = nullptr;
  size_t Chunk = 0;
  std::vector<ClStaging::Block> Blocks;
  DGLINK_TRY(stagingBlocks(Request, Size, tuning().WriteChunkBytes, Staging, Chunk, Blocks));
  if (Blocks.empty())
    return PI_SUCCESS;
  const WaitList Waits(Request);
  const auto *From = static_cast<const char *>(Src);
  cl_event Last = nullptr;
  cl_int Error = CL_SUCCESS;
  for (size_t I = 0, Offset = 0; Offset < Size; ++I, Offset += Chunk) {
    ClStaging::Block &B = Blocks[I % Blocks.size()];
    if (B.Busy != nullptr) { // a chunk of this copy, a blocking one: waiting is the caller's
      Error = clWaitForEvents(1, &B.Busy);
      releaseEvent(B.Busy);
      if (Error != CL_SUCCESS)
        break;
    }
    const size_t Count = std::min(Chunk, Size - Offset);
    hostCopy(B.Host, From + Offset, Count, false);
    // The first chunk waits for the wait list; the queue is in order, so the others too.
    Error = Command(Offset, Count, B.Host, I == 0 ? Waits.size() : 0,
                    I == 0 ? Waits.data() : nullptr, &B.Busy);
    if (Error != CL_SUCCESS) {
      B.Busy = nullptr;
      break;
    }
    Last = B.Busy;
    // Submitted now, so that the driver moves this chunk while the threads fill the next
    // (a driver may hold commands until a flush or a wait).
    if (Offset + Count < Size)
      clFlush(Queue);
  }
  if (Error == CL_SUCCESS && Request.Blocking)
    Error = clWaitForEvents(1, &Last);
  if (Error == CL_SUCCESS && Request.Out != nullptr) {
    clRetainEvent(Last);
    *Request.Out = std::make_unique<ClEvent>(Last);
  }
  Staging->give(Blocks); // with the events of their chunks: reused once those complete
  if (Error != CL_SUCCESS)
    return commandFailure(ClFunction, Error);
  Staged = true;
  return PI_SUCCESS;
}

pi_result ClQueue::stagedRead(const char *ClFunction, void *Dst, size_t Size,
                              const core::Enqueue &Request, const ChunkCommand &Command,
                              bool &Staged) {
  Staged = false;
  ClStaging *Staging = nullptr;
  size_t Chunk = 0;
  std::vector<ClStaging::Block> Blocks;
  DGLINK_TRY(stagingBlocks(Request, Size, tuning().ReadChunkBytes, Staging, Chunk, Blocks));
  if (Blocks.empty())
    return PI_SUCCESS;
  const size_t Chunks = (Size + Chunk - 1) / Chunk;
  const WaitList Waits(Request);
  auto *Into = static_cast<char *>(Dst);
  auto Enqueue = [&](size_t I) {
    const size_t Offset = I * Chunk;
    ClStaging::Block &B = Blocks[I % Blocks.size()];
    const cl_int Error =
        Command(Offset, std::min(Chunk, Size - Offset), B.Host, I == 0 ? Waits.size() : 0,
                I == 0 ? Waits.data() : nullptr, &B.Busy);
    if (Error != CL_SUCCESS)
      B.Busy = nullptr;
    return Error;
  };
  cl_int Error = CL_SUCCESS;
  for (size_t I = 0; I < Blocks.size() && Error == CL_SUCCESS; ++I)
    Error = Enqueue(I);
  if (Error != CL_SUCCESS) {
    Staging->give(Blocks);
    return commandFailure(ClFunction, Error);
  }
  if (Request.Blocking) {
    cl_event Last = nullptr;
    for (size_t I = 0; I < Chunks && Error == CL_SUCCESS; ++I) {
      ClStaging::Block &B = Blocks[I % Blocks.size()];
      Error = clWaitForEvents(1, &B.Busy);
      if (Error != CL_SUCCESS)
        break;
      const size_t Offset = I * Chunk;
      hostCopy(Into + Offset, B.Host, std::min(Chunk, Size - Offset), true);
      if (I + Blocks.size() < Chunks) {
        releaseEvent(B.Busy);
        Error = Enqueue(I + Blocks.size());
      } else if (I + 1 == Chunks) {
        Last = B.Busy;
      }
    }
    if (Error == CL_SUCCESS && Request.Out != nullptr) {
      clRetainEvent(Last);
      *Request.Out = std::make_unique<ClEvent>(Last);
    }
    Staging->give(Blocks);
    if (Error != CL_SUCCESS)
      return commandFailure(ClFunction, Error);
    Staged = true;
    return PI_SUCCESS;
  }
  // Not blocking: the last chunk's callback copies every chunk out and completes User; a
  // marker after User is the request's event and holds the queue's later commands back
  // until the caller's memory is filled.
  auto Read = std::make_unique<PendingRead>();
  Read->User = clCreateUserEvent(Context.Context, &Error);
  if (Error != CL_SUCCESS) {
    // The chunks are on their way: wait for them, then give the blocks back.
    clWaitForEvents(1, &Blocks.back().Busy);
    Staging->give(Blocks);
    return commandFailure("clCreateUserEvent", Error);
  }
  cl_event LastChunk = Blocks.back().Busy;
  Read->Staging = Staging;
  Read->Dst = Into;
  Read->Size = Size;
  Read->Chunk = Chunk;
  Read->Blocks = std::move(Blocks);
  cl_event User = Read->User;
  clRetainEvent(User); // for the marker below, which the callback may outrun
  Staging->began();
  Error = clSetEventCallback(LastChunk, CL_COMPLETE, readArrived, Read.get());
  if (Error != CL_SUCCESS) {
    // No callback: copy out here, once the chunks are in.
    const cl_int Arrived = clWaitForEvents(1, &LastChunk);
    readArrived(LastChunk, Arrived == CL_SUCCESS ? CL_COMPLETE : Arrived, Read.release());
  } else {
    (void)Read.release(); // the callback's now
  }
  std::unique_ptr<ClEvent> Made;
  if (Request.Out != nullptr)
    Made = std::make_unique<ClEvent>(nullptr);
  cl_event *Out = Made != nullptr ? &Made->Event : nullptr;
  if (Profiling && Out != nullptr) {
    // As enqueueMarker: a fill of the queue's stamp carries the driver's times.
    const cl_uint Zero = 0;
    Error = clEnqueueFillBuffer(Queue, Stamp, &Zero, sizeof(Zero), 0, sizeof(Zero), 1, &User, Out);
  } else {
    Error = clEnqueueMarkerWithWaitList(Queue, 1, &User, Out);
  }
  if (Error != CL_SUCCESS) {
    // The caller's memory is filled once User completes; nothing holds the queue back.
    clWaitForEvents(1, &User);
    clReleaseEvent(User);
    return commandFailure(
        Profiling && Out != nullptr ? "clEnqueueFillBuffer" : "clEnqueueMarkerWithWaitList", Error);
  }
  clReleaseEvent(User);
  // The read completes through a host callback, not through a wait on it that would flush
  // the queue: submit the chunks now, so that a caller that only polls the event sees it
  // complete.
  clFlush(Queue);
  if (Made != nullptr)
    *Request.Out = std::move(Made);
  Staged = true;
  return PI_SUCCESS;
}

} // namespace dglink::opencl
