// Where a device global's bytes are: a program from lowered images keeps its variables
// in one buffer per device that the adapter owns (a copy is a buffer read or write, no
// kernel launch); otherwise the driver's cl_intel_global_variable_access finds them by
// name where the device has it.
#include "backend.h"

#include <algorithm>

namespace dglink::opencl {

// Storage in SVM where the context serves USM through it and the device has buffer SVM:
// the buffer is made over an SVM allocation (OpenCL 2.0: a buffer with CL_MEM_USE_HOST_PTR
// and an SVM pointer has that memory as its storage), so that its variables have device
// addresses (urProgramGetGlobalVariablePointer) that USM copies and kernels' pointer
// arguments take, while reads, writes and launches keep using the buffer.
bool ClProgram::svmStorage(const _pi_device &Device) const {
  if (Context.Usm == PI_USM_MECHANISM_NONE || Context.SvmUnusable)
    return false;
  const auto Svm = deviceScalar<cl_device_svm_capabilities>(clDevice(Device).Device,
                                                            CL_DEVICE_SVM_CAPABILITIES, 0);
  return (Svm & CL_DEVICE_SVM_COARSE_GRAIN_BUFFER) != 0;
}

// The SVM allocation, the buffer over it and its initial contents, written through a
// queue of the program's own (coarse-grained SVM is not the host's to write).
pi_result ClProgram::svmBuffer(const char *Function, const _pi_program &Owner,
                               const _pi_device &Device, const std::vector<uint8_t> &Contents,
                               ClMem &Made) {
  const auto failed = [&](const char *ClFunction, cl_int Error) {
    return fail(toPiResult(Error),
                "{}: {} failed with {} ({}) for the {} bytes of device-global storage of program "
                "{} on device '{}'",
                Function, ClFunction, clErrorName(Error), Error, Contents.size(), fmt::ptr(&Owner),
                Device.Description.Name);
  };
  Made.Svm = clSVMAlloc(Context.Context, CL_MEM_READ_WRITE, Contents.size(), 0);
  if (Made.Svm == nullptr)
    return failed("clSVMAlloc", CL_OUT_OF_RESOURCES);
  Made.SvmContext = Context.Context;
  cl_int Error = CL_SUCCESS;
  cl_mem Buffer = clCreateBuffer(Context.Context, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR,
                                 Contents.size(), Made.Svm, &Error);
  if (Error != CL_SUCCESS)
    return failed("clCreateBuffer (CL_MEM_USE_HOST_PTR over SVM)", Error);
  // The allocation goes when the buffer does: after the last command that uses it.
  auto Free = std::make_unique<std::pair<cl_context, void *>>(Context.Context, Made.Svm);
  Error = clSetMemObjectDestructorCallback(
      Buffer,
      [](cl_mem, void *Data) {
        std::unique_ptr<std::pair<cl_context, void *>> Owned(
            static_cast<std::pair<cl_context, void *> *>(Data));
        clSVMFree(Owned->first, Owned->second);
      },
      Free.get());
  if (Error != CL_SUCCESS) {
    clReleaseMemObject(Buffer);
    return failed("clSetMemObjectDestructorCallback", Error);
  }
  Free.release(); // NOLINT(bugprone-unused-return-value): the callback owns it
  Made.Mem = Buffer;
  cl_command_queue Queue =
      clCreateCommandQueueWithProperties(Context.Context, clDevice(Device).Device, nullptr, &Error);
  if (Error != CL_SUCCESS)
    return failed("clCreateCommandQueueWithProperties", Error);
  Error = clEnqueueWriteBuffer(Queue, Made.Mem, CL_TRUE, 0, Contents.size(), Contents.data(), 0,
                               nullptr, nullptr);
  clReleaseCommandQueue(Queue);
  if (Error != CL_SUCCESS)
    return failed("clEnqueueWriteBuffer", Error);
  return PI_SUCCESS;
}

pi_result ClProgram::storage(const char *Function, const _pi_program &Owner,
                             const _pi_device &Device, ClMem *&Out) {
  std::lock_guard<std::mutex> Lock(Mutex);
  for (const auto &[Holder, Mem] : Storage)
    if (Holder == &Device) {
      Out = Mem.get();
      return PI_SUCCESS;
    }
  // One buffer per device: a program's variables on two devices are two instances. The
  // initial contents go in with the buffer (over SVM: through a queue of its own). Checked before
  // anything is allocated: a corrupt or hostile size must not make the host allocate
  // and zero gigabytes.
  const uint64_t Needed = Owner.Metadata.Lowered->Size;
  const auto MaxAlloc =
      deviceScalar<cl_ulong>(clDevice(Device).Device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, 0);
  if (MaxAlloc != 0 && Needed > MaxAlloc)
    return fail(PI_ERROR_INVALID_BINARY,
                "{}: the device-global storage of program {} needs {} bytes, more than device "
                "'{}' allocates at once ({} bytes)",
                Function, fmt::ptr(&Owner), Needed, Device.Description.Name, MaxAlloc);
  std::vector<uint8_t> Contents = Owner.Metadata.Lowered->initialContents();
  if (Contents.empty())
    Contents.resize(16); // kernels still take the argument; OpenCL has no empty buffers
  core::allocationPoint();
  Storage.reserve(Storage.size() + 1); // nothing throws once the buffer exists
  auto Made = std::make_unique<ClMem>(nullptr);
  cl_int Error = CL_SUCCESS;
  if (svmStorage(Device)) {
    DGLINK_TRY(svmBuffer(Function, Owner, Device, Contents, *Made));
  } else {
    Made->Mem = clCreateBuffer(Context.Context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR,
                               Contents.size(), Contents.data(), &Error);
  }
  if (Error != CL_SUCCESS)
    return fail(toPiResult(Error),
                "{}: clCreateBuffer failed with {} ({}) for the {} bytes of device-global storage "
                "of program {} on device '{}'",
                Function, clErrorName(Error), Error, Contents.size(), fmt::ptr(&Owner),
                Device.Description.Name);
  Out = Made.get();
  if (Made->Svm != nullptr)
    Context.addStorageAllocation(Made->Svm, Contents.size());
  Storage.emplace_back(&Device, std::move(Made));
  return PI_SUCCESS;
}

pi_result ClProgram::findGlobal(_pi_program &Owner, _pi_device &Device, const std::string &Name,
                                const std::string &Symbol, core::GlobalLookup &Result) {
  constexpr const char *Function = "piextEnqueueDeviceGlobalVariableRead/Write";
  if (Owner.Metadata.Lowered) {
    const auto &Variables = Owner.Metadata.Lowered->Variables;
    auto Place = Variables.find(Name);
    // A unique id mapped to a module symbol ("<id>@global_id_mapping"), or the symbol
    // itself, as on a device that finds variables by name: the variable of that symbol,
    // where the lowering recorded symbols.
    const std::string &Wanted = Symbol.empty() ? Name : Symbol;
    if (Place == Variables.end())
      Place = std::find_if(Variables.begin(), Variables.end(),
                           [&](const auto &Each) { return Each.second.Symbol == Wanted; });
    if (Place == Variables.end()) {
      Result.NotFoundReason = "it has no place in the program's lowered device-global storage";
      return PI_SUCCESS;
    }
    ClMem *Mem = nullptr;
    DGLINK_TRY(storage(Function, Owner, Device, Mem));
    Result.Location = {Place->second.Offset, static_cast<core::MemImpl *>(Mem)};
    Result.Bytes = Place->second.Size;
    Result.Found = true;
    return PI_SUCCESS;
  }
  // The driver finds the variable by the name DPC++ gives it (the unique id) and checks
  // the range itself; the declared size bounds the copy where there is one. Without the
  // Intel extension no copy reaches the variable: the copy says why, after the range and
  // host-access checks, as on every device.
  auto Made = std::make_unique<ClMem>(ClMem::Kind::NamedGlobal, Program, Name);
  if (Device.Description.DeviceGlobal != PI_DEVICE_GLOBAL_MECHANISM_NATIVE && !NotLowered.empty()) {
    Made->What = ClMem::Kind::Unreachable;
    Made->Name = fmt::format("the device globals of program {} could not be lowered for device "
                             "'{}', which has no cl_intel_global_variable_access: {}",
                             fmt::ptr(&Owner), Device.Description.Name, NotLowered);
  } else if (Device.Description.DeviceGlobal != PI_DEVICE_GLOBAL_MECHANISM_NATIVE) {
    Made->What = ClMem::Kind::Unreachable;
    Made->Name = fmt::format(
        "program {} was made from an image whose device globals were not lowered, and device "
        "'{}' has no cl_intel_global_variable_access; make the image with `dglink compile "
        "--lower-device-globals` (docs/opencl-lowering.md)",
        fmt::ptr(&Owner), Device.Description.Name);
  }
  std::lock_guard<std::mutex> Lock(Mutex);
  NamedGlobals.push_back(std::move(Made));
  Result.Location = {0, static_cast<core::MemImpl *>(NamedGlobals.back().get())};
  const auto Declared = Owner.Metadata.DeviceGlobals.find(Name);
  Result.Bytes = Declared != Owner.Metadata.DeviceGlobals.end() ? Declared->second.Size : SIZE_MAX;
  Result.Found = true;
  return PI_SUCCESS;
}

} // namespace dglink::opencl
