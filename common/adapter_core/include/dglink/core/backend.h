// The backend interface: what an adapter implements so that the core can serve the
// whole PI contract. The core checks every argument in contract order, owns the
// handles, reference counts, events, program bookkeeping and the device-global
// handler; a hook is called only with checked, live arguments and does what only the
// driver can do. A hook reports an error by returning it with dglink::fail (or the
// backend's driver-error helper), and leaves its outputs untouched then.
#pragma once

#include <dglink/core/handles.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace dglink::core {

const char *usmKindName(UsmKind Kind);

// What is known of a USM pointer: the allocation it lies in (its start, size, kind and
// device; Device null for host memory), from the core's own records of what this
// adapter allocated, else from the driver (ContextImpl::usmPointerInfo).
struct UsmAllocationInfo {
  void *Base = nullptr;
  size_t Size = 0;
  UsmKind Kind = UsmKind::Host;
  _pi_device *Device = nullptr;
  UsmPool *Pool = nullptr; // the pool that served it (live), else null
};

// What the driver says of a kernel on one device (UR's kernel group and sub-group
// queries): the local memory its own __local variables take, the private memory of one
// work-item, the multiple of work-items a group should have, and its sub-groups (the
// largest size, how many a group of the kernel's largest size has, how many and which
// size the kernel requires: 0 where it requires none).
struct KernelDeviceProperties {
  size_t LocalMemSize = 0;
  size_t PrivateMemSize = 0;
  size_t PreferredGroupSizeMultiple = 1;
  pi_uint32 MaxSubGroupSize = 1;
  pi_uint32 MaxNumSubGroups = 1;
  pi_uint32 CompileNumSubGroups = 0;
  pi_uint32 RequiredSubGroupSize = 0;
};

// Where a USM prefetch moves memory to (UR's ur_usm_migration_flag_t).
enum class UsmMigration { ToDevice, ToHost };

// The wait list and the completion event of one enqueue. Waits are live events of
// this adapter (checked by the core). Out is null when the caller wants no event;
// otherwise a hook that succeeds stores the command's event there. Blocking: the
// hook returns once the command is complete.
struct Enqueue {
  const pi_event *Waits = nullptr;
  pi_uint32 NumWaits = 0;
  bool Blocking = false;
  std::unique_ptr<EventImpl> *Out = nullptr;
};

// A checked launch: 1 to 3 dimensions, global sizes > 0, local sizes (when given)
// that divide them within the device's and the kernel's limits, offsets 0 unless
// the backend and the kernel take them.
struct LaunchShape {
  pi_uint32 Dimensions = 1;
  size_t Global[3] = {1, 1, 1};
  size_t Local[3] = {1, 1, 1};
  size_t Offset[3] = {0, 0, 0};
  bool LocalGiven = false;
  // All work-groups resident at once (UR's UR_KERNEL_LAUNCH_FLAG_COOPERATIVE), checked
  // against the device's DeviceDescription::CooperativeLaunch.
  bool Cooperative = false;
  // Whether the launch has a global offset (dimensions beyond Dimensions hold 0).
  bool hasOffset() const { return Offset[0] != 0 || Offset[1] != 0 || Offset[2] != 0; }
};

// What a program is made from: bytes and, where the caller had them, the image's
// format and target (piextProgramCreateWithImage) and its metadata.
struct ProgramSource {
  enum class Origin { IL, Binary, Image };
  Origin From = Origin::IL;
  const unsigned char *Data = nullptr; // the first (or only) binary
  size_t Size = 0;
  // Binary only: one binary per device of the program, each checked not empty
  // (Binaries[0] is Data); most backends load Data for every device.
  const unsigned char *const *Binaries = nullptr;
  const size_t *Lengths = nullptr;
  pi_uint32 NumBinaries = 0;
  pi_device_binary_format DeclaredFormat = PI_DEVICE_BINARY_TYPE_NONE; // Image only
  const char *Target = nullptr;                                        // Image only
  const _pi_device_binary_struct *Image = nullptr; // Image only: entries, options
};

// A checked rectangle between two memories (piEnqueueMemBuffer{Read,Write,Copy}Rect):
// origins and region in bytes (x), rows (y) and slices (z), pitches resolved (never 0)
// and every byte inside both sides. Src and Dst are buffers or host memory as the hook
// says; offsets are relative to each side's start (a buffer's, or the host pointer).
struct RectCopy {
  size_t SrcOrigin[3] = {0, 0, 0};
  size_t DstOrigin[3] = {0, 0, 0};
  size_t Region[3] = {1, 1, 1};
  size_t SrcRowPitch = 0, SrcSlicePitch = 0;
  size_t DstRowPitch = 0, DstSlicePitch = 0;

  size_t srcOffset(size_t Row, size_t Slice) const {
    return SrcOrigin[0] + (SrcOrigin[1] + Row) * SrcRowPitch +
           (SrcOrigin[2] + Slice) * SrcSlicePitch;
  }
  size_t dstOffset(size_t Row, size_t Slice) const {
    return DstOrigin[0] + (DstOrigin[1] + Row) * DstRowPitch +
           (DstOrigin[2] + Slice) * DstSlicePitch;
  }
};

// A checked image command (urEnqueueMemImageRead/Write/Copy): origins and region in
// pixels (an array's images in the last dimension a region addresses, unused dimensions 0
// and 1), every pixel inside the image(s); for reads and writes the host memory's row and
// slice pitches in bytes, resolved (never 0).
struct ImageRegion {
  size_t Origin[3] = {0, 0, 0};    // the image's (the source's, for a copy)
  size_t DstOrigin[3] = {0, 0, 0}; // copies only
  size_t Region[3] = {1, 1, 1};
  size_t RowPitch = 0, SlicePitch = 0;
};

// What ProgramImpl::findGlobal found.
struct GlobalLookup {
  DeviceGlobalLocation Location;
  size_t Bytes = 0;
  bool Found = false;
  const char *NotFoundReason = nullptr;
};

// What every backend object has: a virtual destructor (the object frees what the
// driver gave it) and, where the driver has one, its own handle of the object.
class BackendObject {
public:
  virtual ~BackendObject();
  // The driver's handle of the object (cl_context, CUstream, ze_kernel_handle_t, a
  // device address, ...), for a face's urXGetNativeHandle; false where the driver has
  // no one handle of it (the face answers UNSUPPORTED_FEATURE). The handle stays the
  // object's: valid while the object lives, never released by the caller.
  virtual bool nativeHandle(uintptr_t &Out) const;
};

// For nativeHandle: a driver handle (a pointer or an integer) as the face's integer.
template <typename DriverHandle> bool nativeHandleOf(DriverHandle Handle, uintptr_t &Out) {
  if constexpr (std::is_pointer_v<DriverHandle>)
    Out = reinterpret_cast<uintptr_t>(Handle);
  else
    Out = static_cast<uintptr_t>(Handle);
  return true;
}

class PlatformImpl : public BackendObject {
public:
  ~PlatformImpl() override;
};

class DeviceImpl : public BackendObject {
public:
  ~DeviceImpl() override;
  // The device's memory not in use now, in bytes (UR's GLOBAL_MEM_FREE); false where the
  // driver cannot say.
  virtual bool freeMemory(pi_uint64 &Bytes) const {
    (void)Bytes;
    return false;
  }
  // The device's global timer now, in nanoseconds, on the clock its events' profiling
  // times use (UR's urDeviceGetGlobalTimestamps). By default PI_ERROR_UNSUPPORTED_FEATURE
  // (no message): the backend has no such timer.
  virtual pi_result globalTimestamp(pi_uint64 &Nanoseconds) {
    (void)Nanoseconds;
    return PI_ERROR_UNSUPPORTED_FEATURE;
  }
};

class EventImpl : public BackendObject {
public:
  ~EventImpl() override; // recycles the driver event
  // Blocks until the command is complete.
  virtual pi_result wait() = 0;
  // PI_EVENT_COMPLETE or PI_EVENT_SUBMITTED.
  virtual pi_result status(pi_int32 &Status) = 0;
  // The device's time of one point of a complete command of a profiling queue, in
  // nanoseconds (the core checked the queue and waited for the command). QUEUED and
  // SUBMIT may be the host's view; START <= END must be the device's.
  virtual pi_result profilingInfo(pi_profiling_info Point, pi_uint64 &Nanoseconds) = 0;
  // Calls Reached once the command reached State (PI_EVENT_SUBMITTED, _RUNNING or
  // _COMPLETE) or a later one, from any thread, exactly once; the core keeps the event
  // alive until then. False where the driver has no callbacks: the core then waits for
  // the event on a thread of its own (adapter_core/event.cpp).
  virtual bool notify(pi_int32 State, void (*Reached)(void *), void *Data) {
    (void)State, (void)Reached, (void)Data;
    return false;
  }
};

class MemImpl : public BackendObject {
public:
  ~MemImpl() override; // frees the memory (a sub-buffer's view frees nothing)
  // The memory's device address, where it has one that USM commands and kernels' pointer
  // arguments take (OpenCL: a buffer over an SVM allocation); null otherwise.
  virtual void *deviceAddress() const { return nullptr; }
};

class KernelImpl : public BackendObject {
public:
  ~KernelImpl() override;
  // The number of arguments callers set.
  virtual pi_uint32 numArguments() const = 0;
  // Whether numArguments() is the kernel's own count (the driver describes its
  // parameters), not only how many arguments were set so far.
  virtual bool knowsArguments() const { return true; }
  // The most work-items one group of this kernel may have.
  virtual size_t maxGroupSize() const = 0;
  // A by-value argument (pointers too: Value points at the pointer); a null Value is
  // local memory of Size bytes where the backend has it. Index < numArguments()
  // where the backend knows the arguments.
  virtual pi_result setArgument(const char *Function, pi_uint32 Index, size_t Size,
                                const void *Value) = 0;
  // A USM pointer argument (piextKernelSetArgPointer): Value points at the pointer,
  // Size is sizeof(void *) (checked). Backends whose pointers are plain values keep
  // the default, setArgument.
  virtual pi_result setPointerArgument(const char *Function, pi_uint32 Index, size_t Size,
                                       const void *Value) {
    return setArgument(Function, Index, Size, Value);
  }
  // A buffer argument; Buffer may be null (a null pointer, as in OpenCL). An image (of a
  // backend that makes images) comes here too.
  virtual pi_result setBufferArgument(const char *Function, pi_uint32 Index, _pi_mem *Buffer) = 0;
  // A sampler argument (a backend that makes samplers). By default
  // PI_ERROR_UNSUPPORTED_FEATURE with a message naming Function.
  virtual pi_result setSamplerArgument(const char *Function, pi_uint32 Index, Sampler &Value);
  // The kernel's resources and sub-groups on Device (a device of its program), as the
  // driver states them; Out starts with the device's own facts (the core fills the
  // sub-group fields from its description), which a backend keeps where its driver says
  // nothing per kernel.
  virtual pi_result properties(const _pi_device &Device, KernelDeviceProperties &Out) const = 0;
  // Whether this kernel may launch with the global offset Offset (Dimensions of them, at
  // least one non-zero), on a backend whose globalOffsets() is true: PI_SUCCESS, or the
  // failure (with its message, naming Function and the kernel) of a kernel that cannot
  // (the stream backend's kernels without DPC++'s "<kernel>_with_offset" entry point).
  // By default every kernel may.
  virtual pi_result checkGlobalOffset(const char *Function, pi_uint32 Dimensions,
                                      const size_t *Offset) const;
  // The most work-groups of GroupSize work-items, each with DynamicLocalBytes of local
  // memory beside the kernel's own, that can be resident on Device at once (what a
  // cooperative launch may have), on a device whose description says CooperativeLaunch.
  // By default PI_ERROR_UNSUPPORTED_FEATURE with a message naming Function.
  virtual pi_result maxCooperativeGroups(const char *Function, const _pi_device &Device,
                                         size_t GroupSize, size_t DynamicLocalBytes,
                                         pi_uint32 &Out) const;
};

class ProgramImpl : public BackendObject {
public:
  ~ProgramImpl() override;
  // Makes Program executable for its devices. On success the hook fills
  // Program.KernelNames (where the driver can list them); Log gets the driver's log
  // either way. Called with Program.Mutex held, only for a program that is not
  // executable yet and has code.
  virtual pi_result build(_pi_program &Program, const std::string &Options, std::string &Log) = 0;
  // Checks Program as a link input (the driver may read it now); Log as for build.
  virtual pi_result compile(_pi_program &Program, const std::string &Options, std::string &Log) = 0;
  // The device global Symbol (Name: its unique id) in the executable for Device.
  // Where the module does not have it, Found stays false (not an error) and
  // NotFoundReason may say what the driver answered.
  virtual pi_result findGlobal(_pi_program &Program, _pi_device &Device, const std::string &Name,
                               const std::string &Symbol, GlobalLookup &Result) = 0;
  // A kernel of the executable; PI_ERROR_INVALID_KERNEL_NAME (with
  // core::unknownKernel) where there is none of that name.
  virtual pi_result createKernel(_pi_program &Program, const char *Name,
                                 std::unique_ptr<KernelImpl> &Kernel) = 0;
  // The program's binary for each of its devices (PI_PROGRAM_INFO_BINARIES): by
  // default Program.Binary for each; a driver that compiles to its own binaries (an
  // OpenCL program binary a later piProgramCreateWithBinary takes) gives those.
  // Called with Program.Mutex held.
  virtual pi_result binaries(const _pi_program &Program, std::vector<std::vector<uint8_t>> &Out);
  // The driver's kernel Native (urKernelCreateWithNativeHandle) of this executable
  // program (PI_ERROR_INVALID_PROGRAM where it is another's, as far as the driver tells):
  // Name filled from the driver. Owned as for ContextImpl::adoptQueue. By default
  // PI_ERROR_UNSUPPORTED_FEATURE naming Function.
  virtual pi_result adoptKernel(const char *Function, uintptr_t Native, bool Owned,
                                _pi_program &Program, std::string &Name,
                                std::unique_ptr<KernelImpl> &Kernel);
  // Called once a new program's metadata is complete (the image's property sets, the
  // caller's metadata), before the program is handed out: a backend that changed the
  // code itself adds what that made known (the OpenCL adapter: the device globals it
  // lowered into storage it owns). An error (naming Function) fails the creation. By
  // default nothing.
  virtual pi_result completeMetadata(const char *Function, dglink::ImageMetadata &Metadata);
};

// What piProgramLink gives the backend: checked inputs of one target and format, the
// symbol problems the images' tables show (the core fails the link with them after
// the hook, which may still run the driver's linker for its log), and the output
// program (Binary, KernelNames, Impl to fill; Log to append to). The hook answers
// PI_ERROR_LINK_PROGRAM_FAILURE when the link ran and failed (the output then carries
// the log); any other error means that nothing was linked (inputs this device cannot
// link, no linker): the core returns it and makes no output program.
struct LinkRequest {
  std::vector<_pi_program *> Inputs;
  const std::string &Options;
  bool ProblemsFound;
  _pi_program &Output;
};

class QueueImpl : public BackendObject {
public:
  ~QueueImpl() override; // waits for the queue's work
  virtual pi_result finish() = 0;
  // Host <-> device copies: Device is a device address, or an offset into Buffer
  // (MemImpl of this backend, or the buffer a DeviceGlobalLocation names).
  virtual pi_result write(const DeviceGlobalLocation &Device, const void *Src, size_t Size,
                          const Enqueue &Request) = 0;
  virtual pi_result read(void *Dst, const DeviceGlobalLocation &Device, size_t Size,
                         const Enqueue &Request) = 0;
  // USM: any two pointers the backend's USM or the host has.
  virtual pi_result usmCopy(void *Dst, const void *Src, size_t Size, const Enqueue &Request) = 0;
  // Pattern: a power of two up to 128 bytes that tiles Size (> 0); Ptr aligned to it.
  // The caller's pattern may go away when the hook returns. (The core tiles other
  // patterns, and patterns at pointers less aligned, itself and copies them.)
  virtual pi_result usmFill(void *Ptr, const void *Pattern, size_t PatternSize, size_t Size,
                            const Enqueue &Request) = 0;
  // 2D USM (UR's urEnqueueUSMMemcpy2D / urEnqueueUSMFill2D), checked by the core: Height
  // rows of Width bytes (Height > 1, Width > 0), each row Pitch bytes after the one before
  // on its side, Pitch >= Width, and the rows not contiguous on at least one side (the core
  // sends contiguous rows to usmCopy / usmFill). The fill's pattern is as usmFill's,
  // Width a multiple of it and every row's start aligned to it. By default one
  // usmCopy / usmFill per row in queue order (the queue is in order): the first row after
  // the wait list, the last with the event, blocking where asked. A driver with a 2D copy
  // or fill overrides them.
  virtual pi_result usmCopy2D(void *Dst, size_t DstPitch, const void *Src, size_t SrcPitch,
                              size_t Width, size_t Height, const Enqueue &Request);
  virtual pi_result usmFill2D(void *Ptr, size_t Pitch, const void *Pattern, size_t PatternSize,
                              size_t Width, size_t Height, const Enqueue &Request);
  // Records the device's time after the wait list and everything enqueued before, on any
  // queue of a device whose description says TimestampRecording: the event (Request.Out,
  // never null) answers EventImpl::profilingInfo with QUEUED = SUBMIT (the host's time of
  // the call) and START = END (the device's time), also on a queue without profiling. By
  // default PI_ERROR_UNSUPPORTED_FEATURE (no message).
  virtual pi_result timestamp(const Enqueue &Request);
  virtual pi_result launch(_pi_kernel &Kernel, const LaunchShape &Shape,
                           const Enqueue &Request) = 0;
  // Completes after the wait list and everything enqueued before (markers and
  // barriers alike on in-order queues).
  virtual pi_result marker(bool Barrier, const Enqueue &Request) = 0;
  // Buffer commands, checked by the core: both ranges inside their buffers (which may
  // be the same buffer: then the ranges do not overlap), buffers of the queue's
  // context. A sub-buffer is a MemImpl of its own (ContextImpl::createSubBuffer).
  virtual pi_result copyBuffer(MemImpl &Src, size_t SrcOffset, MemImpl &Dst, size_t DstOffset,
                               size_t Size, const Enqueue &Request) = 0;
  // Pattern as usmFill's (a power of two up to 128 bytes that tiles Size); Offset is a
  // multiple of the pattern's size.
  virtual pi_result fillBuffer(MemImpl &Buffer, size_t Offset, const void *Pattern,
                               size_t PatternSize, size_t Size, const Enqueue &Request) = 0;
  // Rectangles: Buffer is the Src side of readRect and copyRect, the Dst side of
  // writeRect and copyRect (Dst).
  virtual pi_result readRect(void *Dst, MemImpl &Buffer, const RectCopy &Rect,
                             const Enqueue &Request) = 0;
  virtual pi_result writeRect(MemImpl &Buffer, const void *Src, const RectCopy &Rect,
                              const Enqueue &Request) = 0;
  virtual pi_result copyRect(MemImpl &Src, MemImpl &Dst, const RectCopy &Rect,
                             const Enqueue &Request) = 0;
  // Whether every command enqueued so far is complete. By default a marker tells.
  virtual pi_result empty(bool &Empty);
  // Hints on USM the core checked (Size bytes at Ptr inside one allocation of the
  // queue's context): move it toward the device or the host, or apply UR's advice bits.
  // Each is a command with its event; by default a marker (the driver offers nothing:
  // the memory is where every access reaches it).
  virtual pi_result usmPrefetch(const void *Ptr, size_t Size, UsmMigration To,
                                const Enqueue &Request);
  virtual pi_result usmAdvise(const void *Ptr, size_t Size, uint32_t Advice,
                              const Enqueue &Request);
  // Image commands (a backend that makes images; image.cpp checked them: Region). Reads
  // and writes between an image and host memory; a copy between two images of one
  // format. By default PI_ERROR_UNSUPPORTED_FEATURE with a message naming Function.
  virtual pi_result readImage(const char *Function, void *Dst, MemImpl &Image,
                              const ImageRegion &Region, const Enqueue &Request);
  virtual pi_result writeImage(const char *Function, MemImpl &Image, const void *Src,
                               const ImageRegion &Region, const Enqueue &Request);
  virtual pi_result copyImage(const char *Function, MemImpl &Src, MemImpl &Dst,
                              const ImageRegion &Region, const Enqueue &Request);
};

// An image sampler (Sampler's Impl): its destructor gives the driver's sampler back.
class SamplerImpl : public BackendObject {
public:
  ~SamplerImpl() override;
};

// Physical memory of one device (PhysicalMemory's Impl): its destructor gives the
// driver's handle back (the driver frees the memory once no range maps it).
class PhysicalMemImpl : public BackendObject {
public:
  ~PhysicalMemImpl() override;
};

// What the devices of a context may do with a mapped virtual range (UR's
// ur_virtual_mem_access_flags_t: READ_WRITE before READ_ONLY where both are set).
enum class VirtualAccess { None, ReadOnly, ReadWrite };

class ContextImpl : public BackendObject {
public:
  ~ContextImpl() override;
  virtual pi_result createQueue(_pi_queue &Queue, std::unique_ptr<QueueImpl> &Impl) = 0;
  // A buffer of Size bytes, with the contents of CopyFrom when it is not null. Flags
  // (checked): one PI_MEM_FLAGS_ACCESS_* flag and PI_MEM_FLAGS_HOST_PTR_USE, with which
  // the buffer is Host's Size bytes themselves: what the host writes there before a
  // command is what the command reads (a driver may keep a copy, as OpenCL's
  // CL_MEM_USE_HOST_PTR may; what commands wrote is what reads of the buffer return).
  virtual pi_result createBuffer(size_t Size, const void *CopyFrom,
                                 std::unique_ptr<MemImpl> &Impl) = 0;
  virtual pi_result createHostBuffer(pi_mem_flags Flags, size_t Size, void *Host,
                                     std::unique_ptr<MemImpl> &Impl) = 0;
  // A view of Size bytes at Origin of Parent (checked: inside it, aligned to every
  // device's Memory.BaseAddressAlignBits); the core keeps Parent alive while the view lives.
  virtual pi_result createSubBuffer(_pi_mem &Parent, pi_mem_flags Flags, size_t Origin, size_t Size,
                                    std::unique_ptr<MemImpl> &Impl) = 0;
  virtual pi_result allocateUsm(UsmKind Kind, _pi_device *Device, size_t Size, pi_uint32 Alignment,
                                void *&Pointer) = 0;
  // PI_ERROR_INVALID_VALUE where Pointer is no USM allocation of this context.
  virtual pi_result freeUsm(void *Pointer) = 0;
  // Accepts or refuses Source for this backend (naming the format and the device),
  // fills Program.Format (and Target where the image gave none) and makes its Impl.
  virtual pi_result createProgram(const char *Function, const ProgramSource &Source,
                                  _pi_program &Program) = 0;
  virtual pi_result link(LinkRequest &Request) = 0;
  // What the driver knows of a pointer the core has no record of (memory not allocated
  // through this adapter): true with Out filled where the driver knows it as USM of this
  // context. By default false (UR's UR_USM_TYPE_UNKNOWN).
  virtual bool usmPointerInfo(const void *Pointer, UsmAllocationInfo &Out);
  // Objects of this context made from the driver's own handles (urQueue/
  // urEventCreateWithNativeHandle): the driver's object must belong to the context
  // (else PI_ERROR_INVALID_CONTEXT), a queue to one of its devices (Queue.Device is
  // the caller's device or null: the hook sets it, and Queue.Properties, from the
  // driver). Owned: the object takes the caller's reference and releases it at its end;
  // otherwise it takes a reference of its own. By default PI_ERROR_UNSUPPORTED_FEATURE
  // with a message: the driver has no such handle or the backend cannot adopt it.
  // An adopted event's NativeQueue is the driver's queue of its command (0: none, a user
  // event), which the core adopts too (not owned), so that the event has a queue.
  // Messages name Function.
  virtual pi_result adoptQueue(const char *Function, uintptr_t Native, bool Owned, _pi_queue &Queue,
                               std::unique_ptr<QueueImpl> &Impl);
  virtual pi_result adoptEvent(const char *Function, uintptr_t Native, bool Owned,
                               std::unique_ptr<EventImpl> &Impl, uintptr_t &NativeQueue);
  // The driver's buffer Native (urMemBufferCreateWithNativeHandle): Size filled from the
  // driver, the buffer's bytes from its start. Usm is what the core or the driver knows of
  // Native as a USM pointer of this context (null: none), for a backend whose buffers are
  // device addresses (the buffer then runs from Native to the allocation's end); a backend
  // whose buffers are driver objects refuses it (PI_ERROR_INVALID_MEM_OBJECT).
  virtual pi_result adoptBuffer(const char *Function, uintptr_t Native, bool Owned,
                                const UsmAllocationInfo *Usm, size_t &Size,
                                std::unique_ptr<MemImpl> &Impl);
  // The driver's program Native (urProgramCreateWithNativeHandle), of this context: the
  // hook fills Program.Devices (devices of the context), Impl, and BinaryType where the
  // driver's program is built (EXECUTABLE, with KernelNames where the driver lists them)
  // or compiled; the core derives the build status and executability from BinaryType.
  virtual pi_result adoptProgram(const char *Function, uintptr_t Native, bool Owned,
                                 _pi_program &Program);
  // The driver's program of the driver's kernel Native, for a kernel adopted with no
  // program (urKernelCreateWithNativeHandle's hProgram is optional): by default
  // PI_ERROR_INVALID_PROGRAM naming Function (the driver's kernel does not say).
  virtual pi_result programOfKernel(const char *Function, uintptr_t Native, uintptr_t &Program);

  // ---- Virtual memory (a face's urVirtualMem* / urPhysicalMem*; virtual_memory.cpp).
  // Called only where every device involved says Description.VirtualMemory, with the
  // handles, the device (one of the context's), the addresses (not null) and the sizes
  // (not 0; physical sizes a multiple of the minimum granularity) checked. By default
  // PI_ERROR_UNSUPPORTED_FEATURE with a message naming Function. The driver's own
  // refusals (a range not reserved, not mapped, misaligned) are its errors.
  // The size physical memory of Device and virtual ranges are multiples of: the least
  // the driver takes, or the one it recommends.
  virtual pi_result memoryGranularity(const char *Function, const _pi_device &Device,
                                      bool Recommended, size_t &Out);
  // Reserves Size bytes of virtual addresses for every device of the context, at Hint
  // where the driver can (Hint may be null: anywhere).
  virtual pi_result reserveAddresses(const char *Function, const void *Hint, size_t Size,
                                     void *&Start);
  virtual pi_result freeAddresses(const char *Function, const void *Start, size_t Size);
  // Size bytes of Device's memory, exportable to other processes where Shareable.
  virtual pi_result createPhysicalMemory(const char *Function, _pi_device &Device, size_t Size,
                                         bool Shareable, std::unique_ptr<PhysicalMemImpl> &Impl);
  // Maps Size bytes of Physical, from Offset, at Start (reserved, not mapped); no device
  // may access the range until setAccess.
  virtual pi_result mapAddresses(const char *Function, const void *Start, size_t Size,
                                 PhysicalMemImpl &Physical, size_t Offset);
  virtual pi_result unmapAddresses(const char *Function, const void *Start, size_t Size);
  // Sets what every device of the context may do with the mapped range.
  virtual pi_result setAccess(const char *Function, const void *Start, size_t Size,
                              VirtualAccess Access);
  // What the context's (first) device may do with the mapped range at Start.
  virtual pi_result access(const char *Function, const void *Start, VirtualAccess &Out);

  // ---- Images and samplers (a face's urMemImage* / urSampler*; image.cpp). Called only
  // where every device of the context says Description.Images.Supported, with the
  // description checked (type, sizes within the devices' limits) and Flags one access
  // flag plus PI_MEM_FLAGS_HOST_PTR_COPY or _USE (Host then not null: the image's pixels,
  // Image.RowPitch and SlicePitch their layout, 0 for tight). A format the driver does
  // not take for this image type and access is PI_ERROR_IMAGE_FORMAT_NOT_SUPPORTED. The
  // hook fills Image.RowPitch, SlicePitch and ElementSize as the driver lays the image
  // out, and Size (its bytes). By default PI_ERROR_UNSUPPORTED_FEATURE with a message.
  virtual pi_result createImage(const char *Function, pi_mem_flags Flags, ImageDescription &Image,
                                void *Host, size_t &Size, std::unique_ptr<MemImpl> &Impl);
  // The driver's image Native (urMemImageCreateWithNativeHandle), of this context (else
  // PI_ERROR_INVALID_CONTEXT); Image and Size filled from the driver. Declared is the
  // caller's description (null where the face has none, or it is not valid), for a
  // driver whose image does not state its format (CUDA's arrays): such a backend checks
  // it against what the driver does state. Owned as for adoptQueue.
  virtual pi_result adoptImage(const char *Function, uintptr_t Native, bool Owned,
                               const ImageDescription *Declared, ImageDescription &Image,
                               size_t &Size, std::unique_ptr<MemImpl> &Impl);
  virtual pi_result createSampler(const char *Function, const SamplerDescription &Description,
                                  std::unique_ptr<SamplerImpl> &Impl);
  // The driver's sampler Native, of this context; Description filled from the driver.
  virtual pi_result adoptSampler(const char *Function, uintptr_t Native, bool Owned,
                                 SamplerDescription &Description,
                                 std::unique_ptr<SamplerImpl> &Impl);
};

// The adapter: one per library, made by the backend's factory.
class Backend {
public:
  virtual ~Backend();
  // The adapter's name (piPluginInit's Targets, PI_EXT_PLATFORM_INFO_BACKEND:
  // "cuda", "level_zero") and how messages name it ("CUDA", "Level Zero").
  virtual const char *name() const = 0;
  virtual const char *label() const = 0;
  // Every platform with at least one device, each with its description, devices and
  // Impls. Called once; none where the driver is missing (not an error).
  virtual void discover(std::vector<std::unique_ptr<_pi_platform>> &Platforms) = 0;
  // Whether one context may hold several distinct devices.
  virtual bool multiDeviceContexts() const { return false; }
  // Whether a launch may have a non-zero global offset (each kernel may still refuse
  // one: KernelImpl::checkGlobalOffset).
  virtual bool globalOffsets() const { return false; }
  // Whether the backend runs images the shim lowered (OpenCL only).
  virtual bool runsLoweredImages() const { return false; }
  virtual pi_result createContext(_pi_context &Context, std::unique_ptr<ContextImpl> &Impl) = 0;
  // A context over the driver's context Native (urContextCreateWithNativeHandle).
  // Context.Devices is the caller's list (live, distinct, of one platform: checked) or
  // empty, where the hook fills it, and Context.Platform, with the devices the driver's
  // context holds (core::deviceFromNative finds them); a device given that the driver's
  // context does not hold is PI_ERROR_INVALID_DEVICE, where the driver tells. Owned as for
  // ContextImpl::adoptQueue. By default PI_ERROR_UNSUPPORTED_FEATURE naming Function.
  virtual pi_result adoptContext(const char *Function, uintptr_t Native, bool Owned,
                                 _pi_context &Context, std::unique_ptr<ContextImpl> &Impl);
  // Frees what the adapter keeps for the process (piTearDown); handles stay valid.
  virtual void tearDown() {}
};

// The backend's factory, defined once by each adapter.
std::unique_ptr<Backend> makeBackend();
// The adapter's backend, made on first use.
Backend &backend();

// The device global Name (its unique id) of Program on Device, looked up and cached as
// the device-global entry points do (for a face's pointer query,
// urProgramGetGlobalVariablePointer). Program must be executable for Device.
pi_result lookupDeviceGlobal(const char *Function, _pi_program &Program, _pi_device &Device,
                             const char *Name, DeviceGlobalLocation &Location, size_t &Size);

// Specialization constants (SpecId -> the value's bytes) for the next build or compile
// of Program, which must have been made from SPIR-V (piProgramCreate,
// urProgramCreateWithIL). Checked against the module: an id it has not is
// PI_ERROR_INVALID_SPEC_ID, a value of another size PI_ERROR_INVALID_VALUE; a program of
// other code PI_ERROR_UNSUPPORTED_FEATURE. Values set again replace earlier ones. At the
// build the module is specialized (common/device_code/spirv_specialize.h) and the
// backend makes the program again from it.
pi_result setSpecializationConstants(const char *Function, _pi_program &Program,
                                     const std::map<uint32_t, std::vector<uint8_t>> &Values);

// ---- For a face's entry points that PI has no words for (the UR face). Each checks
// its handles and arguments in the contract's order, with messages naming Function.

// USM hints: Size bytes at Ptr must lie inside one USM allocation of the queue's context
// that the core or the driver knows (else PI_ERROR_INVALID_VALUE for an unknown pointer,
// PI_ERROR_INVALID_BUFFER_SIZE for a range past its end); then the wait list.
pi_result enqueueUsmPrefetch(const char *Function, pi_queue Queue, const void *Ptr, size_t Size,
                             UsmMigration To, pi_uint32 NumWaits, const pi_event *Waits,
                             pi_event *Event);
pi_result enqueueUsmAdvise(const char *Function, pi_queue Queue, const void *Ptr, size_t Size,
                           uint32_t Advice, pi_event *Event);

// 2D USM copies and fills (UR's urEnqueueUSMMemcpy2D / urEnqueueUSMFill2D): Height rows
// of Width bytes, each Pitch bytes after the one before. Checks, in UR's order: the queue,
// null pointers (PI_ERROR_INVALID_VALUE), then the sizes (PI_ERROR_INVALID_BUFFER_SIZE: a
// pitch 0 or below Width, Height 0; for the fill Width 0, a pattern size 0, not a power of
// two, larger than Width * Height or not dividing it; Pitch * Height past the end of the
// USM allocation a pointer lies in, where the core or the driver knows it), then the wait
// list. Contiguous rows are one 1D command; otherwise QueueImpl::usmCopy2D / usmFill2D. A
// fill's pattern tiles the Width * Height bytes row after row (a row may start inside
// the pattern: then, as for patterns the hooks do not take, the rows are tiled on the
// host and copied, blocking). Command types PI_COMMAND_TYPE_USM_MEMCPY_2D / _FILL_2D.
pi_result enqueueUsmCopy2D(const char *Function, pi_queue Queue, bool Blocking, void *Dst,
                           size_t DstPitch, const void *Src, size_t SrcPitch, size_t Width,
                           size_t Height, pi_uint32 NumWaits, const pi_event *Waits,
                           pi_event *Event);
pi_result enqueueUsmFill2D(const char *Function, pi_queue Queue, void *Ptr, size_t Pitch,
                           const void *Pattern, size_t PatternSize, size_t Width, size_t Height,
                           pi_uint32 NumWaits, const pi_event *Waits, pi_event *Event);

// The device's time recorded as a command (UR's urEnqueueTimestampRecordingExp): Event
// must not be null (PI_ERROR_INVALID_VALUE); a device without TimestampRecording is
// PI_ERROR_UNSUPPORTED_FEATURE naming it. The event answers piEventGetProfilingInfo on
// any queue (PI_COMMAND_TYPE_TIMESTAMP_RECORDING).
pi_result enqueueTimestamp(const char *Function, pi_queue Queue, bool Blocking, pi_uint32 NumWaits,
                           const pi_event *Waits, pi_event *Event);

// A kernel launch as piEnqueueKernelLaunch, cooperative where asked (UR's launch flag:
// PI_ERROR_UNSUPPORTED_FEATURE naming the device where it has no cooperative launches).
pi_result enqueueLaunch(const char *Function, pi_queue Queue, pi_kernel Kernel, pi_uint32 WorkDim,
                        const size_t *GlobalWorkOffset, const size_t *GlobalWorkSize,
                        const size_t *LocalWorkSize, bool Cooperative, pi_uint32 NumWaits,
                        const pi_event *Waits, pi_event *Event);
// The most work-groups of a cooperative launch of Kernel on Device with groups of
// LocalWorkSize (WorkDim of them: 1 to 3, each > 0, within the kernel's limit) and
// DynamicLocalBytes of local memory each (UR's urKernelSuggestMaxCooperativeGroupCount).
// A device without cooperative launches is PI_ERROR_UNSUPPORTED_FEATURE.
pi_result suggestCooperativeGroups(const char *Function, pi_kernel Kernel, pi_device Device,
                                   pi_uint32 WorkDim, const size_t *LocalWorkSize,
                                   size_t DynamicLocalBytes, pi_uint32 &Out);

// Calls Deleter(Data) once Context is destroyed (UR's urContextSetExtendedDeleter), after
// the deleters set before it.
pi_result addContextDeleter(const char *Function, pi_context Context, void (*Deleter)(void *),
                            void *Data);

// What a pointer is in Context: false where neither the core nor the driver knows it.
bool findUsmAllocation(_pi_context &Context, const void *Pointer, UsmAllocationInfo &Out);

// USM pools (UR's urUSMPool*; usm_pool.cpp). A pool serves allocations of any kind and
// device of its context; every device of the context must have some USM
// (PI_ERROR_UNSUPPORTED_FEATURE otherwise). Options are checked by the face.
pi_result createUsmPool(const char *Function, pi_context Context, const UsmPoolOptions &Options,
                        UsmPool **Out);
// The last release returns all the pool's memory to the driver, also the allocations
// not freed yet (UR's spec: they must be freed before): their pointers are then no
// USM of the context.
pi_result retainUsmPool(const char *Function, UsmPool *Pool);
pi_result releaseUsmPool(const char *Function, UsmPool *Pool);
// A USM allocation as piextUSM*Alloc makes it (the same checks first), served from Pool
// where it is not null: Pool must be a live pool of Context (PI_ERROR_INVALID_VALUE for
// another handle, PI_ERROR_INVALID_CONTEXT for a pool of another context). Device is
// null for host memory. piextUSMFree frees it.
pi_result allocateUsm(const char *Function, void **ResultPtr, pi_context Context, pi_device Device,
                      UsmKind Kind, size_t Size, pi_uint32 Alignment, UsmPool *Pool);

// The kernel's properties on Device (which its program must be built for:
// PI_ERROR_INVALID_DEVICE otherwise).
pi_result kernelProperties(const char *Function, _pi_kernel &Kernel, _pi_device &Device,
                           KernelDeviceProperties &Out);

// A local size for a launch of Kernel on Queue's device with these global sizes (UR's
// urKernelGetSuggestedLocalWorkSize): the kernel's reqd_work_group_size where it has one,
// else the largest groups that divide the global sizes, dimension 0 first, within the
// kernel's and the device's limits. The launch checks apply (work dimension 1 to 3,
// global sizes not 0).
pi_result suggestLocalSize(const char *Function, _pi_queue &Queue, _pi_kernel &Kernel,
                           pi_uint32 WorkDim, const size_t *GlobalWorkSize, size_t *Local);

// Objects from native handles. A platform or device is the discovered one whose
// driver handle it is (PI_ERROR_INVALID_VALUE where none is). A queue or event is made by
// the backend (ContextImpl::adoptQueue/adoptEvent), except the native event 0, which
// no driver has: it is an event of no command, complete from the start (UR's CTS makes
// its dummy wait-list events so).
pi_result platformFromNative(const char *Function, uintptr_t Native, pi_platform *Out);
pi_result deviceFromNative(const char *Function, uintptr_t Native, pi_platform Platform,
                           pi_device *Out);
pi_result queueFromNative(const char *Function, uintptr_t Native, pi_context Context,
                          pi_device Device, bool Owned, pi_queue *Out);
pi_result eventFromNative(const char *Function, uintptr_t Native, pi_context Context, bool Owned,
                          pi_event *Out);
// A context (Backend::adoptContext): Devices may be null with NumDevices 0 (the driver's
// context says which it holds); given, each must be live and of the adapter.
pi_result contextFromNative(const char *Function, uintptr_t Native, pi_uint32 NumDevices,
                            const pi_device *Devices, bool Owned, pi_context *Out);
// A buffer (ContextImpl::adoptBuffer), read-write, with no host pointer.
pi_result bufferFromNative(const char *Function, uintptr_t Native, pi_context Context, bool Owned,
                           pi_mem *Out);
// A program (ContextImpl::adoptProgram), with no metadata: its device globals are found by
// the names the caller gives.
pi_result programFromNative(const char *Function, uintptr_t Native, pi_context Context, bool Owned,
                            pi_program *Out);
// A kernel (ProgramImpl::adoptKernel) of Program, an executable program of Context
// (PI_ERROR_INVALID_CONTEXT for another's); Program null: the driver's program of the
// kernel, adopted without ownership (ContextImpl::programOfKernel).
pi_result kernelFromNative(const char *Function, uintptr_t Native, pi_context Context,
                           pi_program Program, bool Owned, pi_kernel *Out);

// Virtual memory (virtual_memory.cpp), over ContextImpl's hooks: the handles first,
// then what the devices can do (PI_ERROR_UNSUPPORTED_FEATURE where one has no virtual
// memory), then the hook. Device may be null for the granularity: then it suits every
// device of the context (the largest of theirs).
pi_result virtualMemGranularity(const char *Function, pi_context Context, pi_device Device,
                                bool Recommended, size_t &Out);
pi_result virtualMemReserve(const char *Function, pi_context Context, const void *Hint, size_t Size,
                            void *&Start);
pi_result virtualMemFree(const char *Function, pi_context Context, const void *Start, size_t Size);
// Access is applied after the mapping where Apply is true (UR's flags not 0); a failure
// there undoes the mapping.
pi_result virtualMemMap(const char *Function, pi_context Context, const void *Start, size_t Size,
                        PhysicalMemory *Physical, size_t Offset, bool Apply, VirtualAccess Access);
pi_result virtualMemUnmap(const char *Function, pi_context Context, const void *Start, size_t Size);
pi_result virtualMemSetAccess(const char *Function, pi_context Context, const void *Start,
                              size_t Size, VirtualAccess Access);
pi_result virtualMemAccess(const char *Function, pi_context Context, const void *Start,
                           VirtualAccess &Out);
// A size that is not a multiple of the device's minimum granularity is
// PI_ERROR_INVALID_BUFFER_SIZE (UR: INVALID_SIZE).
pi_result physicalMemCreate(const char *Function, pi_context Context, pi_device Device, size_t Size,
                            bool Shareable, PhysicalMemory *&Out);

// A blocking copy of Size bytes between two USM (or host) pointers in Context, with no
// queue of the caller's (UR's urUSMContextMemcpyExp): on a queue of its own on the device
// whose USM one of the pointers is (else the context's first device), made for the copy.
pi_result usmContextCopy(const char *Function, pi_context Context, void *Dst, const void *Src,
                         size_t Size);

// Images and samplers (image.cpp; UR's urMemImage*, urSampler*, urEnqueueMemImage*):
// the handles, then what the context's devices can do (a device without images:
// PI_ERROR_UNSUPPORTED_FEATURE naming it), then the description against the devices'
// limits (PI_ERROR_INVALID_IMAGE_SIZE), then the backend's hook. The face checked what
// its API defines (structure types, enumerations, null pointers, flag combinations).
// Flags: one access flag and PI_MEM_FLAGS_HOST_PTR_COPY or _USE (Host given exactly then).
pi_result createImage(const char *Function, pi_context Context, pi_mem_flags Flags,
                      const ImageDescription &Image, void *Host, pi_mem *Out);
// Declared: the caller's description of the native image, or null (ContextImpl::adoptImage).
pi_result imageFromNative(const char *Function, uintptr_t Native, pi_context Context, bool Owned,
                          const ImageDescription *Declared, pi_mem *Out);
// Origin and Region in pixels (x, y, z); RowPitch and SlicePitch of the host memory in
// bytes, 0 for tight. A region outside the image, an empty one, or one that addresses a
// dimension the image has not (origin not 0, region not 1 there) is
// PI_ERROR_INVALID_VALUE; a pitch below the region's row or slice is too. Another memory
// object than an image: PI_ERROR_INVALID_MEM_OBJECT.
pi_result enqueueImageRead(const char *Function, pi_queue Queue, pi_mem Image, bool Blocking,
                           const size_t Origin[3], const size_t Region[3], size_t RowPitch,
                           size_t SlicePitch, void *Dst, pi_uint32 NumWaits, const pi_event *Waits,
                           pi_event *Event);
pi_result enqueueImageWrite(const char *Function, pi_queue Queue, pi_mem Image, bool Blocking,
                            const size_t Origin[3], const size_t Region[3], size_t RowPitch,
                            size_t SlicePitch, const void *Src, pi_uint32 NumWaits,
                            const pi_event *Waits, pi_event *Event);
// Two images of one format (PI_ERROR_IMAGE_FORMAT_NOT_SUPPORTED otherwise, OpenCL's
// IMAGE_FORMAT_MISMATCH); the same image only where the regions do not overlap
// (PI_ERROR_MEM_COPY_OVERLAP).
pi_result enqueueImageCopy(const char *Function, pi_queue Queue, pi_mem Src, pi_mem Dst,
                           const size_t SrcOrigin[3], const size_t DstOrigin[3],
                           const size_t Region[3], pi_uint32 NumWaits, const pi_event *Waits,
                           pi_event *Event);
pi_result createSampler(const char *Function, pi_context Context,
                        const SamplerDescription &Description, Sampler **Out);
pi_result samplerFromNative(const char *Function, uintptr_t Native, pi_context Context, bool Owned,
                            Sampler **Out);
// A sampler as argument Index of Kernel (a live sampler of the kernel's context).
pi_result setSamplerArgument(const char *Function, pi_kernel Kernel, pi_uint32 Index,
                             Sampler *Value);

// Messages the backends share.
pi_result unknownKernel(const char *Name, const _pi_program &Program);
// Where a device-global location points: the device address, or the buffer plus
// the offset.
template <typename Pointer> Pointer locationAddress(const DeviceGlobalLocation &Location) {
  return reinterpret_cast<Pointer>(static_cast<uintptr_t>(Location.Address));
}

} // namespace dglink::core
