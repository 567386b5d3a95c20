// The objects behind every PI handle of an adapter built on the core: the dispatch
// pointer first (the dispatch layer routes by it), a type tag with the handle's
// live/released state, the reference count, what the contract needs to know of the
// object, and the backend's part (the *Impl object, backend.h).
#pragma once

#include <dglink/pi.h>
#include <dglink/support/device_global.h>
#include <dglink/support/error.h>
#include <dglink/support/image.h>

#include <atomic>
#include <cstdint>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

struct _pi_device;
struct _pi_command_buffer; // command_buffer.h

namespace dglink::core {

class PlatformImpl;
class DeviceImpl;
class ContextImpl;
class QueueImpl;
class MemImpl;
class ProgramImpl;
class KernelImpl;
class EventImpl;
struct UsmPool;
class UsmPoolState;
class PhysicalMemImpl;
class SamplerImpl;

// The PI function table (platform.cpp): one per adapter library, since each links its
// own copy of the core.
extern const pi_plugin_functions DispatchTable;

// The table every handle of this adapter library points at: the face's. A PI adapter
// links pi_face.cpp (&DispatchTable); a Unified Runtime adapter links common/ur_face,
// whose ur_dditable_t the UR loader reads from each handle's first field.
extern const void *const FaceTable;

enum class HandleKind : uint32_t {
  Platform = 1,
  Device,
  Context,
  Queue,
  Mem,
  Program,
  Kernel,
  Event,
  UsmPool,       // UR's USM pools (usm_pool.cpp); PI has none
  CommandBuffer, // UR's command buffers (command_buffer.cpp); PI has none
  PhysicalMem,   // UR's physical memory (urPhysicalMemCreate); PI has none
  Command,       // a command of an updatable command buffer (command_buffer.h); PI has none
  Sampler        // UR's image samplers (urSamplerCreate; image.cpp); PI has none
};

// "queue", "program", ...
const char *kindName(HandleKind Kind);

// A live handle's tag is LiveTag | kind; a released one keeps ReleasedTag | kind
// while it sits in the quarantine (handles.cpp), so that a call with it is refused
// by name instead of reading freed memory.
inline constexpr uint32_t LiveTag = 0xD6100000u;
inline constexpr uint32_t ReleasedTag = 0xDEAD0000u;
inline constexpr uint32_t TagKindMask = 0xFFFFu;

struct HandleHeader {
  const void *Dispatch = FaceTable;
  std::atomic<uint32_t> Tag;
  std::atomic<pi_uint32> RefCount{1};

  explicit HandleHeader(HandleKind Kind) : Tag(LiveTag | static_cast<uint32_t>(Kind)) {}
  HandleHeader(const HandleHeader &) = delete;
  HandleHeader &operator=(const HandleHeader &) = delete;
};

// The limits of kernels and their launches, as the driver states them.
struct DeviceLimits {
  pi_uint32 MaxClockFrequency = 0; // MHz; 0 where the driver does not say
  // Work-groups one launch may have per dimension (the total is their product).
  size_t MaxWorkGroups[3] = {1, 1, 1};
  size_t MaxParameterSize = 0; // bytes of kernel arguments one launch passes
  pi_uint32 MaxConstantArgs = 0;
  size_t PrintfBufferSize = 0;
  size_t ProfilingTimerResolution = 0; // ns per tick of the event timestamps
  // Sub-group sizes the device runs (empty where it has no sub-groups to choose).
  std::vector<pi_uint32> SubGroupSizes;
  pi_uint32 MaxNumSubGroups = 1;
  bool SubGroupIndependentForwardProgress = false;
  pi_bitfield SingleFpConfig = 0; // cl_device_fp_config bits, as DoubleFpConfig
  pi_bitfield ExecutionCapabilities = PI_EXEC_KERNEL;
  bool AsyncBarrier = false; // SYCL's CUDA async barrier (sm_80+)
  bool Bfloat16Conversions = false;
  bool Esimd = false;

  // The work-groups of one launch in all: the product of MaxWorkGroups, or the largest
  // size_t where that overflows.
  size_t totalWorkGroups() const {
    size_t Total = 1;
    for (const size_t Each : MaxWorkGroups)
      if (__builtin_mul_overflow(Total, Each, &Total))
        return SIZE_MAX;
    return Total;
  }
};

// The __constant pointers a launch can pass where the driver states no count: as many
// as its parameter space holds (8 bytes each).
inline pi_uint32 constantArgumentsIn(size_t ParameterBytes) {
  return static_cast<pi_uint32>(ParameterBytes / sizeof(void *));
}

// Memory as the device sees it, in OpenCL's words (cl_device_mem_cache_type and
// cl_device_local_mem_type numbering).
struct DeviceMemory {
  pi_uint64 MaxAllocSize = 0;
  // Alignment of a sub-buffer's offset, in bits: OpenCL's full-profile minimum (the
  // largest built-in type, long16) where the driver says nothing.
  pi_uint32 BaseAddressAlignBits = 1024;
  pi_uint32 GlobalCacheType = PI_DEVICE_MEM_CACHE_TYPE_NONE;
  pi_uint32 GlobalCacheLineSize = 0;
  pi_uint64 GlobalCacheSize = 0;
  pi_uint64 MaxConstantBufferSize = 0;
  pi_uint32 LocalMemType = PI_DEVICE_LOCAL_MEM_TYPE_NONE;
  pi_uint64 LocalMemSize = 0;
  bool ErrorCorrection = false;
  // The device works on the host's memory (CPUs, integrated GPUs): the driver's fact. The
  // faces answer HOST_UNIFIED_MEMORY with servesHostUnifiedMemory() instead.
  bool HostUnified = false;
};

// What HOST_UNIFIED_MEMORY answers. A SYCL runtime that reads true shares a buffer's
// host and device copies: it creates the buffer over the host memory
// (USE_HOST_POINTER) and reaches it through maps. Maps are served now, but Level Zero
// refuses USE_HOST_POINTER and that path has not been run with DPC++: so false
// everywhere, whatever the driver says (Memory.HostUnified); the runtime then copies,
// which works.
inline bool servesHostUnifiedMemory(const DeviceMemory &) { return false; }

// What kernels' atomics and fences can do (PI_MEMORY_ORDER_* and PI_MEMORY_SCOPE_* bits,
// a scope implying every narrower one).
struct DeviceAtomics {
  bool Int64 = false;
  pi_memory_order_capabilities MemoryOrders = PI_MEMORY_ORDER_RELAXED;
  pi_memory_scope_capabilities MemoryScopes =
      PI_MEMORY_SCOPE_WORK_ITEM | PI_MEMORY_SCOPE_SUB_GROUP | PI_MEMORY_SCOPE_WORK_GROUP;
  pi_memory_order_capabilities FenceOrders = PI_MEMORY_ORDER_RELAXED | PI_MEMORY_ORDER_ACQUIRE |
                                             PI_MEMORY_ORDER_RELEASE | PI_MEMORY_ORDER_ACQ_REL;
  pi_memory_scope_capabilities FenceScopes =
      PI_MEMORY_SCOPE_WORK_ITEM | PI_MEMORY_SCOPE_SUB_GROUP | PI_MEMORY_SCOPE_WORK_GROUP;
};

// OpenCL's preferred and native vector widths, per scalar type; 0 for a type the device
// does not compute (double without fp64, half without fp16).
enum class VectorType : unsigned { Char, Short, Int, Long, Float, Double, Half, Count };
struct DeviceVectorWidths {
  static constexpr size_t Count = static_cast<size_t>(VectorType::Count);
  pi_uint32 Preferred[Count] = {1, 1, 1, 1, 1, 0, 0};
  pi_uint32 Native[Count] = {1, 1, 1, 1, 1, 0, 0};
};

// What a device can do with images (UR's urMemImage*, urSampler*; PI has no images), as
// the driver states it. Supported false (every backend without a hook for images): the
// limits stay 0 and image and sampler creation is refused with UNSUPPORTED_FEATURE.
struct DeviceImages {
  bool Supported = false;
  size_t Max2D[2] = {0, 0};    // width, height
  size_t Max3D[3] = {0, 0, 0}; // width, height, depth
  size_t MaxBufferSize = 0;    // pixels of an image made over a buffer
  size_t MaxArraySize = 0;     // images of an image array
  pi_uint32 MaxReadArgs = 0, MaxWriteArgs = 0, MaxReadWriteArgs = 0, MaxSamplers = 0;
};

// What a device says of itself, filled once by the backend at discovery; the core
// answers piDeviceGetInfo from it.
struct DeviceDescription {
  pi_device_type Type = PI_DEVICE_TYPE_GPU;
  pi_uint32 VendorId = 0;
  pi_uint32 ComputeUnits = 0;
  size_t MaxWorkGroupSize = 1;
  size_t MaxWorkItemSizes[3] = {1, 1, 1};
  pi_uint64 GlobalMemSize = 0;
  // OpenCL's cl_device_fp_config bits; 0 where the device has no fp64 / fp16.
  pi_bitfield DoubleFpConfig = 0;
  pi_bitfield HalfFpConfig = 0;
  bool CompilerAvailable = true;
  bool LinkerAvailable = false;
  bool ExecutesKernels = true;
  std::string Name, Vendor, DriverVersion, Version, Extensions, IlVersion;
  std::string LinkFormats;  // space separated image targets this device links
  std::string ImageFormats; // ... builds and runs, linked or not
  pi_usm_capabilities HostUsm = 0, DeviceUsm = 0, SharedUsm = 0;
  // The largest alignment piextUSM*Alloc accepts per kind (0: any power of two).
  pi_uint32 MaxHostUsmAlignment = 0, MaxDeviceUsmAlignment = 0, MaxSharedUsmAlignment = 0;
  pi_device_global_mechanism DeviceGlobal = PI_DEVICE_GLOBAL_MECHANISM_NONE;
  pi_usm_mechanism Usm = PI_USM_MECHANISM_NONE;
  std::string RuntimeVersion; // the backend's version for the device ("3.0", "9.0")
  bool IntegratedGpu = false;
  // The driver reserves virtual addresses and maps physical memory of this device onto
  // them (UR's urVirtualMem* / urPhysicalMem*: ContextImpl's virtual-memory hooks).
  bool VirtualMemory = false;
  // A queue of the device can record the device's time as a command of its own, on any
  // queue, profiling or not (UR's urEnqueueTimestampRecordingExp: QueueImpl::timestamp).
  bool TimestampRecording = false;
  // Kernels can launch cooperatively, all work-groups resident at once (UR's
  // UR_KERNEL_LAUNCH_FLAG_COOPERATIVE: LaunchShape::Cooperative,
  // KernelImpl::maxCooperativeGroups).
  bool CooperativeLaunch = false;
  // Facts for UR's optional queries, where the driver states them (empty / 0 where it
  // does not: the face answers UNSUPPORTED_ENUMERATION): the 16-byte UUID, the PCI
  // address ("DDDD:BB:DD.F"), the memory's peak clock and bus width, the 32-bit
  // registers one work-group may use.
  std::vector<uint8_t> Uuid;
  std::string PciAddress;
  pi_uint32 MemoryClockMHz = 0;
  // Bytes a second the memory moves at its peak clock, where the backend can say (CUDA and
  // HIP: two transfers a clock of the bus's width, from the driver's kHz).
  pi_uint64 MaxMemoryBandwidth = 0;
  pi_uint32 MemoryBusWidthBits = 0;
  pi_uint32 MaxRegistersPerWorkGroup = 0;
  DeviceLimits Limits;
  DeviceMemory Memory;
  DeviceAtomics Atomics;
  DeviceVectorWidths VectorWidths;
  DeviceImages Images;
};

enum class UsmKind { Host, Device, Shared };

// One USM allocation made through a context (the core's record, for the pointer
// queries and the range checks of the USM hints).
struct UsmRecord {
  size_t Size = 0;
  UsmKind Kind = UsmKind::Host;
  _pi_device *Device = nullptr; // null for host memory
  UsmPool *Pool = nullptr;      // the pool it was served from (usm_pool.cpp), if any
};

// Memory a USM pool holds from the driver (a block it serves allocations from, or an
// allocation too large to pool): the pointers inside it are the pool's to free.
struct UsmPoolBlock {
  size_t Size = 0;
  UsmPool *Pool = nullptr;
  std::shared_ptr<UsmPoolState> State; // the pool's allocator, alive while a free uses it
};

struct PlatformDescription {
  std::string Name, Vendor, Version, Profile = "FULL_PROFILE", Extensions;
};

} // namespace dglink::core

// Root objects: made at discovery, never released.
struct _pi_platform : dglink::core::HandleHeader {
  static constexpr dglink::core::HandleKind Kind = dglink::core::HandleKind::Platform;
  _pi_platform() : HandleHeader(Kind) {}
  dglink::core::PlatformDescription Description;
  std::vector<_pi_device *> Devices;
  std::unique_ptr<dglink::core::PlatformImpl> Impl;
};

struct _pi_device : dglink::core::HandleHeader {
  static constexpr dglink::core::HandleKind Kind = dglink::core::HandleKind::Device;
  _pi_device() : HandleHeader(Kind) {}
  _pi_platform *Platform = nullptr;
  dglink::core::DeviceDescription Description;
  std::unique_ptr<dglink::core::DeviceImpl> Impl;
};

struct _pi_context : dglink::core::HandleHeader {
  static constexpr dglink::core::HandleKind Kind = dglink::core::HandleKind::Context;
  _pi_context() : HandleHeader(Kind) {}
  _pi_platform *Platform = nullptr;
  std::vector<_pi_device *> Devices;
  // The USM allocations made through this context, by start address, and the memory
  // its USM pools hold from the driver.
  std::mutex UsmMutex;
  std::map<uintptr_t, dglink::core::UsmRecord> UsmAllocations;   // guarded by UsmMutex
  std::map<uintptr_t, dglink::core::UsmPoolBlock> UsmPoolBlocks; // guarded by UsmMutex
  // The live queues of the context: what a pool finishes before it hands out memory
  // that was freed again (urUSMFree's promise: commands that used it are done).
  std::mutex QueuesMutex;
  std::set<_pi_queue *> Queues; // guarded by QueuesMutex
  // Functions to call, each with its data, once the context is destroyed (UR's
  // urContextSetExtendedDeleter), in the order they were set.
  std::mutex DeleterMutex;
  std::vector<std::pair<void (*)(void *), void *>> Deleters; // guarded by DeleterMutex
  std::unique_ptr<dglink::core::ContextImpl> Impl;

  bool hasDevice(const _pi_device *Device) const;
};

struct _pi_queue : dglink::core::HandleHeader {
  static constexpr dglink::core::HandleKind Kind = dglink::core::HandleKind::Queue;
  _pi_queue() : HandleHeader(Kind) {}
  _pi_context *Context = nullptr; // retained
  _pi_device *Device = nullptr;
  pi_queue_properties Properties = 0;
  // Commands submitted so far, and how many of them were known complete at the last
  // finish or blocking command (queues are in order): equal means empty.
  std::atomic<uint64_t> Submitted{0};
  std::atomic<uint64_t> KnownComplete{0};
  std::unique_ptr<dglink::core::QueueImpl> Impl;
};

namespace dglink::core {

// Host memory a map handed out (piEnqueueMemBufferMap), aligned for any type.
struct MappedMemoryDelete {
  void operator()(void *Pointer) const;
};
using MappedMemory = std::unique_ptr<void, MappedMemoryDelete>;

// One map of a buffer: where the host sees Size bytes at Offset, with what flags; the
// host memory the core allocated (none for a HOST_PTR_USE buffer: the caller's memory
// at Offset); and the commands that may still use that memory (retained: the memory
// outlives them): the map's read where it did not block, the unmap's write-back.
// memory.cpp.
struct BufferMapping {
  void *Pointer = nullptr;
  size_t Offset = 0;
  size_t Size = 0;
  pi_map_flags Flags = 0;
  MappedMemory Memory;
  _pi_event *Reading = nullptr;
  _pi_event *WritingBack = nullptr;
};

// A buffer's live maps, and the memory of unmapped ones whose write-back is still
// running (freed once it completed, at the buffer's next map or unmap, or at its
// release, which waits for it).
struct BufferMappings {
  std::mutex Mutex;
  std::list<BufferMapping> Live;
  std::list<BufferMapping> Unmapped;
};

// Ends every map of Mem at its release: waits for the commands still using the memory,
// then frees it. Unmapped maps are not written back (as OpenCL, whose buffer is gone).
void dropMappings(_pi_mem &Mem);

// ---- Images and samplers (UR's urMemImage*, urSampler*; image.cpp). The enumerations
// keep UR's numbering, so that a face converts them with a range check; a backend maps
// them onto its driver's.
enum class ImageType : uint32_t { Image2D, Image3D, Image2DArray, Image1D, Image1DArray };
enum class ChannelOrder : uint32_t {
  A,
  R,
  RG,
  RA,
  RGB,
  RGBA,
  BGRA,
  ARGB,
  ABGR,
  Intensity,
  Luminance,
  Rx,
  RGx,
  RGBx,
  SRGBA
};
inline constexpr uint32_t ChannelOrderCount = 15;
enum class ChannelType : uint32_t {
  SnormInt8,
  SnormInt16,
  UnormInt8,
  UnormInt16,
  UnormShort565,
  UnormShort555,
  UnormInt101010,
  SignedInt8,
  SignedInt16,
  SignedInt32,
  UnsignedInt8,
  UnsignedInt16,
  UnsignedInt32,
  HalfFloat,
  Float
};
inline constexpr uint32_t ChannelTypeCount = 15;

struct PixelFormat {
  ChannelOrder Order = ChannelOrder::RGBA;
  ChannelType Type = ChannelType::UnormInt8;
};

// An image: its type, format and size in pixels (Height 1 for 1-D images, Depth 1 but
// for 3-D ones, ArraySize 1 but for arrays), and how the driver lays it out (RowPitch,
// SlicePitch, ElementSize in bytes: filled by the backend when it makes the image).
struct ImageDescription {
  ImageType Type = ImageType::Image2D;
  PixelFormat Format;
  size_t Width = 1, Height = 1, Depth = 1, ArraySize = 1;
  size_t RowPitch = 0, SlicePitch = 0, ElementSize = 0;
  // Dimensions a region addresses: 1 (x), 2 (x, y: 2-D images and 1-D arrays) or 3.
  unsigned regionDimensions() const {
    switch (Type) {
    case ImageType::Image1D:
      return 1;
    case ImageType::Image2D:
    case ImageType::Image1DArray:
      return 2;
    case ImageType::Image3D:
    case ImageType::Image2DArray:
      break;
    }
    return 3;
  }
  // The extent a region may reach in each dimension (an array's images are the last).
  void extent(size_t (&Out)[3]) const {
    Out[0] = Width;
    Out[1] = Type == ImageType::Image1DArray ? ArraySize : Height;
    Out[2] = Type == ImageType::Image2DArray ? ArraySize : Depth;
    for (unsigned I = regionDimensions(); I < 3; ++I)
      Out[I] = 1;
  }
};

enum class SamplerAddressing : uint32_t { None, ClampToEdge, Clamp, Repeat, MirroredRepeat };
enum class SamplerFilter : uint32_t { Nearest, Linear };
struct SamplerDescription {
  bool Normalized = true;
  SamplerAddressing Addressing = SamplerAddressing::Clamp;
  SamplerFilter Filter = SamplerFilter::Nearest;
};

} // namespace dglink::core

struct _pi_mem : dglink::core::HandleHeader {
  static constexpr dglink::core::HandleKind Kind = dglink::core::HandleKind::Mem;
  _pi_mem() : HandleHeader(Kind) {}
  _pi_context *Context = nullptr; // retained
  size_t Size = 0;
  // The access flag (PI_MEM_FLAGS_ACCESS_*) and PI_MEM_FLAGS_HOST_PTR_USE, as created.
  pi_mem_flags Flags = PI_MEM_FLAGS_ACCESS_RW;
  void *HostPointer = nullptr; // the caller's memory of a HOST_PTR_USE buffer
  // A sub-buffer (piMemBufferPartition): its parent (retained; never itself a
  // sub-buffer) and where in it the sub-buffer starts.
  _pi_mem *Parent = nullptr;
  size_t Origin = 0;
  dglink::core::BufferMappings Mappings;
  // An image (UR's urMemImageCreate): its description; buffer commands refuse it.
  std::optional<dglink::core::ImageDescription> Image;
  std::unique_ptr<dglink::core::MemImpl> Impl;
};

// Where a device global's bytes are, as the backend found them: a device address,
// or an offset into a buffer the backend owns (OpenCL's lowered storage).
struct DeviceGlobalLocation {
  uint64_t Address = 0;
  void *Buffer = nullptr;
};

struct _pi_program : dglink::core::HandleHeader {
  static constexpr dglink::core::HandleKind Kind = dglink::core::HandleKind::Program;
  _pi_program() : HandleHeader(Kind) {}
  _pi_context *Context = nullptr; // retained
  std::vector<_pi_device *> Devices;
  pi_device_binary_format Format = PI_DEVICE_BINARY_TYPE_NONE;
  std::string Target;
  std::vector<uint8_t> Binary; // as created, or what a link produced
  dglink::ImageMetadata Metadata;
  bool FromIl = false; // made from SPIR-V by piProgramCreate (urProgramCreateWithIL)
  // Specialization constants for the next build or compile (SpecId -> value bytes), and
  // whether the backend's program was made from the module specialized with them.
  std::map<uint32_t, std::vector<uint8_t>> SpecConstants;
  bool SpecConstantsApplied = true;

  mutable std::mutex Mutex; // build, compile, link output, log and kernel names
  std::string Options;
  std::string Log;
  pi_program_build_status BuildStatus = PI_PROGRAM_BUILD_STATUS_NONE;
  pi_program_binary_type BinaryType = PI_PROGRAM_BINARY_TYPE_NONE;
  std::vector<std::string> KernelNames;
  bool LinkFailed = false; // the output of a failed link: a log, no code
  // Set once by a successful build or link, then read without the mutex.
  std::atomic<bool> Executable{false};

  dglink::DeviceGlobalCache<DeviceGlobalLocation> Globals;
  std::unique_ptr<dglink::core::ProgramImpl> Impl;

  bool hasDevice(const _pi_device *Device) const;
};

namespace dglink::core {

// A kernel argument as it was set last (piKernelSetArg, piextKernelSetArgPointer,
// piextKernelSetArgMemObj), kept by the core so that a command buffer captures a
// kernel's arguments when the launch is appended (command_buffer.cpp).
struct KernelArgument {
  enum class Kind { Value, Pointer, Local, Buffer };
  Kind Type = Kind::Value;
  std::vector<uint8_t> Bytes; // Value and Pointer: the bytes as set
  size_t LocalSize = 0;       // Local: bytes of local memory
  _pi_mem *Buffer = nullptr;  // Buffer: not retained (as OpenCL's clSetKernelArg); may be null
};

} // namespace dglink::core

struct _pi_kernel : dglink::core::HandleHeader {
  static constexpr dglink::core::HandleKind Kind = dglink::core::HandleKind::Kernel;
  _pi_kernel() : HandleHeader(Kind) {}
  _pi_program *Program = nullptr; // retained
  std::string Name;
  mutable std::mutex ArgumentsMutex;
  std::map<pi_uint32, dglink::core::KernelArgument> Arguments; // guarded by ArgumentsMutex
  std::unique_ptr<dglink::core::KernelImpl> Impl;
};

namespace dglink::core {

// What urUSMPoolCreate asked for (UR's ur_usm_pool_desc_t and ur_usm_pool_limits_desc_t).
struct UsmPoolOptions {
  // Blocks taken from the driver are zeroed before any allocation is served from them.
  bool ZeroInitializeBlocks = false;
  // Allocations up to this size are served from blocks; larger ones from the driver
  // directly (still the pool's: freed with it).
  size_t MaxPoolableSize = 2u << 20;
  // The smallest block the pool asks the driver for.
  size_t MinDriverAllocSize = 64u << 10;
};

// A USM pool (UR's ur_usm_pool_handle_t): USM of one context, served from blocks of the
// driver's memory that the pool keeps until it is released (usm_pool.cpp).
struct UsmPool : HandleHeader {
  static constexpr HandleKind Kind = HandleKind::UsmPool;
  UsmPool() : HandleHeader(Kind) {}
  _pi_context *Context = nullptr; // retained
  UsmPoolOptions Options;
  std::shared_ptr<UsmPoolState> State; // usm_pool.cpp; dropped by the last release
};

} // namespace dglink::core

// An event of a command has its queue and the backend's Impl. An event made from a
// native handle has no queue (it retains its context instead); the one made from the
// native handle 0 has no Impl either: it stands for no command and is complete.
struct _pi_event : dglink::core::HandleHeader {
  static constexpr dglink::core::HandleKind Kind = dglink::core::HandleKind::Event;
  _pi_event() : HandleHeader(Kind) {}
  _pi_queue *Queue = nullptr;     // retained
  _pi_context *Context = nullptr; // retained only where Queue is null
  pi_command_type Command = PI_COMMAND_TYPE_MARKER;
  // Impl is a command buffer's command's event (core::CommandEventImpl): its state is
  // that of the command's latest execution, which wait lists wait for instead.
  bool OfCommand = false;
  std::unique_ptr<dglink::core::EventImpl> Impl;
};

namespace dglink::core {

// Physical memory of one device that virtual address ranges of its context map onto
// (UR's ur_physical_mem_handle_t; PI has no such object): virtual_memory.cpp.
struct PhysicalMemory : HandleHeader {
  static constexpr HandleKind Kind = HandleKind::PhysicalMem;
  PhysicalMemory() : HandleHeader(Kind) {}
  _pi_context *Context = nullptr; // retained
  _pi_device *Device = nullptr;
  size_t Size = 0;
  bool Shareable = false; // made for export to other processes (UR's ENABLE_IPC)
  std::unique_ptr<PhysicalMemImpl> Impl;
};

// An image sampler of one context (UR's ur_sampler_handle_t; PI has none): image.cpp.
struct Sampler : HandleHeader {
  static constexpr HandleKind Kind = HandleKind::Sampler;
  Sampler() : HandleHeader(Kind) {}
  _pi_context *Context = nullptr; // retained
  SamplerDescription Description;
  std::unique_ptr<SamplerImpl> Impl;
};

// The adapter's name in messages ("not a handle of the Level Zero adapter"), from
// the backend.
const char *adapterLabel();

// What a handle argument is, without trusting it beyond its first 16 bytes.
enum class HandleState { Null, Foreign, Live, Released, OtherKind };
HandleState inspectHandle(const void *Handle, HandleKind Expected, HandleKind *Actual);

// What a handle argument that is not live is: "null", "a queue that was released",
// "a queue, not a program", "not a handle of the Level Zero adapter".
std::string describeHandle(HandleState State, HandleKind Expected, HandleKind Actual);

// Null, foreign, released and wrong-kind handles are refused with Code and a message
// naming the function and argument (the contract's INVALID_<TYPE>).
pi_result refuseHandle(HandleState State, HandleKind Expected, HandleKind Actual, pi_result Code,
                       const char *Function, const char *Argument);

template <typename Handle>
inline pi_result checkHandle(Handle *H, pi_result Code, const char *Function,
                             const char *Argument) {
  HandleKind Actual = Handle::Kind;
  const HandleState State = inspectHandle(H, Handle::Kind, &Actual);
  if (__builtin_expect(State == HandleState::Live, 1))
    return PI_SUCCESS;
  return refuseHandle(State, Handle::Kind, Actual, Code, Function, Argument);
}

// Reference counting: retain adds one; release drops one and, with the last,
// destroys the backend part, drops the handle's references to its parents and
// moves the handle into the quarantine.
template <typename Handle> inline void retain(Handle *H) {
  H->RefCount.fetch_add(1, std::memory_order_relaxed);
}
void release(_pi_context *Context);
void release(_pi_queue *Queue);
void release(_pi_mem *Mem);
void release(_pi_program *Program);
void release(_pi_kernel *Kernel);
void release(_pi_event *Event);
void release(_pi_command_buffer *CommandBuffer);
void release(UsmPool *Pool);
// The last release of a pool returns its memory to the driver first (usm_pool.cpp).
void dropUsmPoolMemory(UsmPool &Pool);
void release(PhysicalMemory *Physical);
void release(Sampler *TheSampler);

// Makes a handle (an allocation point of the fault injection, below).
template <typename Handle> std::unique_ptr<Handle> makeHandle();

// Test-only fault injection: the N-th allocation point reached on this thread from
// now on throws std::bad_alloc, as an allocation of the adapter would. Every export
// passes one point first, and every handle allocation is one. 0 disarms.
void armAllocationFailure(unsigned N);
void allocationPoint();

} // namespace dglink::core

// Checks a handle argument, naming it after the expression.
#define DGLINK_CHECK_HANDLE(Handle, Code)                                                          \
  DGLINK_TRY(::dglink::core::checkHandle((Handle), (Code), __func__, #Handle))
