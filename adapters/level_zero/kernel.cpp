// Kernels: zeKernelCreate in the module that holds the name, on every device of the
// program; arguments are state of the Level Zero kernels, set alike on each under the
// kernel's lock.
#include "backend.h"

#include <algorithm>
#include <cstring>

namespace dglink::level_zero {

ZeKernel::~ZeKernel() {
  if (OwnsKernels)
    for (const auto &Each : Kernels)
      ze().zeKernelDestroy(Each.second);
}

ze_kernel_handle_t ZeKernel::kernelOf(const _pi_device &Device) const {
  for (const auto &Each : Kernels)
    if (Each.first == &Device)
      return Each.second;
  return nullptr;
}

pi_result ZeProgram::createKernel(_pi_program &Program, const char *Name,
                                  std::unique_ptr<core::KernelImpl> &Kernel) {
  auto Made = std::make_unique<ZeKernel>(Name); // destroys the handles on failure
  Made->Kernels.reserve(Code.size());           // nothing throws once a handle is made
  for (const DeviceCode &Each : Code) {
    auto Found = std::find_if(Each.Kernels.begin(), Each.Kernels.end(),
                              [&](const auto &Entry) { return Entry.first == Name; });
    if (Found == Each.Kernels.end())
      return core::unknownKernel(Name, Program);
    ze_kernel_desc_t Desc = {};
    Desc.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC;
    Desc.pKernelName = Name;
    ze_kernel_handle_t Handle = nullptr;
    const ze_result_t Result = ze().zeKernelCreate(Found->second, &Desc, &Handle);
    if (Result == ZE_RESULT_ERROR_INVALID_MODULE_UNLINKED)
      return fail(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
                  "piKernelCreate: kernel '{}': program {} has unresolved imports (link it with "
                  "the images that define them)",
                  clip(Name), fmt::ptr(&Program));
    if (Result != ZE_RESULT_SUCCESS)
      return zeError(Result, "zeKernelCreate");
    Made->Kernels.emplace_back(Each.Device, Handle);
    // USM reached through pointers stored in memory (a device global holding a USM
    // pointer, as DPC++'s device_global is) must be allowed per kernel; DPC++ allows all
    // three kinds for every kernel (urKernelSetExecInfo(USM_INDIRECT_ACCESS)), and so
    // does dglink.
    DGLINK_ZE(zeKernelSetIndirectAccess, Handle,
              ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST | ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE |
                  ZE_KERNEL_INDIRECT_ACCESS_FLAG_SHARED);
    ze_kernel_properties_t Properties = {};
    Properties.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
    DGLINK_ZE(zeKernelGetProperties, Handle, &Properties);
    Made->NumArgs = Properties.numKernelArgs; // the same code on every device
  }
  if (!Made->Kernels.empty())
    Made->Mutex = Context.KernelLocks.of(Made->Kernels.front().second);
  Kernel = std::move(Made);
  return PI_SUCCESS;
}

pi_result ZeProgram::adoptKernel(const char *Function, uintptr_t Native, bool Owned,
                                 _pi_program &Program, std::string &Name,
                                 std::unique_ptr<core::KernelImpl> &Kernel) {
  if (Code.size() != 1)
    return fail(PI_ERROR_INVALID_PROGRAM,
                "{}: a Level Zero kernel is of one device's module: adopt it into a program of "
                "one device (this one has {})",
                Function, Code.size());
  auto *Handle = reinterpret_cast<ze_kernel_handle_t>(Native);
  size_t Size = 0;
  ze_result_t Result = ze().zeKernelGetName(Handle, &Size, nullptr);
  std::string Found(Size, '\0');
  if (Result == ZE_RESULT_SUCCESS && Size != 0)
    Result = ze().zeKernelGetName(Handle, &Size, Found.data());
  if (Result != ZE_RESULT_SUCCESS)
    return fail(PI_ERROR_INVALID_VALUE,
                "{}: native handle {:#x} is no Level Zero kernel "
                "(zeKernelGetName: {})",
                Function, Native, zeResultName(Result));
  Found.resize(std::strlen(Found.c_str()));
  const auto &Kernels = Code.front().Kernels;
  const auto Entry = std::find_if(Kernels.begin(), Kernels.end(),
                                  [&](const auto &Each) { return Each.first == Found; });
  if (Entry == Kernels.end())
    return fail(PI_ERROR_INVALID_PROGRAM,
                "{}: the program's module has no kernel '{}': the kernel is another module's",
                Function, clip(Found));
  ze_kernel_properties_t Properties = {};
  Properties.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
  DGLINK_ZE(zeKernelGetProperties, Handle, &Properties);
  // A kernel of the same name in another module: the module's uuid tells, where the
  // driver fills it (a kernel made here in the program's module has the program's).
  if (std::any_of(std::begin(Properties.uuid.mid), std::end(Properties.uuid.mid),
                  [](uint8_t Byte) { return Byte != 0; })) {
    ze_kernel_desc_t Desc = {};
    Desc.stype = ZE_STRUCTURE_TYPE_KERNEL_DESC;
    Desc.pKernelName = Found.c_str();
    ze_kernel_handle_t Probe = nullptr;
    ze_kernel_properties_t Own = {};
    Own.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
    DGLINK_ZE(zeKernelCreate, Entry->second, &Desc, &Probe);
    const ze_result_t Described = ze().zeKernelGetProperties(Probe, &Own);
    ze().zeKernelDestroy(Probe);
    if (Described != ZE_RESULT_SUCCESS)
      return zeError(Described, "zeKernelGetProperties");
    if (std::memcmp(Own.uuid.mid, Properties.uuid.mid, sizeof(Own.uuid.mid)) != 0)
      return fail(PI_ERROR_INVALID_PROGRAM,
                  "{}: kernel '{}' is another module's (its module uuid is not the program's)",
                  Function, clip(Found));
  }
  // The kernel's state is shared with every dglink kernel over the handle: one lock.
  std::shared_ptr<std::mutex> Lock = Context.KernelLocks.of(Handle);
  {
    // As for the adapter's own kernels (createKernel): USM reached through memory.
    std::lock_guard<std::mutex> Held(*Lock);
    DGLINK_ZE(zeKernelSetIndirectAccess, Handle,
              ZE_KERNEL_INDIRECT_ACCESS_FLAG_HOST | ZE_KERNEL_INDIRECT_ACCESS_FLAG_DEVICE |
                  ZE_KERNEL_INDIRECT_ACCESS_FLAG_SHARED);
  }
  auto Made = std::make_unique<ZeKernel>(Found);
  Made->Mutex = std::move(Lock);
  Made->OwnsKernels = Owned;
  Made->Kernels.emplace_back(Code.front().Device, Handle);
  Made->NumArgs = Properties.numKernelArgs;
  Name = std::move(Found);
  Kernel = std::move(Made);
  return PI_SUCCESS;
}

pi_result ZeKernel::setArgument(const char *Function, pi_uint32 Index, size_t Size,
                                const void *Value) {
  if (Index >= NumArgs)
    return fail(PI_ERROR_INVALID_ARG_INDEX, "{}: kernel '{}' has {} arguments, not index {}",
                Function, clip(Name), NumArgs, Index);
  if (Size == 0)
    return fail(PI_ERROR_INVALID_ARG_SIZE, "{}: argument {} of kernel '{}' has size 0", Function,
                Index, clip(Name));
  std::lock_guard<std::mutex> Lock(*Mutex);
  // A null value with a size is local memory of that size, as in OpenCL.
  for (const auto &Each : Kernels) {
    const ze_result_t Result = ze().zeKernelSetArgumentValue(Each.second, Index, Size, Value);
    if (Result != ZE_RESULT_SUCCESS) {
      zeError(Result, "zeKernelSetArgumentValue");
      return fail(lastErrorCode(), "{}: argument {} ({} bytes) of kernel '{}': {}", Function, Index,
                  Size, clip(Name), lastErrorMessage());
    }
  }
  return PI_SUCCESS;
}

pi_result ZeKernel::setBufferArgument(const char *Function, pi_uint32 Index, _pi_mem *Buffer) {
  void *Pointer = Buffer != nullptr ? static_cast<ZeMem &>(*Buffer->Impl).Pointer : nullptr;
  return setArgument(Function, Index, sizeof(Pointer), &Pointer);
}

// zeKernelGetProperties: its local and private memory, its sub-groups (the SIMD width
// is the multiple a group should have; Level Zero names no other).
pi_result ZeKernel::properties(const _pi_device &Device, core::KernelDeviceProperties &Out) const {
  const ze_kernel_handle_t Kernel = kernelOf(Device);
  if (Kernel == nullptr)
    return fail(PI_ERROR_INVALID_DEVICE,
                "piKernelGetGroupInfo: kernel '{}' has no code for device '{}'", Name,
                Device.Description.Name);
  ze_kernel_properties_t Properties = {};
  Properties.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
  DGLINK_ZE(zeKernelGetProperties, Kernel, &Properties);
  Out.LocalMemSize = Properties.localMemSize;
  Out.PrivateMemSize = Properties.privateMemSize;
  if (Properties.maxSubgroupSize != 0)
    Out.MaxSubGroupSize = Properties.maxSubgroupSize;
  Out.PreferredGroupSizeMultiple = Out.MaxSubGroupSize;
  if (Properties.maxNumSubgroups != 0)
    Out.MaxNumSubGroups = Properties.maxNumSubgroups;
  Out.CompileNumSubGroups = Properties.requiredNumSubGroups;
  Out.RequiredSubGroupSize = Properties.requiredSubgroupSize;
  return PI_SUCCESS;
}

} // namespace dglink::level_zero
