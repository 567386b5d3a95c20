// The stream backend: the adapter core's hooks written once for every driver of the
// CUDA shape (driver.h). A context holds any devices of the platform, each through its
// primary context (peer access turned on between them where the hardware has it);
// in-order queues on non-blocking streams with the copy engine, recycled events per
// device, programs as one module per device loaded from native code, kernels with
// by-value arguments launched as blocks and grids. An adapter built on it supplies a Driver and a
// Personality (what it calls itself) in its core::makeBackend(); docs/stream-backend.md.
#pragma once

#include <dglink/core/backend.h>
#include <dglink/stream/copy_engine.h>
#include <dglink/stream/driver.h>
#include <dglink/stream/local_memory.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace dglink::stream {

// What the adapter calls itself and its platform.
struct Personality {
  const char *Name = "";         // DGLINK_ADAPTER_NAME: "cuda", "hip", "hip_nvidia"
  const char *Label = "";        // in messages: "CUDA", "HIP"
  const char *PlatformName = ""; // PI_PLATFORM_INFO_NAME
  // PI_PLATFORM_INFO_VERSION from the driver's version ("13.0" -> "CUDA 13.0").
  std::string (*PlatformVersion)(const std::string &DriverVersion) = nullptr;
};

class StreamBackend final : public core::Backend {
public:
  StreamBackend(Personality ThePersonality, std::unique_ptr<Driver> TheDriver)
      : Named(ThePersonality), Api(std::move(TheDriver)),
        CopyThreads(copyTuning().poolThreads(), copyTuning().SpinMicroseconds,
                    copyTuning().ShareWindowMicroseconds) {}
  const char *name() const override { return Named.Name; }
  const char *label() const override { return Named.Label; }
  void discover(std::vector<std::unique_ptr<_pi_platform>> &Platforms) override;
  bool multiDeviceContexts() const override { return true; }
  // Kernels with DPC++'s "<kernel>_with_offset" entry point (StreamKernel).
  bool globalOffsets() const override { return true; }
  pi_result createContext(_pi_context &Context, std::unique_ptr<core::ContextImpl> &Impl) override;
  // A context over a device's primary context (the only driver context a context of one
  // device has), as createContext makes it; not owned: the primary context is the
  // process's.
  pi_result adoptContext(const char *Function, uintptr_t Native, bool Owned, _pi_context &Context,
                         std::unique_ptr<core::ContextImpl> &Impl) override;

  void tearDown() override { CopyThreads.stop(); }

  Driver &driver() { return *Api; }
  // The host threads of every queue's large copies (started on the first one).
  HostCopyPool &copyThreads() { return CopyThreads; }

  // Pinned host allocations of piextUSMHostAlloc, so that piextUSMFree knows which free
  // to call and the copy engine copies them directly at every size (every context of a
  // device shares the primary context).
  PinnedRanges HostAllocations;
  // Device and shared allocations of piextUSM*Alloc (every context's): a USM copy between
  // one and pageable memory goes through the copy engine.
  PinnedRanges DeviceAllocations;

private:
  Personality Named;
  std::unique_ptr<Driver> Api;
  HostCopyPool CopyThreads;
};

// The adapter's backend and driver.
StreamBackend &streamBackend();
inline Driver &driver() { return streamBackend().driver(); }

class StreamDevice final : public core::DeviceImpl {
public:
  bool nativeHandle(uintptr_t &Out) const override { return driver().nativeDevice(Ordinal, Out); }
  bool freeMemory(pi_uint64 &Bytes) const override {
    size_t Free = 0;
    if (!driver().freeMemory(Ordinal, Free))
      return false;
    Bytes = Free;
    return true;
  }
  // A timed event recorded now, placed on the host's steady clock as a profiling
  // queue's are (device_clock.cpp).
  pi_result globalTimestamp(pi_uint64 &Nanoseconds) override;
  int Ordinal = 0;
  DeviceInfo Info;

private:
  // The device's clock: a timed event recorded on the device's default stream and the
  // host's steady clock when it completed; made on first use, kept for the process.
  std::mutex ClockMutex;
  Event ClockBase = nullptr;          // guarded by ClockMutex
  pi_uint64 ClockBaseNanoseconds = 0; // guarded by ClockMutex
};

inline StreamDevice &streamDevice(const _pi_device &Device) {
  return static_cast<StreamDevice &>(*Device.Impl);
}

// What a context keeps of one of its devices: the ordinal whose primary context runs
// its work, and the device's recycled events (an event belongs to one driver context).
struct ContextDevice {
  ContextDevice(_pi_device &TheDevice, int TheOrdinal) : Device(TheDevice), Ordinal(TheOrdinal) {}
  _pi_device &Device;
  const int Ordinal;
  std::mutex EventMutex;
  std::vector<Event> FreeEvents;
};

class StreamContext final : public core::ContextImpl {
public:
  explicit StreamContext(const std::vector<_pi_device *> &Devices);
  ~StreamContext() override;

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
  // A queue over the caller's stream (urQueueCreateWithNativeHandle), on the device of
  // the context the stream belongs to; Owned: the queue destroys it at the end.
  pi_result adoptQueue(const char *Function, uintptr_t Native, bool Owned, _pi_queue &Queue,
                       std::unique_ptr<core::QueueImpl> &Impl) override;
  // The caller's CUevent / hipEvent_t, checked with the driver's query; it names no stream.
  pi_result adoptEvent(const char *Function, uintptr_t Native, bool Owned,
                       std::unique_ptr<core::EventImpl> &Impl, uintptr_t &NativeQueue) override;
  // A buffer over the caller's device address (CUdeviceptr, a hipMalloc pointer): from
  // Native to the end of its allocation, which the driver (or the core) knows; device or
  // managed memory of a device of the context, or host memory. Owned: device and managed
  // memory from its start only, freed at the end.
  pi_result adoptBuffer(const char *Function, uintptr_t Native, bool Owned,
                        const core::UsmAllocationInfo *Usm, size_t &Size,
                        std::unique_ptr<core::MemImpl> &Impl) override;
  // A program over the caller's loaded module (CUmodule, hipModule_t), of the context's
  // only device (a module names no device), executable.
  pi_result adoptProgram(const char *Function, uintptr_t Native, bool Owned,
                         _pi_program &Program) override;
  // Virtual memory (virtual_memory.cpp): the driver's, for every device of the context.
  pi_result memoryGranularity(const char *Function, const _pi_device &Device, bool Recommended,
                              size_t &Out) override;
  pi_result reserveAddresses(const char *Function, const void *Hint, size_t Size,
                             void *&Start) override;
  pi_result freeAddresses(const char *Function, const void *Start, size_t Size) override;
  pi_result createPhysicalMemory(const char *Function, _pi_device &Device, size_t Size,
                                 bool Shareable,
                                 std::unique_ptr<core::PhysicalMemImpl> &Impl) override;
  pi_result mapAddresses(const char *Function, const void *Start, size_t Size,
                         core::PhysicalMemImpl &Physical, size_t Offset) override;
  pi_result unmapAddresses(const char *Function, const void *Start, size_t Size) override;
  pi_result setAccess(const char *Function, const void *Start, size_t Size,
                      core::VirtualAccess Access) override;
  pi_result access(const char *Function, const void *Start, core::VirtualAccess &Out) override;
  // Images and samplers (image.cpp): an image is the driver's array on the context's
  // first device; a sampler is its description alone (DPC++'s 32-bit word, passed to
  // kernels by value).
  pi_result createImage(const char *Function, pi_mem_flags Flags, core::ImageDescription &Image,
                        void *Host, size_t &Size, std::unique_ptr<core::MemImpl> &Impl) override;
  // The caller's array, as the context's first device's, with the caller's description
  // (an array does not state its channel order, nor UNORM from UNSIGNED).
  pi_result adoptImage(const char *Function, uintptr_t Native, bool Owned,
                       const core::ImageDescription *Declared, core::ImageDescription &Image,
                       size_t &Size, std::unique_ptr<core::MemImpl> &Impl) override;
  pi_result createSampler(const char *Function, const core::SamplerDescription &Description,
                          std::unique_ptr<core::SamplerImpl> &Impl) override;
  pi_result adoptSampler(const char *Function, uintptr_t Native, bool Owned,
                         core::SamplerDescription &Description,
                         std::unique_ptr<core::SamplerImpl> &Impl) override;

  // The primary context of a context of one device; a context of several has no one
  // driver context.
  bool nativeHandle(uintptr_t &Out) const override {
    return Devices.size() == 1 && driver().nativeContext(Devices[0]->Ordinal, Out);
  }
  // The context's part of Device (a device of the context: the core checked it).
  ContextDevice &of(const _pi_device &Device) const;
  ContextDevice &first() const { return *Devices[0]; }
  // Events are recycled: creating one costs more than recording it.
  static pi_result acquireEvent(ContextDevice &On, Event &Out);
  static void recycleEvent(ContextDevice &On, Event E);

  std::vector<std::unique_ptr<ContextDevice>> Devices;

private:
  // Which device's context allocated each USM allocation (the one that frees it).
  std::mutex UsmMutex;
  std::unordered_map<void *, int> UsmOwners;
};

// A profiling queue's clock: a timed event recorded on its idle stream and the host's
// steady clock when it completed; a command's device times are that host time plus the
// driver's elapsed time from the base event.
struct ProfilingBase {
  Event Base = nullptr;
  pi_uint64 HostNanoseconds = 0;
};

// The host's steady clock, in nanoseconds (QUEUED and SUBMIT of profiling queues).
pi_uint64 hostNanoseconds();

// The device's time now: a timed event recorded on S (null: the device's default stream)
// and waited for. UNSUPPORTED_FEATURE without timed events; on failure no event is left.
pi_result timedEventNow(Driver &D, Stream S, Event &Out);

class StreamEvent final : public core::EventImpl {
public:
  StreamEvent(ContextDevice &TheDevice, Event TheEvent) : On(TheDevice), Handle(TheEvent) {}
  // An event of the caller's (urEventCreateWithNativeHandle): never recycled, destroyed
  // with this one only where the caller handed it over.
  struct Callers {
    bool Owned;
  };
  StreamEvent(ContextDevice &TheDevice, Event TheEvent, Callers How)
      : On(TheDevice), Handle(TheEvent), FromCaller(true), CallerOwned(How.Owned) {}
  // recycled: re-recording it later only moves its completion; a profiled event's
  // timed events are destroyed
  ~StreamEvent() override;
  pi_result wait() override;
  pi_result status(pi_int32 &Status) override;
  pi_result profilingInfo(pi_profiling_info Point, pi_uint64 &Nanoseconds) override;
  bool nativeHandle(uintptr_t &Out) const override { return core::nativeHandleOf(Handle, Out); }

  ContextDevice &On;
  Event Handle;
  // Profiling queues: Handle and Start are timed events of this command only (Handle
  // recorded after it, Start before it); Clock is the queue's, which outlives its events.
  // A recorded timestamp has Handle alone (its START is its END).
  const ProfilingBase *Clock = nullptr;
  Event Start = nullptr;
  pi_uint64 QueuedNanoseconds = 0;
  const bool FromCaller = false;
  const bool CallerOwned = false;
};

class StreamQueue final : public core::QueueImpl {
public:
  // OwnsStream false: a stream of the caller's (a queue from a native handle), which the
  // queue drains but does not destroy.
  StreamQueue(_pi_queue &TheQueue, ContextDevice &TheDevice, Stream TheStream,
              bool TheOwnsStream = true)
      : Queue(TheQueue), On(TheDevice), Handle(TheStream), OwnsStream(TheOwnsStream),
        Copies(streamBackend().copyThreads()) {}
  ~StreamQueue() override;
  pi_result finish() override;
  pi_result write(const DeviceGlobalLocation &Device, const void *Src, size_t Size,
                  const core::Enqueue &Request) override;
  pi_result read(void *Dst, const DeviceGlobalLocation &Device, size_t Size,
                 const core::Enqueue &Request) override;
  pi_result usmCopy(void *Dst, const void *Src, size_t Size, const core::Enqueue &Request) override;
  pi_result usmFill(void *Ptr, const void *Pattern, size_t PatternSize, size_t Size,
                    const core::Enqueue &Request) override;
  // One driver 2D copy (unified addressing) and one 2D fill on the stream.
  pi_result usmCopy2D(void *Dst, size_t DstPitch, const void *Src, size_t SrcPitch, size_t Width,
                      size_t Height, const core::Enqueue &Request) override;
  pi_result usmFill2D(void *Ptr, size_t Pitch, const void *Pattern, size_t PatternSize,
                      size_t Width, size_t Height, const core::Enqueue &Request) override;
  // A timed event recorded on the stream, placed on the host's clock from the queue's
  // base event (a profiling queue's, else one made at the first timestamp).
  pi_result timestamp(const core::Enqueue &Request) override;
  pi_result launch(_pi_kernel &Kernel, const core::LaunchShape &Shape,
                   const core::Enqueue &Request) override;
  pi_result marker(bool Barrier, const core::Enqueue &Request) override;
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
  // Image commands (image.cpp): the driver's copies with arrays.
  pi_result readImage(const char *Function, void *Dst, core::MemImpl &Image,
                      const core::ImageRegion &Region, const core::Enqueue &Request) override;
  pi_result writeImage(const char *Function, core::MemImpl &Image, const void *Src,
                       const core::ImageRegion &Region, const core::Enqueue &Request) override;
  pi_result copyImage(const char *Function, core::MemImpl &Src, core::MemImpl &Dst,
                      const core::ImageRegion &Region, const core::Enqueue &Request) override;
  bool nativeHandle(uintptr_t &Out) const override { return core::nativeHandleOf(Handle, Out); }

  // Starts the queue's clock (a profiling queue, once, at creation).
  pi_result startClock();

  _pi_queue &Queue;
  ContextDevice &On; // the queue's device
  Stream Handle;
  const bool OwnsStream;
  // Whether dglink has put work on the stream: a caller's stream it never used is not
  // drained at release (that would wait for all of the caller's own work).
  std::atomic<bool> Enqueued{false};
  CopyEngine Copies;
  ProfilingBase Clock; // Base is null unless the queue profiles
  // The base of recorded timestamps on a queue that does not profile: started at the first
  // (its commands stay untimed).
  std::mutex TimestampMutex;
  ProfilingBase TimestampClock; // guarded by TimestampMutex until Base is set

private:
  // Runs Submit(Done) on the stream after the request's wait list; Done is the event
  // the caller asked for (null if none), which Submit records after its command.
  template <typename SubmitFunction>
  pi_result enqueue(const core::Enqueue &Request, SubmitFunction &&Submit);
  // The stream waits for the request's events of other queues (its own are in order).
  pi_result waitForOthers(const core::Enqueue &Request);
  // A timed event recorded on the idle stream now, and the host's clock when it completed.
  pi_result startClock(ProfilingBase &Base);
  // The rows of Rect between two pointers, one 2D copy per slice.
  pi_result rect(char *Dst, const char *Src, const core::RectCopy &Rect,
                 const core::Enqueue &Request);
};

class StreamMem final : public core::MemImpl {
public:
  // What the object owns of its memory.
  enum class Owns { Allocation, Registration, Nothing };
  StreamMem(int TheOrdinal, void *ThePointer, Owns TheOwnership = Owns::Allocation)
      : Ordinal(TheOrdinal), Pointer(ThePointer), Ownership(TheOwnership) {}
  ~StreamMem() override;
  bool nativeHandle(uintptr_t &Out) const override { return core::nativeHandleOf(Pointer, Out); }
  const int Ordinal; // whose context allocated it
  // Device memory in a context of one device; managed memory, which the driver migrates
  // to whichever device uses it, in a context of several; the device's address of the
  // caller's registered memory (PI_MEM_FLAGS_HOST_PTR_USE); a sub-buffer's view into
  // its parent's.
  void *Pointer;
  Owns Ownership;
  void *Host = nullptr; // the registered memory (Owns::Registration)
};

// An image (UR's urMemImageCreate): the driver's array, made on one device of the
// context (its first), and the surface object over it that kernels get (made on the
// first image argument, kept while the image lives).
class StreamImage final : public core::MemImpl {
public:
  StreamImage(int TheOrdinal, ImageArray TheArray, const core::ImageDescription &TheImage,
              bool TheOwnsArray = true)
      : Ordinal(TheOrdinal), Array(TheArray), Image(TheImage), OwnsArray(TheOwnsArray) {}
  ~StreamImage() override;
  bool nativeHandle(uintptr_t &Out) const override { return core::nativeHandleOf(Array, Out); }
  // The surface object over the array; Function names the call in a failure's message.
  pi_result surface(const char *Function, uint64_t &Out);
  const int Ordinal; // whose context made the array
  const ImageArray Array;
  const core::ImageDescription Image; // its layout: type, sizes, ElementSize
  const bool OwnsArray;               // false: the caller's array, left to the caller

private:
  std::mutex SurfaceMutex;
  uint64_t Surface = 0; // guarded by SurfaceMutex; 0: none made yet
};

// The driver's copies of an image command (image.cpp), on stream S of the device with
// this ordinal (current): between Image and host or device memory at Linear (the box's
// first pixel; ToImage: a write), or between two images of one format (checked).
pi_result copyImageLinear(const StreamImage &Image, const core::ImageRegion &Region, char *Linear,
                          bool ToImage, int Ordinal, Stream S);
pi_result copyImageToImage(const StreamImage &From, const StreamImage &To,
                           const core::ImageRegion &Region, int Ordinal, Stream S);

// A sampler: DPC++'s word for it (as UR's CUDA adapter passes it): bit 0 normalized
// coordinates, bit 1 the filter mode, bits 2-4 the addressing mode, in UR's numbering.
class StreamSampler final : public core::SamplerImpl {
public:
  explicit StreamSampler(uint32_t TheWord) : Word(TheWord) {}
  bool nativeHandle(uintptr_t &Out) const override { return core::nativeHandleOf(Word, Out); }
  const uint32_t Word;
};

// Physical memory of one device (UR's urPhysicalMemCreate): the driver's handle, given
// back at the end (the driver frees the memory once no range maps it).
class StreamPhysicalMem final : public core::PhysicalMemImpl {
public:
  explicit StreamPhysicalMem(PhysicalHandle TheHandle) : Handle(TheHandle) {}
  ~StreamPhysicalMem() override;
  bool nativeHandle(uintptr_t &Out) const override { return core::nativeHandleOf(Handle, Out); }
  const PhysicalHandle Handle;
};

// A module loaded on one device.
struct DeviceModule {
  int Ordinal = 0;
  Module Loaded = nullptr;
};

class StreamProgram final : public core::ProgramImpl {
public:
  StreamProgram(StreamContext &TheContext, CodeKind TheKind) : Context(TheContext), Kind(TheKind) {}
  ~StreamProgram() override;
  pi_result build(_pi_program &Program, const std::string &Options, std::string &Log) override;
  pi_result compile(_pi_program &Program, const std::string &Options, std::string &Log) override;
  pi_result findGlobal(_pi_program &Program, _pi_device &Device, const std::string &Name,
                       const std::string &Symbol, core::GlobalLookup &Result) override;
  pi_result createKernel(_pi_program &Program, const char *Name,
                         std::unique_ptr<core::KernelImpl> &Kernel) override;
  // The caller's function (CUfunction, hipFunction_t) of this program's module, as
  // createKernel makes it by the name the driver gives it (the driver frees functions
  // with their module: ownership changes nothing).
  pi_result adoptKernel(const char *Function, uintptr_t Native, bool Owned, _pi_program &Program,
                        std::string &Name, std::unique_ptr<core::KernelImpl> &Kernel) override;
  // The loaded module (CUmodule, hipModule_t) of an executable program of one device.
  bool nativeHandle(uintptr_t &Out) const override {
    return Modules.size() == 1 && core::nativeHandleOf(Modules[0].Loaded, Out);
  }
  // The module of the device with this ordinal; null where the program has none.
  Module moduleOf(int Ordinal) const;

  StreamContext &Context;
  CodeKind Kind;
  // One per device of the program, written once before the program is marked executable.
  std::vector<DeviceModule> Modules;
  // False for the caller's module adopted without its ownership: not unloaded here.
  bool OwnsModules = true;
};

// One argument as set: a by-value one 8-byte aligned, zero-padded; a local-memory one
// (set with a null value) its size, its offset made at each launch (local_memory.h).
struct KernelArgument {
  bool Set = false;
  std::vector<uint64_t> Storage;
  size_t LocalBytes = 0; // non-zero: a local-memory argument of this many bytes
  // An image argument: the device whose array (and surface object) it is, -1 otherwise.
  int ImageOrdinal = -1;
};

// What a launch passes: a pointer to each argument's value, the offsets of the local
// ones (which Params point into) and the dynamic shared memory they take.
struct LaunchArguments {
  std::vector<void *> Params;
  std::vector<uint64_t> LocalOffsets;
  size_t DynamicSharedBytes = 0;
  // The implicit last argument of a "<kernel>_with_offset" entry point: the launch's
  // global offset, three 32-bit values by value (DPC++'s [3 x i32]).
  uint32_t GlobalOffset[3] = {0, 0, 0};
};

// DPC++'s entry point of a kernel that reads the global offset (intel/llvm's GlobalOffset
// pass): the kernel's parameters, then the offset by value; the kernel itself runs with
// offset 0. UR's CUDA and HIP adapters launch it for a non-zero offset.
constexpr const char *OffsetEntrySuffix = "_with_offset";

// A kernel's function in the module of one device, and its offset entry point (null
// where the module has none).
struct DeviceFunction {
  int Ordinal = 0;
  FunctionHandle Handle = nullptr;
  FunctionHandle WithOffset = nullptr;
};

class StreamKernel final : public core::KernelImpl {
public:
  StreamKernel(std::string TheName, std::vector<DeviceFunction> TheFunctions)
      : Name(std::move(TheName)), Functions(std::move(TheFunctions)) {}
  pi_uint32 numArguments() const override;
  bool knowsArguments() const override { return ParameterSizesKnown; }
  size_t maxGroupSize() const override { return static_cast<size_t>(MaxThreadsPerBlock); }
  pi_result setArgument(const char *Function, pi_uint32 Index, size_t Size,
                        const void *Value) override;
  pi_result setBufferArgument(const char *Function, pi_uint32 Index, _pi_mem *Buffer) override;
  // A local-memory argument of Size bytes (setArgument with a null value).
  pi_result setLocalArgument(const char *Function, pi_uint32 Index, size_t Size);
  // A sampler: its 32-bit word by value (StreamSampler).
  pi_result setSamplerArgument(const char *Function, pi_uint32 Index,
                               core::Sampler &Value) override;
  // Whether every image argument's array is of the device with this ordinal (a kernel on
  // another device of the context cannot reach it); the failure names Device.
  pi_result checkImagesOn(int Ordinal, const _pi_device &Device) const;
  pi_result properties(const _pi_device &Device, core::KernelDeviceProperties &Out) const override;
  // A non-zero offset needs the offset entry point on every device, and 32-bit offsets.
  pi_result checkGlobalOffset(const char *Function, pi_uint32 Dimensions,
                              const size_t *Offset) const override;
  pi_result maxCooperativeGroups(const char *Function, const _pi_device &Device, size_t GroupSize,
                                 size_t DynamicLocalBytes, pi_uint32 &Out) const override;
  // The function of a kernel of one device (CUfunction, hipFunction_t).
  bool nativeHandle(uintptr_t &Out) const override {
    return Functions.size() == 1 && core::nativeHandleOf(Functions[0].Handle, Out);
  }

  // Pointers to the values of every argument, each of which must be set, with the
  // layout of the local ones; for a non-zero offset of Shape, its value last.
  pi_result collect(const core::LaunchShape &Shape, LaunchArguments &Out);
  // The function on the device with this ordinal; null where the kernel has none.
  FunctionHandle functionOf(int Ordinal) const;
  // The function a launch of Shape runs on that device: the offset entry point for a
  // non-zero offset (checked: checkGlobalOffset), whose last argument collect appends.
  FunctionHandle functionFor(int Ordinal, const core::LaunchShape &Shape) const;

  std::string Name;
  std::vector<DeviceFunction> Functions; // one per device of the program
  int MaxThreadsPerBlock = 1024;
  // Parameter sizes from the driver; unknown where it cannot say.
  std::vector<size_t> ParameterSizes;
  bool ParameterSizesKnown = false;
  std::vector<KernelArgument> Arguments;
};

} // namespace dglink::stream
