// The driver interface of the stream backend: what a GPU driver of the CUDA shape
// (devices with a primary context, in-order streams, events, modules loaded from
// native code, kernels launched with blocks and grids) offers, as the stream backend
// (backend.h) calls it. CUDA implements it on the CUDA driver API
// (common/cuda_driver), HIP on its HipApi table (adapters/hip). Every call that can
// fail returns PI_SUCCESS or the pi_result of the failure with the last-error
// message naming the driver call (dglink::fail), and leaves its outputs untouched
// then.
#pragma once

#include <dglink/pi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dglink::stream {

// The driver's handles, opaque to the backend.
using Stream = struct StreamOpaque *;
using Event = struct EventOpaque *;
using Module = struct ModuleOpaque *;
using FunctionHandle = struct FunctionOpaque *;

// What the backend reads of a device.
struct DeviceInfo {
  std::string Name;
  std::string Arch;    // the ISA: "sm_90", "gfx90a"
  std::string Version; // PI_DEVICE_INFO_VERSION: "9.0" (compute capability), "gfx90a"
  int ComputeMajor = 0;
  int ComputeMinor = 0;
  int MultiprocessorCount = 0;
  int MaxThreadsPerBlock = 1024;
  int MaxBlockDim[3] = {1024, 1024, 64};
  int MaxGridDim[3] = {0x7FFFFFFF, 65535, 65535};
  size_t TotalMemory = 0;
  // What else the driver states of the device (0 / false where it does not).
  int ClockRateKHz = 0;
  int WarpSize = 0;
  int SharedMemoryPerBlock = 0;
  // What one block may have with the function's opt-in (CUDA's
  // MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: 227 KiB on an H100); 0 where the driver has no
  // opt-in, and SharedMemoryPerBlock is the limit.
  int SharedMemoryPerBlockOptIn = 0;
  int ConstantMemory = 0;
  int L2CacheBytes = 0;
  int CacheLineBytes = 0; // a documented constant of the vendor, 0 where there is none
  bool Ecc = false;
  bool Integrated = false;
  bool Int64Atomics = false;
  size_t TimerResolutionNs = 0; // of the driver's event timing, as its documentation says
  // The driver reserves virtual addresses and maps the device's physical memory onto
  // them (CUDA's and HIP's virtual memory management attribute, and the calls present).
  bool VirtualMemory = false;
  // The driver has timed events (createTimedEvent, elapsed): profiling queues and
  // recorded timestamps.
  bool TimedEvents = false;
  // Kernels launch cooperatively, all blocks resident at once (launchCooperative,
  // maxActiveBlocks).
  bool CooperativeLaunch = false;
  // Identity and memory facts for UR's optional queries (empty / 0 where the driver does
  // not say): the UUID, the PCI address "DDDD:BB:DD.F", the memory's peak clock and bus
  // width, the 32-bit registers one block may use.
  std::vector<unsigned char> Uuid;
  std::string PciAddress;
  int MemoryClockKHz = 0;
  int MemoryBusWidthBits = 0;
  int RegistersPerBlock = 0;
  // Images (arrays the driver lays out itself: Driver's image calls), where the driver
  // serves them; the largest of each kind in pixels (what both its textures and its
  // surfaces take), layers of a layered array.
  struct ImageLimits {
    bool Supported = false;
    size_t Width1D = 0;
    size_t Max2D[2] = {0, 0};
    size_t Max3D[3] = {0, 0, 0};
    size_t Layers = 0; // of a layered 1-D or 2-D array, whichever allows fewer
  } Images;
};

// Images: arrays of pixels the driver lays out itself (CUDA arrays), 1-D, 2-D, 3-D or
// layered, one device's each (made in its primary context).
using ImageArray = struct ImageArrayOpaque *;
// What one channel of a pixel is in the driver's array (normalisation is how a kernel
// reads it, not how the array holds it).
enum class ArrayElement {
  Unsigned8,
  Unsigned16,
  Unsigned32,
  Signed8,
  Signed16,
  Signed32,
  Half,
  Float
};
struct ArrayShape {
  ArrayElement Element = ArrayElement::Unsigned8;
  unsigned Channels = 4; // 1, 2 or 4
  // In pixels; Height 0 for a 1-D (layered or not) array, Depth 0 for 1-D and 2-D ones,
  // the number of layers for a layered one.
  size_t Width = 0, Height = 0, Depth = 0;
  bool Layered = false;
};
// One side of a copy with an array: the array (Offset in bytes along a row, then rows,
// then slices or layers), or linear memory at Pointer that the driver reaches by address
// (host or device), Pitch bytes a row and Rows rows a slice.
struct ArraySide {
  ImageArray Array = nullptr;
  int Ordinal = 0; // the device whose context made Array
  size_t Offset[3] = {0, 0, 0};
  void *Pointer = nullptr;
  size_t Pitch = 0, Rows = 0;
};
// WidthBytes x Height rows x Depth slices between two sides, at least one an array.
// Volume: an array involved is 3-D or layered (the driver's 3-D copy); else Depth is 1.
struct ArrayCopy {
  ArraySide Src, Dst;
  size_t WidthBytes = 0, Height = 1, Depth = 1;
  bool Volume = false;
};

// What a device may do with a mapped virtual range.
enum class VirtualAccess { None, ReadOnly, ReadWrite };
// The driver's handle of physical memory (CUmemGenericAllocationHandle,
// hipMemGenericAllocationHandle_t), as an integer.
using PhysicalHandle = uint64_t;

// The device code a driver runs.
// What the driver knows of the allocation a pointer lies in (Driver::pointerRange): its
// start and size, whether it is host memory (pinned or registered), managed memory, or
// device memory, and the device of device memory (-1 otherwise).
struct PointerRange {
  enum class Kind { Host, Device, Managed };
  void *Base = nullptr;
  size_t Size = 0;
  Kind Memory = Kind::Device;
  int Ordinal = -1;
};

enum class CodeKind {
  Ptx,         // NVIDIA: PTX text (kept with its terminating NUL)
  Cubin,       // NVIDIA: ELF cubin
  Fatbin,      // NVIDIA: fatbin
  CodeObject,  // AMD: executable code object (ET_DYN)
  Relocatable, // AMD: relocatable code object (ET_REL), a link input
};
const char *codeKindName(CodeKind Kind);

// One input of a link: its code and the functions its image exports.
struct LinkSource {
  CodeKind Kind = CodeKind::Ptx;
  const std::vector<char> *Bytes = nullptr;
  std::vector<std::string> Exported;
};

class Driver {
public:
  virtual ~Driver();

  // ---- The driver and its devices.
  // Opens the driver once per process. False where it cannot be used (Reason says
  // why): the adapter then reports zero platforms.
  virtual bool open(std::string &Reason) = 0;
  virtual pi_result deviceCount(int &Count) = 0;
  // The driver's version as "13.0".
  virtual pi_result driverVersion(std::string &Version) = 0;
  virtual pi_result deviceInfo(int Ordinal, DeviceInfo &Info) = 0;
  virtual const char *vendor() const = 0; // "NVIDIA Corporation"
  virtual pi_uint32 vendorId() const = 0;
  // Makes the device's primary context current on this thread.
  virtual pi_result makeCurrent(int Ordinal) = 0;
  // The driver's own handles of the device and of its context (a face's native
  // handles: CUdevice, the primary CUcontext); false where the driver has none.
  virtual bool nativeDevice(int Ordinal, uintptr_t &Handle);
  virtual bool nativeContext(int Ordinal, uintptr_t &Handle);
  // Whether the driver has context handles at all (nativeContext answers for a device
  // whose primary context was retained).
  virtual bool hasNativeContexts() const { return false; }
  // Peer access between two devices: whether From's kernels and copies can reach To's
  // memory directly, and turning that on (for the process; on again is no error). By
  // default there is none, and the driver stages copies between devices through the host.
  virtual bool canAccessPeer(int From, int To);
  // The device's memory not in use now, in bytes; false where the driver cannot say.
  virtual bool freeMemory(int Ordinal, size_t &Bytes);
  virtual pi_result enablePeerAccess(int From, int To);

  // ---- Streams and events (events without timing).
  virtual pi_result createStream(Stream &Out) = 0; // non-blocking
  // The device whose primary context a stream of the caller's belongs to (a queue made
  // from a native stream), called with a device's context current: Known stays false
  // where the driver cannot say; Ordinal is -1 for a context that is no device's
  // primary context. An error where S is no stream of the driver.
  virtual pi_result streamDevice(Stream S, int &Ordinal, bool &Known);
  virtual void destroyStream(Stream S) = 0;
  virtual pi_result synchronize(Stream S) = 0;
  virtual pi_result waitEvent(Stream S, Event E) = 0;
  virtual pi_result createEvent(Event &Out) = 0;
  virtual void destroyEvent(Event E) = 0;
  virtual pi_result record(Event E, Stream S) = 0;
  virtual pi_result synchronize(Event E) = 0;
  virtual pi_result query(Event E, bool &Complete) = 0;

  // ---- Memory.
  virtual pi_result allocateDevice(void *&Pointer, size_t Size) = 0;
  // PI_ERROR_INVALID_VALUE (with a message) where Pointer is no device allocation.
  virtual pi_result freeDevice(void *Pointer) = 0;
  // Pinned and portable: pinned for every device's context, not only the current one.
  virtual pi_result allocateHost(void *&Pointer, size_t Size) = 0;
  virtual pi_result freeHost(void *Pointer) = 0;
  virtual pi_result allocateShared(void *&Pointer, size_t Size) = 0;
  // Whether the driver knows Host (pinned, registered or managed memory): a copy
  // from or to it then needs no staging.
  virtual bool knowsHostPointer(const void *Host) = 0;
  // True only where the driver answers that Host is ordinary (pageable) host memory it
  // has never seen; false for anything it knows, and wherever it cannot say (then a USM
  // copy goes to the driver as it is). Called with a device's context current.
  virtual bool pageableHost(const void *Host);
  // Copies on a stream: between any two pointers (unified addressing), host to
  // device, device to host. Into pageable host memory a read completes before the
  // call returns; from pageable memory a write has captured the bytes when it returns.
  virtual pi_result copy(void *Dst, const void *Src, size_t Size, Stream S) = 0;
  virtual pi_result copyToDevice(void *Dst, const void *Src, size_t Size, Stream S) = 0;
  virtual pi_result copyToHost(void *Dst, const void *Src, size_t Size, Stream S) = 0;
  // A synchronous host-to-device copy (a buffer's initial contents).
  virtual pi_result copyToDeviceNow(void *Dst, const void *Src, size_t Size) = 0;
  // Count elements of ElementSize bytes (1, 2 or 4) at Dst, aligned to it, set to Value.
  virtual pi_result fill(void *Dst, uint32_t Value, unsigned ElementSize, size_t Count,
                         Stream S) = 0;
  // Height rows of Width bytes between any two pointers, each Pitch bytes after the one
  // before. By default one copy per row; a driver with a 2D copy overrides it.
  // Height rows of Count elements (as fill's) at Dst, each Pitch bytes after the one
  // before (a multiple of ElementSize). By default one fill per row; a driver with a 2D
  // fill overrides it.
  virtual pi_result fill2D(void *Dst, size_t Pitch, uint32_t Value, unsigned ElementSize,
                           size_t Count, size_t Height, Stream S);
  virtual pi_result copy2D(void *Dst, size_t DstPitch, const void *Src, size_t SrcPitch,
                           size_t Width, size_t Height, Stream S);
  // Makes Size bytes of the caller's memory at Host reachable by every device
  // (pinned, mapped, portable) and gives the address devices use for it; undone by
  // unregisterHost. PI_ERROR_UNSUPPORTED_FEATURE (no message) where the driver cannot.
  virtual pi_result registerHost(void *Host, size_t Size, void *&Device);
  virtual void unregisterHost(void *Host);

  // ---- Timing (profiling queues). PI_ERROR_UNSUPPORTED_FEATURE (no message) where the
  // driver has no timed events.
  virtual pi_result createTimedEvent(Event &Out);
  // Milliseconds from From to To, both recorded and complete.
  virtual pi_result elapsed(Event From, Event To, float &Milliseconds);

  // ---- Virtual memory (UR's urVirtualMem* / urPhysicalMem*), where
  // DeviceInfo::VirtualMemory says the device has it. PI_ERROR_UNSUPPORTED_FEATURE (no
  // message) by default. Every call may be made with any device's context current.
  // The granularity of physical memory on the device and of virtual ranges mapping it:
  // the least the driver takes, or the one it recommends.
  virtual pi_result memoryGranularity(int Ordinal, bool Recommended, size_t &Out);
  // Size bytes of addresses, reserved for every device of the process, at Hint where
  // the driver can (null: anywhere); freed by freeAddresses with the same range.
  virtual pi_result reserveAddresses(const void *Hint, size_t Size, void *&Start);
  virtual pi_result freeAddresses(const void *Start, size_t Size);
  // Size bytes of the device's memory (exportable as a file descriptor where
  // Shareable); released by releasePhysical, the memory lives on while a range maps it.
  virtual pi_result createPhysical(int Ordinal, size_t Size, bool Shareable, PhysicalHandle &Out);
  virtual void releasePhysical(PhysicalHandle Handle);
  // Maps Size bytes of Physical from Offset at Start (reserved); no device accesses it
  // before setAccess.
  virtual pi_result mapAddresses(const void *Start, size_t Size, PhysicalHandle Physical,
                                 size_t Offset);
  virtual pi_result unmapAddresses(const void *Start, size_t Size);
  // What each device of Ordinals may do with the mapped range; what one device may.
  virtual pi_result setAccess(const void *Start, size_t Size, const std::vector<int> &Ordinals,
                              VirtualAccess Access);
  virtual pi_result access(const void *Start, int Ordinal, VirtualAccess &Out);

  // ---- Images, where DeviceInfo::Images says the device has them; by default
  // PI_ERROR_UNSUPPORTED_FEATURE (no message). Called with the array's device's context
  // current.
  // An array of Shape, which kernels may also load from and store to (a surface).
  // PI_ERROR_INVALID_IMAGE_SIZE where the driver refuses its size.
  virtual pi_result createArray(const ArrayShape &Shape, ImageArray &Out);
  virtual void destroyArray(ImageArray Array);
  // What Array is (an array of the caller's: urMemImageCreateWithNativeHandle);
  // PI_ERROR_INVALID_VALUE where it is no array of the driver's.
  virtual pi_result describeArray(ImageArray Array, ArrayShape &Out);
  // Copy on stream S of device StreamOrdinal (current); an array of another device is
  // reached peer to peer.
  virtual pi_result copyArray(const ArrayCopy &Copy, int StreamOrdinal, Stream S);
  // The driver's surface object over Array, for a kernel's image argument (DPC++'s form:
  // a 64-bit handle by value); given back with destroySurface.
  virtual pi_result createSurface(ImageArray Array, uint64_t &Out);
  virtual void destroySurface(uint64_t Surface);

  // ---- Modules and kernels.
  // Loads a loadable image; a failure is PI_ERROR_BUILD_PROGRAM_FAILURE, and Log gets
  // what the loader said either way.
  virtual pi_result loadModule(Module &Out, const void *Image, std::string &Log) = 0;
  virtual void unloadModule(Module M) = 0;
  // Found stays false where the module has no function / global of that name.
  virtual pi_result function(Module M, const char *Name, FunctionHandle &Out, bool &Found) = 0;
  virtual pi_result global(Module M, const char *Name, void *&Address, size_t &Bytes,
                           bool &Found) = 0;
  // The kernels of a loaded module, where the driver can list them.
  virtual std::vector<std::string> kernelNames(Module M) = 0;
  // The name of a function of a loaded module; false where the driver cannot say.
  virtual bool functionName(FunctionHandle F, std::string &Name);
  // The allocation Pointer lies in; false where the driver knows none (pageable memory)
  // or cannot say.
  virtual bool pointerRange(const void *Pointer, PointerRange &Out);
  // The most threads one block of Function may have (0: unknown).
  virtual int maxThreadsPerBlock(FunctionHandle F) = 0;
  // The shared memory Function declares itself and the local (private) memory of one
  // of its threads, in bytes; false where the driver cannot say.
  virtual bool functionMemory(FunctionHandle F, size_t &SharedBytes, size_t &LocalBytes) {
    (void)F, (void)SharedBytes, (void)LocalBytes;
    return false;
  }
  // The sizes of Function's parameters; false where the driver cannot say.
  virtual bool parameterSizes(FunctionHandle F, std::vector<size_t> &Sizes) = 0;
  // What one launch may pass by value, in bytes.
  virtual size_t maxParameterBytes() const = 0;
  // Lets launches of Function ask for DynamicBytes of dynamic shared memory where the
  // driver limits that per function below the device's limit (CUDA: 48 KiB unless
  // raised with cuFuncSetAttribute); the limit is only ever raised, so that launches
  // of the function on other threads keep theirs. By default nothing to do.
  virtual pi_result reserveDynamicShared(FunctionHandle F, size_t DynamicBytes);
  // SharedBytes: the dynamic shared memory of each block (local-memory arguments).
  virtual pi_result launch(FunctionHandle F, const unsigned Grid[3], const unsigned Block[3],
                           size_t SharedBytes, Stream S, void **Params) = 0;
  // Where DeviceInfo::CooperativeLaunch says so: a launch whose blocks are all resident at
  // once, and how many blocks of BlockSize threads with SharedBytes of dynamic shared
  // memory each fit on one multiprocessor at once. PI_ERROR_UNSUPPORTED_FEATURE (no
  // message) by default.
  virtual pi_result launchCooperative(FunctionHandle F, const unsigned Grid[3],
                                      const unsigned Block[3], size_t SharedBytes, Stream S,
                                      void **Params);
  virtual pi_result maxActiveBlocks(FunctionHandle F, int BlockSize, size_t SharedBytes,
                                    int &PerMultiprocessor);

  // ---- Device code.
  // The image target of the code this driver runs (PI_DEVICE_BINARY_TARGET_NVPTX64 or
  // _AMDGCN) and, for messages, its formats ("PTX, cubin and fatbin").
  virtual const char *target() const = 0;
  virtual const char *codeDescription() const = 0;
  // Recognises code this driver runs; false for anything else.
  virtual bool detectCode(const void *Data, size_t Size, CodeKind &Kind) = 0;
  // The kernels Bytes defines, where its format names them.
  virtual std::vector<std::string> codeKernelNames(CodeKind Kind,
                                                   const std::vector<char> &Bytes) = 0;
  // What loadModule gets for a program built on its own (Out; Log gets what the
  // toolchain said).
  virtual pi_result codeForLoad(CodeKind Kind, const std::vector<char> &Bytes,
                                const DeviceInfo &Device, std::vector<char> &Out,
                                std::string &Log) = 0;
  // Whether run-time linking works here; Why says what is missing.
  virtual bool linkerAvailable(std::string *Why) = 0;
  // Links Sources into one loadable image for Device. PI_ERROR_LINK_PROGRAM_FAILURE
  // with Log naming the problem; PI_ERROR_LINKER_NOT_AVAILABLE without a linker.
  virtual pi_result link(const std::vector<LinkSource> &Sources, const DeviceInfo &Device,
                         std::vector<char> &Out, CodeKind &OutKind, std::string &Log) = 0;
};

// The end of a command on S: Done (if any) recorded after it; a blocking command then
// waits for the stream.
inline pi_result complete(Driver &D, Stream S, Event Done, bool Blocking) {
  if (Done != nullptr) {
    if (const pi_result Result = D.record(Done, S); Result != PI_SUCCESS)
      return Result;
  }
  return Blocking ? D.synchronize(S) : PI_SUCCESS;
}

} // namespace dglink::stream
