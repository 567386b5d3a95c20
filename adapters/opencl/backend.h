// The OpenCL backend: the adapter core's hooks over the OpenCL ICD loader (PoCL in CI,
// NVIDIA's OpenCL and a newer PoCL on the GPU host). What the core does not do:
// OpenCL's objects, contexts of several devices, USM through
// cl_intel_unified_shared_memory or OpenCL 2.0 SVM, SPIR and SPIR-V compiled and
// linked by the driver, and device globals in storage the adapter owns (images the
// shim lowered, docs/opencl-lowering.md) or through cl_intel_global_variable_access.
#pragma once

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <dglink/core/backend.h>
#include <dglink/host_copy/host_copy.h>

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace dglink::opencl {

// cl_intel_global_variable_access is not in the Khronos headers of Debian 12.
using clEnqueueReadGlobalVariableINTEL_fn = cl_int(CL_API_CALL *)(
    cl_command_queue Queue, cl_program Program, const char *Name, cl_bool Blocking, size_t Size,
    size_t Offset, void *Dst, cl_uint NumEvents, const cl_event *WaitList, cl_event *Event);
using clEnqueueWriteGlobalVariableINTEL_fn = cl_int(CL_API_CALL *)(
    cl_command_queue Queue, cl_program Program, const char *Name, cl_bool Blocking, size_t Size,
    size_t Offset, const void *Src, cl_uint NumEvents, const cl_event *WaitList, cl_event *Event);

// cl_intel_unified_shared_memory entry points, resolved once per platform.
struct IntelUsmFunctions {
  clHostMemAllocINTEL_fn HostMemAlloc = nullptr;
  clDeviceMemAllocINTEL_fn DeviceMemAlloc = nullptr;
  clSharedMemAllocINTEL_fn SharedMemAlloc = nullptr;
  clMemFreeINTEL_fn MemFree = nullptr; // after the adapter's own wait (ClContext::freeUsm)
  clEnqueueMemcpyINTEL_fn EnqueueMemcpy = nullptr;
  clEnqueueMemFillINTEL_fn EnqueueMemFill = nullptr;
  clSetKernelArgMemPointerINTEL_fn SetKernelArgMemPointer = nullptr;
  // Optional (the queries and prefetches fall back without them).
  clGetMemAllocInfoINTEL_fn GetMemAllocInfo = nullptr;
  clEnqueueMigrateMemINTEL_fn EnqueueMigrateMem = nullptr;
  bool complete() const {
    return HostMemAlloc && DeviceMemAlloc && SharedMemAlloc && MemFree && EnqueueMemcpy &&
           EnqueueMemFill && SetKernelArgMemPointer;
  }
};

// cl_intel_global_variable_access entry points, resolved once per platform.
struct GlobalVariableFunctions {
  clEnqueueReadGlobalVariableINTEL_fn Read = nullptr;
  clEnqueueWriteGlobalVariableINTEL_fn Write = nullptr;
  bool complete() const { return Read && Write; }
};

// The symbolic name of an OpenCL error code ("CL_INVALID_VALUE").
const char *clErrorName(cl_int Error);
// OpenCL and PI share their numbering; codes PI does not name become
// PI_ERROR_PLUGIN_SPECIFIC_ERROR (the message keeps the OpenCL code).
pi_result toPiResult(cl_int Error);
// Records "<PiFunction>: <ClFunction> failed with <name> (<code>)" and returns the PI code.
pi_result clFailure(cl_int Error, const char *PiFunction, const char *ClFunction);

// Strings of clGetDeviceInfo / clGetPlatformInfo; empty on error.
std::string deviceString(cl_device_id Device, cl_device_info Param);
std::string platformString(cl_platform_id Platform, cl_platform_info Param);

template <typename T> T deviceScalar(cl_device_id Device, cl_device_info Param, T Default = T{}) {
  T Value{};
  if (clGetDeviceInfo(Device, Param, sizeof(T), &Value, nullptr) != CL_SUCCESS)
    return Default;
  return Value;
}

// "native driver binary" for formats the bytes do not tell, else formatName.
const char *formatLabel(ImageFormat Format);

// ---- staging (staging.cpp) ----

// From how many bytes a device's copies between pageable host memory and device memory go
// through pinned staging: DGLINK_OPENCL_STAGING_BYTES (64 KiB) on NVIDIA's OpenCL GPUs, or
// on every device with DGLINK_OPENCL_STAGING=1; SIZE_MAX (never) elsewhere or with
// DGLINK_OPENCL_STAGING=0. PoCL's CPU device gains nothing: no DMA, a second copy.
size_t stagingThreshold(const std::string &PlatformVendor, cl_device_type Type);

// The adapter's host threads, which copy between pageable memory and staging (started on
// the first copy that needs them; platform.cpp).
host_copy::HostCopyPool &copyThreads();

// Pinned host memory of one device of a context, in blocks the driver allocated
// (CL_MEM_ALLOC_HOST_PTR) and that stay mapped: NVIDIA's OpenCL copies from and into them
// by DMA. Made as copies need them, up to DGLINK_COPY_POOL_BYTES; shared by every queue and
// thread of the context on that device.
class ClStaging {
public:
  struct Block {
    cl_mem Mem = nullptr;
    char *Host = nullptr;
    cl_event Busy = nullptr; // the last command that reads or writes it, owned
  };
  ClStaging(cl_context TheContext, cl_command_queue TheMapQueue, size_t TheBlockBytes,
            size_t TheMostBlocks)
      : Context(TheContext), MapQueue(TheMapQueue), BlockBytes(TheBlockBytes),
        MostBlocks(TheMostBlocks) {}
  // Waits for the copies in flight and their callbacks, unmaps and frees the blocks.
  ~ClStaging();
  ClStaging(const ClStaging &) = delete;
  ClStaging &operator=(const ClStaging &) = delete;

  size_t blockBytes() const { return BlockBytes; }
  // Appends to Out up to Wanted blocks whose last command is complete, made and mapped
  // where fewer exist than the limit allows; none where all are in use (the caller copies
  // directly: waiting here could wait for a user event the caller has yet to set).
  pi_result take(size_t Wanted, std::vector<Block> &Out);
  // Gives the blocks back (their Busy events with them).
  void give(std::vector<Block> &Blocks);
  // A non-blocking read whose copy out of staging is still to run (the destructor waits
  // for it).
  void began();
  void ended();

private:
  cl_context Context;
  cl_command_queue MapQueue; // maps the blocks once, unmaps them at the end
  const size_t BlockBytes;
  const size_t MostBlocks;
  std::mutex Mutex;
  std::condition_variable Quiet;
  std::vector<Block> Free; // guarded by Mutex
  size_t Made = 0;         // guarded by Mutex
  size_t Pending = 0;      // reads still to be copied out, guarded by Mutex
};

// One driver command of a staged copy: Size bytes at Offset of the copy between the pinned
// host memory at Host and the device, not blocking, after Waits, its event into *Event.
// Refers to the caller's callable, which must outlive it.
class ChunkCommand {
public:
  template <typename Function>
  explicit ChunkCommand(Function &Called)
      : Object(&Called), Call([](void *O, size_t Offset, size_t Size, void *Host, cl_uint NumWaits,
                                 const cl_event *Waits, cl_event *Event) {
          return (*static_cast<Function *>(O))(Offset, Size, Host, NumWaits, Waits, Event);
        }) {}
  cl_int operator()(size_t Offset, size_t Size, void *Host, cl_uint NumWaits, const cl_event *Waits,
                    cl_event *Event) const {
    return Call(Object, Offset, Size, Host, NumWaits, Waits, Event);
  }

private:
  void *Object;
  cl_int (*Call)(void *, size_t, size_t, void *, cl_uint, const cl_event *, cl_event *);
};

class ClPlatform final : public core::PlatformImpl {
public:
  bool nativeHandle(uintptr_t &Out) const override { return core::nativeHandleOf(Platform, Out); }
  cl_platform_id Platform = nullptr;
  IntelUsmFunctions Usm;
  GlobalVariableFunctions GlobalVariable;
};

class ClDevice final : public core::DeviceImpl {
public:
  bool nativeHandle(uintptr_t &Out) const override { return core::nativeHandleOf(Device, Out); }
  cl_device_id Device = nullptr;
  ClPlatform *Platform = nullptr;
  bool ConsumesSpir = false;  // cl_khr_spir: SPIR bitcode loads with clCreateProgramWithBinary
  bool ConsumesSpirV = false; // CL_DEVICE_IL_VERSION names SPIR-V
  bool ConsumesPtx = false;   // NVIDIA's OpenCL: PTX loads with clCreateProgramWithBinary
  // OpenCL 3.0 devices that list OpenCL C 3.0 but not 2.0 (CL_DEVICE_OPENCL_C_ALL_VERSIONS):
  // an image's -cl-std=CL2.0 is built as -cl-std=CL3.0 there (PoCL 5 refuses CL2.0).
  bool OpenClC30Not20 = false;
  bool FineGrainSvm = false;
  std::vector<std::string> LinkFormats; // image targets it links (also in the description)
  // Copies of pageable host memory from this size on go through pinned staging
  // (stagingThreshold; SIZE_MAX: never).
  size_t StagesFrom = SIZE_MAX;

  bool canLink(const char *LinkFormat) const;
};

inline ClDevice &clDevice(const _pi_device &Device) {
  return static_cast<ClDevice &>(*Device.Impl);
}

class ClContext final : public core::ContextImpl {
public:
  ClContext(_pi_context &TheOwner, cl_context TheContext) : Owner(TheOwner), Context(TheContext) {}
  ~ClContext() override; // frees the USM still allocated, releases the context

  pi_result createQueue(_pi_queue &Queue, std::unique_ptr<core::QueueImpl> &Impl) override;
  pi_result createBuffer(size_t Size, const void *CopyFrom,
                         std::unique_ptr<core::MemImpl> &Impl) override;
  pi_result createHostBuffer(pi_mem_flags Flags, size_t Size, void *Host,
                             std::unique_ptr<core::MemImpl> &Impl) override;
  pi_result createSubBuffer(_pi_mem &Parent, pi_mem_flags Flags, size_t Origin, size_t Size,
                            std::unique_ptr<core::MemImpl> &Impl) override;
  pi_result allocateUsm(core::UsmKind Kind, _pi_device *Device, size_t Size, pi_uint32 Alignment,
                        void *&Pointer) override;
  pi_result freeUsm(void *Pointer) override;
  pi_result createProgram(const char *Function, const core::ProgramSource &Source,
                          _pi_program &Program) override;
  pi_result link(core::LinkRequest &Request) override;
  bool usmPointerInfo(const void *Pointer, core::UsmAllocationInfo &Out) override;
  pi_result adoptQueue(const char *Function, uintptr_t Native, bool Owned, _pi_queue &Queue,
                       std::unique_ptr<core::QueueImpl> &Impl) override;
  pi_result adoptEvent(const char *Function, uintptr_t Native, bool Owned,
                       std::unique_ptr<core::EventImpl> &Impl, uintptr_t &NativeQueue) override;
  // The caller's memory object Native, checked to be one of this context (else
  // PI_ERROR_INVALID_VALUE, or PI_ERROR_INVALID_CONTEXT naming What), and its type: for
  // adoptBuffer and adoptImage.
  pi_result callersMem(const char *Function, uintptr_t Native, const char *What,
                       cl_mem_object_type &Type) const;
  // The caller's cl_mem buffer of this context (a USM pointer is refused: no cl_mem).
  pi_result adoptBuffer(const char *Function, uintptr_t Native, bool Owned,
                        const core::UsmAllocationInfo *UsmInfo, size_t &Size,
                        std::unique_ptr<core::MemImpl> &Impl) override;
  // The caller's cl_program of this context, of the devices it was made for (each one of
  // the context's); executable where the driver built it for every one.
  pi_result adoptProgram(const char *Function, uintptr_t Native, bool Owned,
                         _pi_program &Program) override;
  // CL_KERNEL_PROGRAM.
  pi_result programOfKernel(const char *Function, uintptr_t Native, uintptr_t &Program) override;
  bool nativeHandle(uintptr_t &Out) const override { return core::nativeHandleOf(Context, Out); }
  // Images and samplers (image.cpp): clCreateImage, clCreateSamplerWithProperties.
  pi_result createImage(const char *Function, pi_mem_flags Flags, core::ImageDescription &Image,
                        void *Host, size_t &Size, std::unique_ptr<core::MemImpl> &Impl) override;
  // OpenCL's image states its format and sizes: the caller's description is not needed.
  pi_result adoptImage(const char *Function, uintptr_t Native, bool Owned,
                       const core::ImageDescription *Declared, core::ImageDescription &Image,
                       size_t &Size, std::unique_ptr<core::MemImpl> &Impl) override;
  pi_result createSampler(const char *Function, const core::SamplerDescription &Description,
                          std::unique_ptr<core::SamplerImpl> &Impl) override;
  pi_result adoptSampler(const char *Function, uintptr_t Native, bool Owned,
                         core::SamplerDescription &Description,
                         std::unique_ptr<core::SamplerImpl> &Impl) override;

  // PI_ERROR_INVALID_OPERATION naming why no USM path serves Device (null: any device
  // of the context), for the USM commands.
  pi_result noUsmPath(const char *Function, const _pi_device *Device) const;
  // Every USM allocation of the context, for a launch that names them to an SVM driver.
  std::vector<void *> usmAllocations();
  // The SVM allocation of this context that holds [Pointer, Pointer + Size): its start
  // and size, else false.
  bool svmAllocationOf(const void *Pointer, size_t Size, void *&Base, size_t &BaseSize);
  // The SVM allocations of device-global storage (ClProgram::svmBuffer), which
  // svmAllocationOf also finds and a USM free never frees.
  void addStorageAllocation(void *Pointer, size_t Size);
  void removeStorageAllocation(void *Pointer);
  // The live queues of the context, which an SVM free waits for (freeUsm).
  void addQueue(cl_command_queue Queue);
  void removeQueue(cl_command_queue Queue);
  // The pinned staging of Device in this context, made on first use (staging.cpp).
  pi_result staging(const _pi_device &Device, ClStaging *&Out);

  _pi_context &Owner;
  cl_context Context;
  // The USM path every allocation of this context takes: the weakest of its devices'.
  pi_usm_mechanism Usm = PI_USM_MECHANISM_NONE;
  bool FineGrainSvm = false;
  // SVM that the devices have, left unused: NVIDIA's OpenCL in a context of several GPUs.
  bool SvmUnusable = false;
  const IntelUsmFunctions *IntelUsm = nullptr;

  // Held around a USM free and around the release of this context's queues: PoCL 5's
  // clMemBlockingFreeINTEL (no longer called: freeUsm waits itself) walked the context's
  // queues and asserted that each is alive, and
  // a queue released on another thread at that moment (its count at 0, not yet unlinked)
  // aborted the process (UR CTS exp_usm_context_memcpy, MultiThreadedSequential, PoCL 5
  // on the GPU host). Frees and queue releases are rare; nothing else waits on it.
  std::mutex FreeOrReleaseMutex;

private:
  void freeWith(void *Pointer);
  std::mutex UsmMutex;
  struct UsmAllocation {
    core::UsmKind Kind;
    size_t Size;
  };
  std::map<uintptr_t, UsmAllocation> UsmAllocations; // by start; guarded by UsmMutex
  std::map<uintptr_t, size_t> StorageAllocations;    // by start; guarded by UsmMutex
  std::mutex QueuesMutex;
  // A queue adopted from a native handle may be a second ClQueue over the same OpenCL
  // queue: each counts once.
  std::unordered_multiset<cl_command_queue> Queues; // guarded by QueuesMutex
  std::mutex StagingMutex;
  std::vector<std::pair<const _pi_device *, std::unique_ptr<ClStaging>>>
      Stagings; // guarded by StagingMutex
};

// Sets what a new context's devices decide (Context.Owner's devices and platform): its
// USM mechanism, the weakest of its devices', and whether its SVM is fine-grained.
void configureContext(ClContext &Context);
// A context over the caller's cl_context (Backend::adoptContext).
pi_result adoptClContext(const char *Function, uintptr_t Native, bool Owned, _pi_context &Context,
                         std::unique_ptr<core::ContextImpl> &Impl);

class ClEvent final : public core::EventImpl {
public:
  explicit ClEvent(cl_event TheEvent) : Event(TheEvent) {}
  ~ClEvent() override;
  pi_result wait() override;
  pi_result status(pi_int32 &Status) override;
  pi_result profilingInfo(pi_profiling_info Point, pi_uint64 &Nanoseconds) override;
  bool notify(pi_int32 State, void (*Reached)(void *), void *Data) override;
  bool nativeHandle(uintptr_t &Out) const override { return core::nativeHandleOf(Event, Out); }
  cl_event Event;
};

// A request's wait list as cl_events; short lists (the common case) need no heap
// allocation.
class WaitList {
public:
  explicit WaitList(const core::Enqueue &Request) : Count(Request.NumWaits) {
    if (Count > InlineCapacity) {
      Heap = std::make_unique<cl_event[]>(Count);
      Data = Heap.get();
    }
    for (pi_uint32 I = 0; I < Count; ++I)
      Data[I] = static_cast<const ClEvent &>(*Request.Waits[I]->Impl).Event;
  }
  const cl_event *data() const { return Count == 0 ? nullptr : Data; }
  cl_uint size() const { return Count; }

private:
  static constexpr pi_uint32 InlineCapacity = 16;
  cl_event Inline[InlineCapacity] = {};
  std::unique_ptr<cl_event[]> Heap;
  cl_event *Data = Inline;
  cl_uint Count;
};

// OpenCL waits only on events of the queue's context (CL_INVALID_CONTEXT otherwise),
// which the contract reports as a bad wait list.
pi_result checkSameContext(const core::Enqueue &Request, const ClContext &Context);

class ClQueue final : public core::QueueImpl {
public:
  ClQueue(ClContext &TheContext, _pi_device &TheDevice, cl_command_queue TheQueue)
      : Context(TheContext), Device(TheDevice), Queue(TheQueue) {}
  // A queue of the caller's, adopted without its ownership: released without clFinish
  // (OpenCL keeps what its commands use alive; waiting would wait for the caller's work).
  bool CallersQueue = false;
  ~ClQueue() override;
  pi_result finish() override;
  pi_result write(const DeviceGlobalLocation &Device, const void *Src, size_t Size,
                  const core::Enqueue &Request) override;
  pi_result read(void *Dst, const DeviceGlobalLocation &Device, size_t Size,
                 const core::Enqueue &Request) override;
  pi_result usmCopy(void *Dst, const void *Src, size_t Size, const core::Enqueue &Request) override;
  pi_result usmFill(void *Ptr, const void *Pattern, size_t PatternSize, size_t Size,
                    const core::Enqueue &Request) override;
  pi_result launch(_pi_kernel &Kernel, const core::LaunchShape &Shape,
                   const core::Enqueue &Request) override;
  pi_result marker(bool Barrier, const core::Enqueue &Request) override;
  pi_result enqueueMarker(bool Barrier, const core::Enqueue &Request); // marker(), no waiting
  // A plain marker's status, also on a profiling queue (whose markers are fills: the
  // probe leaves no command but a marker behind).
  pi_result empty(bool &Empty) override;
  pi_result copyBuffer(core::MemImpl &Src, size_t SrcOffset, core::MemImpl &Dst, size_t DstOffset,
                       size_t Size, const core::Enqueue &Request) override;
  pi_result fillBuffer(core::MemImpl &Buffer, size_t Offset, const void *Pattern,
                       size_t PatternSize, size_t Size, const core::Enqueue &Request) override;
  pi_result readRect(void *Dst, core::MemImpl &Buffer, const core::RectCopy &Rect,
                     const core::Enqueue &Request) override;
  pi_result writeRect(core::MemImpl &Buffer, const void *Src, const core::RectCopy &Rect,
                      const core::Enqueue &Request) override;
  pi_result copyRect(core::MemImpl &Src, core::MemImpl &Dst, const core::RectCopy &Rect,
                     const core::Enqueue &Request) override;
  pi_result usmPrefetch(const void *Ptr, size_t Size, core::UsmMigration To,
                        const core::Enqueue &Request) override;
  pi_result readImage(const char *Function, void *Dst, core::MemImpl &Image,
                      const core::ImageRegion &Region, const core::Enqueue &Request) override;
  pi_result writeImage(const char *Function, core::MemImpl &Image, const void *Src,
                       const core::ImageRegion &Region, const core::Enqueue &Request) override;
  pi_result copyImage(const char *Function, core::MemImpl &Src, core::MemImpl &Dst,
                      const core::ImageRegion &Region, const core::Enqueue &Request) override;
  bool nativeHandle(uintptr_t &Out) const override { return core::nativeHandleOf(Queue, Out); }

  // One OpenCL command after the request's wait list: Submit(NumWaits, Waits, Event)
  // makes the call, ClFunction names it in errors; its event becomes the request's.
  template <typename SubmitFunction>
  pi_result enqueue(const char *ClFunction, const core::Enqueue &Request, SubmitFunction &&Submit);
  // The error of a refused command: "<ClFunction> failed with <name> (<code>) on device ...".
  pi_result commandFailure(const char *ClFunction, cl_int Error) const;

  // A copy from host memory at Src (to host memory at Dst) of Size bytes:
  // Move(Offset, Count, Host, Blocking, NumWaits, Waits, Event) is the driver's command for
  // Count bytes at Offset of the copy from (into) Host; through staging where stages()
  // (UsmChecked: the caller knows the host side is no USM and the device stages from
  // Size), else one command from (into) the caller's memory.
  template <typename Command>
  pi_result hostToDevice(const char *ClFunction, const void *Src, size_t Size,
                         const core::Enqueue &Request, Command &Move, bool UsmChecked = false);
  template <typename Command>
  pi_result deviceToHost(const char *ClFunction, void *Dst, size_t Size,
                         const core::Enqueue &Request, Command &Move, bool UsmChecked = false);
  // Copies through the context's pinned staging (staging.cpp). Whether a copy of Size
  // bytes of host memory at Host stages: the device stages from that size on, and the
  // memory is none of the context's USM.
  bool stages(const void *Host, size_t Size) const;
  // Writes Size bytes from pageable Src: the host threads copy each chunk into staging,
  // Command moves it while they fill the next; a non-blocking write has read Src when it
  // returns. Staged is false where nothing was done (no staging free for the copy) and
  // the caller copies directly.
  pi_result stagedWrite(const char *ClFunction, const void *Src, size_t Size,
                        const core::Enqueue &Request, const ChunkCommand &Command, bool &Staged);
  // Reads Size bytes into pageable Dst: Command moves chunks into staging, the host threads
  // copy each out as it arrives. Not blocking: the copy out runs in the last chunk's
  // completion callback, and the request's event (a marker after a user event the callback
  // completes) completes after it; the queue's later commands wait for it too.
  pi_result stagedRead(const char *ClFunction, void *Dst, size_t Size, const core::Enqueue &Request,
                       const ChunkCommand &Command, bool &Staged);
  // The context's staging of the queue's device and the blocks for a copy of Size bytes in
  // Chunk-byte chunks (at most ChunkBytes): a block per chunk for a non-blocking copy, up
  // to four for a blocking one; Blocks stays empty where the copy cannot stage now.
  pi_result stagingBlocks(const core::Enqueue &Request, size_t Size, size_t ChunkBytes,
                          ClStaging *&Staging, size_t &Chunk,
                          std::vector<ClStaging::Block> &Blocks);

  ClContext &Context;
  _pi_device &Device;
  cl_command_queue Queue;
  // Makes Stamp and turns Profiling on (a queue made or adopted with
  // CL_QUEUE_PROFILING_ENABLE); Function names the call in errors.
  pi_result makeStamp(const char *Function);

  bool Profiling = false; // made with CL_QUEUE_PROFILING_ENABLE (and Stamp made)
  cl_mem Stamp = nullptr; // a profiling queue's 4-byte buffer its markers fill (marker())
};

// Memory a copy reaches: an OpenCL buffer (piMemBufferCreate, a program's lowered
// device-global storage), a device global the driver finds by name
// (cl_intel_global_variable_access: Program and Name say which), or a device global
// no copy reaches (an image that was not lowered, on a device without the Intel
// extension: Name is why), refused once the contract's checks have passed.
class ClMem final : public core::MemImpl {
public:
  enum class Kind { Buffer, NamedGlobal, Unreachable };
  explicit ClMem(cl_mem TheMem) : Mem(TheMem) {}
  ClMem(Kind TheKind, cl_program TheProgram, std::string TheName)
      : What(TheKind), Program(TheProgram), Name(std::move(TheName)) {}
  ~ClMem() override;
  // Only a buffer (or an image: ObjectType says which) is an OpenCL object of its own.
  bool nativeHandle(uintptr_t &Out) const override {
    return What == Kind::Buffer && core::nativeHandleOf(Mem, Out);
  }
  void *deviceAddress() const override { return Svm; }
  Kind What = Kind::Buffer;
  cl_mem Mem = nullptr;
  // A buffer made over an SVM allocation of its own (lowered device-global storage): the
  // allocation, in SvmContext; freed by the buffer's destructor callback (once no command
  // uses the buffer), or here where there is no buffer yet.
  void *Svm = nullptr;
  cl_context SvmContext = nullptr;
  cl_mem_object_type ObjectType = CL_MEM_OBJECT_BUFFER;
  cl_program Program = nullptr;
  std::string Name;
};

// An OpenCL sampler (core::Sampler's Impl).
class ClSampler final : public core::SamplerImpl {
public:
  explicit ClSampler(cl_sampler TheSampler) : Sampler(TheSampler) {}
  ~ClSampler() override;
  bool nativeHandle(uintptr_t &Out) const override {
    return Sampler != nullptr && core::nativeHandleOf(Sampler, Out);
  }
  // Null where the driver refused the sampler as OpenCL leaves it undefined (unnormalized
  // coordinates with REPEAT or MIRRORED_REPEAT: PoCL answers CL_INVALID_VALUE); Refusal
  // says so when a kernel is given it.
  cl_sampler Sampler;
  std::string Refusal;
};

class ClKernel;

class ClProgram final : public core::ProgramImpl {
public:
  ClProgram(ClContext &TheContext, cl_program TheProgram)
      : Context(TheContext), Program(TheProgram) {}
  ~ClProgram() override;
  pi_result build(_pi_program &Program, const std::string &Options, std::string &Log) override;
  pi_result compile(_pi_program &Program, const std::string &Options, std::string &Log) override;
  pi_result findGlobal(_pi_program &Program, _pi_device &Device, const std::string &Name,
                       const std::string &Symbol, core::GlobalLookup &Result) override;
  pi_result createKernel(_pi_program &Program, const char *Name,
                         std::unique_ptr<core::KernelImpl> &Kernel) override;
  pi_result binaries(const _pi_program &Program, std::vector<std::vector<uint8_t>> &Out) override;
  pi_result completeMetadata(const char *Function, ImageMetadata &Metadata) override;
  // The caller's cl_kernel of this program (CL_KERNEL_PROGRAM).
  pi_result adoptKernel(const char *Function, uintptr_t Native, bool Owned, _pi_program &Program,
                        std::string &Name, std::unique_ptr<core::KernelImpl> &Kernel) override;
  // What every kernel of the program is told and asked once it exists (createKernel,
  // adoptKernel): indirect USM access, its argument count and group-size limit.
  pi_result describeKernel(const char *Function, const _pi_program &Program, ClKernel &Made);
  bool nativeHandle(uintptr_t &Out) const override { return core::nativeHandleOf(Program, Out); }

  // The storage of the program's lowered device globals on Device, made with its
  // initial contents on first use (Program.Metadata.Lowered must be set).
  pi_result storage(const char *Function, const _pi_program &Program, const _pi_device &Device,
                    ClMem *&Out);
  // Whether kernel Name takes the storage as its last argument.
  bool takesStorage(const _pi_program &Program, const std::string &Name) const;
  // Whether Device's storage is a buffer over SVM (device addresses), and making it.
  bool svmStorage(const _pi_device &Device) const;
  pi_result svmBuffer(const char *Function, const _pi_program &Program, const _pi_device &Device,
                      const std::vector<uint8_t> &Contents, ClMem &Made);

  ClContext &Context;
  cl_program Program;
  // What the bytes are (PTX, not only "native"), for what the driver is given and
  // for messages; DriverFormat is what the driver holds (SPIR bitcode or PTX for SPIR-V
  // that was translated because the device takes no IL).
  ImageFormat Format = ImageFormat::Unknown;
  ImageFormat DriverFormat = ImageFormat::Unknown;
  std::string ImageCompileOptions, ImageLinkOptions;
  // Lowered images: the kernels that take the storage (every kernel where an input
  // could not list them: a flat binary from piProgramCreateWithBinary).
  std::set<std::string> LoweredKernels;
  bool AllKernelsLowered = false;
  // SPIR-V whose device globals the adapter lowered itself when it made the program (an
  // image without dglink's lowering, e.g. DPC++'s, for a device that cannot reach them
  // by name): where they live, until completeMetadata moves it into the program's
  // metadata; or why they could not be lowered.
  std::optional<LoweredStorage> OwnLowering;
  std::string NotLowered;

private:
  std::mutex Mutex; // Storage and NamedGlobals
  std::vector<std::pair<const _pi_device *, std::unique_ptr<ClMem>>> Storage;
  std::vector<std::unique_ptr<ClMem>> NamedGlobals; // and unreachable ones
};

inline ClProgram &clProgram(const _pi_program &Program) {
  return static_cast<ClProgram &>(*Program.Impl);
}

class ClKernel final : public core::KernelImpl {
public:
  ClKernel(ClProgram &TheProgram, std::string TheName, cl_kernel TheKernel)
      : Program(TheProgram), Name(std::move(TheName)), Kernel(TheKernel) {}
  ~ClKernel() override;
  pi_uint32 numArguments() const override { return NumArgs; }
  size_t maxGroupSize() const override { return MaxGroupSize; }
  pi_result setArgument(const char *Function, pi_uint32 Index, size_t Size,
                        const void *Value) override;
  pi_result setPointerArgument(const char *Function, pi_uint32 Index, size_t Size,
                               const void *Value) override;
  pi_result setBufferArgument(const char *Function, pi_uint32 Index, _pi_mem *Buffer) override;
  pi_result setSamplerArgument(const char *Function, pi_uint32 Index,
                               core::Sampler &Value) override;
  pi_result properties(const _pi_device &Device, core::KernelDeviceProperties &Out) const override;
  bool nativeHandle(uintptr_t &Out) const override { return core::nativeHandleOf(Kernel, Out); }
  // A kernel the driver holds as PTX (NVIDIA's OpenCL: a PTX image, or SPIR-V translated
  // to PTX) refuses a non-zero offset: its work-item ids come from PTX's special
  // registers, which do not include the launch's offset.
  pi_result checkGlobalOffset(const char *Function, pi_uint32 Dimensions,
                              const size_t *Offset) const override;

  // Arguments past NumArgs do not exist for the caller where the storage is dglink's.
  pi_result checkIndex(const char *Function, pi_uint32 Index) const;
  pi_result argumentFailure(const char *Function, const char *ClFunction, cl_int Error,
                            pi_uint32 Index) const;

  ClProgram &Program;
  std::string Name;
  cl_kernel Kernel;
  pi_uint32 NumArgs = 0;
  size_t MaxGroupSize = SIZE_MAX;
  // A kernel of a lowered image: its last OpenCL argument is the device-global storage,
  // which the launch sets under LaunchMutex together with the enqueue.
  bool TakesStorage = false;
  std::mutex LaunchMutex;
};

} // namespace dglink::opencl
