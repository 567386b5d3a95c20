// The DDI table of a dglink UR adapter and the urGet*ProcAddrTable exports the loader
// calls. Every slot of every table the header defines is filled (ddi_slots.inc, made
// from ur_ddi.h): dglink's entry points where it serves them, elsewhere a function
// that answers UR_RESULT_ERROR_UNSUPPORTED_FEATURE and says which entry point it was.
#include "entry_points.h"

namespace dglink::ur {

namespace {

ur_result_t unsupported(const char *Table, const char *Slot) {
  std::string Name = Table; // "EnqueueExp" + "pfnKernelLaunchWithArgsExp"
  if (Name.size() > 3 && Name.compare(Name.size() - 3, 3, "Exp") == 0)
    Name.resize(Name.size() - 3);
  return failUr(UR_RESULT_ERROR_UNSUPPORTED_FEATURE,
                "ur{}{}: not served by dglink's Unified Runtime face (docs/ur.md)", Name, Slot + 3);
}

ur_dditable_t makeTable() {
  ur_dditable_t Table{};
  // Every slot first: an entry point dglink does not serve says so.
#define DGLINK_UR_TABLE(Member, TableType, Getter)
#define DGLINK_UR_SLOT(Member, SlotType, SlotName)                                                 \
  Table.Member.SlotName = [](auto...) -> ur_result_t { return unsupported(#Member, #SlotName); };
#include "ddi_slots.inc"
#undef DGLINK_UR_SLOT
#undef DGLINK_UR_TABLE

  // Then what dglink serves.
  Table.Adapter.pfnGet = urAdapterGet;
  Table.Adapter.pfnRetain = urAdapterRetain;
  Table.Adapter.pfnRelease = urAdapterRelease;
  Table.Adapter.pfnGetLastError = urAdapterGetLastError;
  Table.Adapter.pfnGetInfo = urAdapterGetInfo;

  Table.Platform.pfnGet = urPlatformGet;
  Table.Platform.pfnGetInfo = urPlatformGetInfo;
  Table.Platform.pfnGetApiVersion = urPlatformGetApiVersion;
  Table.Platform.pfnGetBackendOption = urPlatformGetBackendOption;

  Table.Device.pfnGet = urDeviceGet;
  Table.Device.pfnGetInfo = urDeviceGetInfo;
  Table.Device.pfnRetain = urDeviceRetain;
  Table.Device.pfnRelease = urDeviceRelease;
  Table.Device.pfnSelectBinary = urDeviceSelectBinary;
  Table.Device.pfnGetGlobalTimestamps = urDeviceGetGlobalTimestamps;

  Table.Context.pfnCreate = urContextCreate;
  Table.Context.pfnRetain = urContextRetain;
  Table.Context.pfnRelease = urContextRelease;
  Table.Context.pfnGetInfo = urContextGetInfo;
  Table.Context.pfnSetExtendedDeleter = urContextSetExtendedDeleter;

  Table.Queue.pfnCreate = urQueueCreate;
  Table.Queue.pfnRetain = urQueueRetain;
  Table.Queue.pfnRelease = urQueueRelease;
  Table.Queue.pfnGetInfo = urQueueGetInfo;
  Table.Queue.pfnFinish = urQueueFinish;
  Table.Queue.pfnFlush = urQueueFlush;

  Table.Mem.pfnBufferCreate = urMemBufferCreate;
  Table.Mem.pfnBufferPartition = urMemBufferPartition;
  Table.Mem.pfnRetain = urMemRetain;
  Table.Mem.pfnRelease = urMemRelease;
  Table.Mem.pfnGetInfo = urMemGetInfo;
  Table.Mem.pfnImageCreate = urMemImageCreate;
  Table.Mem.pfnImageCreateWithNativeHandle = urMemImageCreateWithNativeHandle;
  Table.Mem.pfnImageGetInfo = urMemImageGetInfo;

  Table.Sampler.pfnCreate = urSamplerCreate;
  Table.Sampler.pfnRetain = urSamplerRetain;
  Table.Sampler.pfnRelease = urSamplerRelease;
  Table.Sampler.pfnGetInfo = urSamplerGetInfo;
  Table.Sampler.pfnGetNativeHandle = urSamplerGetNativeHandle;
  Table.Sampler.pfnCreateWithNativeHandle = urSamplerCreateWithNativeHandle;

  Table.USM.pfnHostAlloc = urUSMHostAlloc;
  Table.USM.pfnDeviceAlloc = urUSMDeviceAlloc;
  Table.USM.pfnSharedAlloc = urUSMSharedAlloc;
  Table.USM.pfnGetMemAllocInfo = urUSMGetMemAllocInfo;
  Table.USM.pfnFree = urUSMFree;
  Table.USM.pfnPoolCreate = urUSMPoolCreate;
  Table.USM.pfnPoolRetain = urUSMPoolRetain;
  Table.USM.pfnPoolRelease = urUSMPoolRelease;
  Table.USM.pfnPoolGetInfo = urUSMPoolGetInfo;

  Table.Program.pfnCreateWithIL = urProgramCreateWithIL;
  Table.Program.pfnCreateWithBinary = urProgramCreateWithBinary;
  Table.Program.pfnBuild = urProgramBuild;
  Table.Program.pfnCompile = urProgramCompile;
  Table.Program.pfnLink = urProgramLink;
  Table.Program.pfnRetain = urProgramRetain;
  Table.Program.pfnRelease = urProgramRelease;
  Table.Program.pfnSetSpecializationConstants = urProgramSetSpecializationConstants;
  Table.Program.pfnGetInfo = urProgramGetInfo;
  Table.Program.pfnGetBuildInfo = urProgramGetBuildInfo;
  Table.Program.pfnGetGlobalVariablePointer = urProgramGetGlobalVariablePointer;
  Table.ProgramExp.pfnBuildExp = urProgramBuildExp;
  Table.ProgramExp.pfnCompileExp = urProgramCompileExp;
  Table.ProgramExp.pfnLinkExp = urProgramLinkExp;

  Table.Kernel.pfnCreate = urKernelCreate;
  Table.Kernel.pfnRetain = urKernelRetain;
  Table.Kernel.pfnRelease = urKernelRelease;
  Table.Kernel.pfnGetInfo = urKernelGetInfo;
  Table.Kernel.pfnGetGroupInfo = urKernelGetGroupInfo;
  Table.Kernel.pfnGetSubGroupInfo = urKernelGetSubGroupInfo;
  Table.Kernel.pfnSetExecInfo = urKernelSetExecInfo;
  Table.Kernel.pfnGetSuggestedLocalWorkSize = urKernelGetSuggestedLocalWorkSize;
  Table.Kernel.pfnSuggestMaxCooperativeGroupCount = urKernelSuggestMaxCooperativeGroupCount;

  Table.Enqueue.pfnEventsWait = urEnqueueEventsWait;
  Table.Enqueue.pfnEventsWaitWithBarrier = urEnqueueEventsWaitWithBarrier;
  Table.Enqueue.pfnMemBufferRead = urEnqueueMemBufferRead;
  Table.Enqueue.pfnMemBufferWrite = urEnqueueMemBufferWrite;
  Table.Enqueue.pfnMemBufferCopy = urEnqueueMemBufferCopy;
  Table.Enqueue.pfnMemBufferFill = urEnqueueMemBufferFill;
  Table.Enqueue.pfnMemBufferReadRect = urEnqueueMemBufferReadRect;
  Table.Enqueue.pfnMemBufferWriteRect = urEnqueueMemBufferWriteRect;
  Table.Enqueue.pfnMemBufferCopyRect = urEnqueueMemBufferCopyRect;
  Table.Enqueue.pfnMemBufferMap = urEnqueueMemBufferMap;
  Table.Enqueue.pfnMemImageRead = urEnqueueMemImageRead;
  Table.Enqueue.pfnMemImageWrite = urEnqueueMemImageWrite;
  Table.Enqueue.pfnMemImageCopy = urEnqueueMemImageCopy;
  Table.Enqueue.pfnMemUnmap = urEnqueueMemUnmap;
  Table.Enqueue.pfnEventsWaitWithBarrierExt = urEnqueueEventsWaitWithBarrierExt;
  Table.Enqueue.pfnUSMFill = urEnqueueUSMFill;
  Table.Enqueue.pfnUSMMemcpy = urEnqueueUSMMemcpy;
  Table.Enqueue.pfnUSMFill2D = urEnqueueUSMFill2D;
  Table.Enqueue.pfnUSMMemcpy2D = urEnqueueUSMMemcpy2D;
  Table.Enqueue.pfnUSMPrefetch = urEnqueueUSMPrefetch;
  Table.Enqueue.pfnUSMAdvise = urEnqueueUSMAdvise;
  Table.Enqueue.pfnDeviceGlobalVariableWrite = urEnqueueDeviceGlobalVariableWrite;
  Table.Enqueue.pfnDeviceGlobalVariableRead = urEnqueueDeviceGlobalVariableRead;
  Table.EnqueueExp.pfnKernelLaunchWithArgsExp = urEnqueueKernelLaunchWithArgsExp;
  Table.EnqueueExp.pfnTimestampRecordingExp = urEnqueueTimestampRecordingExp;

  Table.VirtualMem.pfnGranularityGetInfo = urVirtualMemGranularityGetInfo;
  Table.VirtualMem.pfnReserve = urVirtualMemReserve;
  Table.VirtualMem.pfnFree = urVirtualMemFree;
  Table.VirtualMem.pfnMap = urVirtualMemMap;
  Table.VirtualMem.pfnUnmap = urVirtualMemUnmap;
  Table.VirtualMem.pfnSetAccess = urVirtualMemSetAccess;
  Table.VirtualMem.pfnGetInfo = urVirtualMemGetInfo;
  Table.PhysicalMem.pfnCreate = urPhysicalMemCreate;
  Table.PhysicalMem.pfnRetain = urPhysicalMemRetain;
  Table.PhysicalMem.pfnRelease = urPhysicalMemRelease;
  Table.PhysicalMem.pfnGetInfo = urPhysicalMemGetInfo;
  Table.USMExp.pfnContextMemcpyExp = urUSMContextMemcpyExp;

  Table.Event.pfnWait = urEventWait;
  Table.Event.pfnGetInfo = urEventGetInfo;
  Table.Event.pfnRetain = urEventRetain;
  Table.Event.pfnRelease = urEventRelease;
  Table.Event.pfnGetProfilingInfo = urEventGetProfilingInfo;
  Table.Event.pfnSetCallback = urEventSetCallback;

  Table.Platform.pfnGetNativeHandle = urPlatformGetNativeHandle;
  Table.Device.pfnGetNativeHandle = urDeviceGetNativeHandle;
  Table.Context.pfnGetNativeHandle = urContextGetNativeHandle;
  Table.Queue.pfnGetNativeHandle = urQueueGetNativeHandle;
  Table.Mem.pfnGetNativeHandle = urMemGetNativeHandle;
  Table.Program.pfnGetNativeHandle = urProgramGetNativeHandle;
  Table.Kernel.pfnGetNativeHandle = urKernelGetNativeHandle;
  Table.Event.pfnGetNativeHandle = urEventGetNativeHandle;
  Table.Platform.pfnCreateWithNativeHandle = urPlatformCreateWithNativeHandle;
  Table.Device.pfnCreateWithNativeHandle = urDeviceCreateWithNativeHandle;
  Table.Queue.pfnCreateWithNativeHandle = urQueueCreateWithNativeHandle;
  Table.Event.pfnCreateWithNativeHandle = urEventCreateWithNativeHandle;
  Table.Context.pfnCreateWithNativeHandle = urContextCreateWithNativeHandle;
  Table.Mem.pfnBufferCreateWithNativeHandle = urMemBufferCreateWithNativeHandle;
  Table.Program.pfnCreateWithNativeHandle = urProgramCreateWithNativeHandle;
  Table.Kernel.pfnCreateWithNativeHandle = urKernelCreateWithNativeHandle;

  Table.CommandBufferExp.pfnCreateExp = urCommandBufferCreateExp;
  Table.CommandBufferExp.pfnRetainExp = urCommandBufferRetainExp;
  Table.CommandBufferExp.pfnReleaseExp = urCommandBufferReleaseExp;
  Table.CommandBufferExp.pfnFinalizeExp = urCommandBufferFinalizeExp;
  Table.CommandBufferExp.pfnGetInfoExp = urCommandBufferGetInfoExp;
  Table.CommandBufferExp.pfnAppendKernelLaunchExp = urCommandBufferAppendKernelLaunchExp;
  Table.CommandBufferExp.pfnAppendKernelLaunchWithArgsExp =
      urCommandBufferAppendKernelLaunchWithArgsExp;
  Table.CommandBufferExp.pfnAppendUSMMemcpyExp = urCommandBufferAppendUSMMemcpyExp;
  Table.CommandBufferExp.pfnAppendUSMFillExp = urCommandBufferAppendUSMFillExp;
  Table.CommandBufferExp.pfnAppendUSMPrefetchExp = urCommandBufferAppendUSMPrefetchExp;
  Table.CommandBufferExp.pfnAppendUSMAdviseExp = urCommandBufferAppendUSMAdviseExp;
  Table.CommandBufferExp.pfnAppendMemBufferCopyExp = urCommandBufferAppendMemBufferCopyExp;
  Table.CommandBufferExp.pfnAppendMemBufferWriteExp = urCommandBufferAppendMemBufferWriteExp;
  Table.CommandBufferExp.pfnAppendMemBufferReadExp = urCommandBufferAppendMemBufferReadExp;
  Table.CommandBufferExp.pfnAppendMemBufferCopyRectExp = urCommandBufferAppendMemBufferCopyRectExp;
  Table.CommandBufferExp.pfnAppendMemBufferWriteRectExp =
      urCommandBufferAppendMemBufferWriteRectExp;
  Table.CommandBufferExp.pfnAppendMemBufferReadRectExp = urCommandBufferAppendMemBufferReadRectExp;
  Table.CommandBufferExp.pfnAppendMemBufferFillExp = urCommandBufferAppendMemBufferFillExp;
  Table.CommandBufferExp.pfnUpdateKernelLaunchExp = urCommandBufferUpdateKernelLaunchExp;
  Table.CommandBufferExp.pfnUpdateSignalEventExp = urCommandBufferUpdateSignalEventExp;
  Table.CommandBufferExp.pfnUpdateWaitEventsExp = urCommandBufferUpdateWaitEventsExp;
  Table.EnqueueExp.pfnCommandBufferExp = urEnqueueCommandBufferExp;
  return Table;
}

// The loader asks with its API version: its tables have this header's layout only if
// its major version is ours and it is not older than the header (an older loader's
// tables may be shorter than ours).
ur_result_t checkVersion(ur_api_version_t Version) {
  if (UR_MAJOR_VERSION(Version) != UR_MAJOR_VERSION(UR_API_VERSION_CURRENT) ||
      UR_MINOR_VERSION(Version) < UR_MINOR_VERSION(UR_API_VERSION_CURRENT))
    return failUr(UR_RESULT_ERROR_UNSUPPORTED_VERSION,
                  "UR API version {}.{} asked; dglink's UR face speaks {}.{}",
                  UR_MAJOR_VERSION(Version), UR_MINOR_VERSION(Version),
                  UR_MAJOR_VERSION(UR_API_VERSION_CURRENT),
                  UR_MINOR_VERSION(UR_API_VERSION_CURRENT));
  return UR_RESULT_SUCCESS;
}

const ur_dditable_t Table = makeTable();

} // namespace

const ur_dditable_t &ddiTable() { return Table; }

} // namespace dglink::ur

namespace dglink::core {
// Every handle of a UR adapter points at its DDI table: the loader routes through it.
const void *const FaceTable = &dglink::ur::Table;
} // namespace dglink::core

// The exports: one per table, each copying the table's slots.
extern "C" {
#define DGLINK_UR_SLOT(Member, SlotType, SlotName)
#define DGLINK_UR_TABLE(Member, TableType, Getter)                                                 \
  UR_DLLEXPORT ur_result_t UR_APICALL Getter(ur_api_version_t version, TableType *pDdiTable) {     \
    if (pDdiTable == nullptr)                                                                      \
      return UR_RESULT_ERROR_INVALID_NULL_POINTER;                                                 \
    if (const ur_result_t Checked = dglink::ur::checkVersion(version);                             \
        Checked != UR_RESULT_SUCCESS)                                                              \
      return Checked;                                                                              \
    *pDdiTable = dglink::ur::ddiTable().Member;                                                    \
    return UR_RESULT_SUCCESS;                                                                      \
  }
#include "ddi_slots.inc"
#undef DGLINK_UR_TABLE
#undef DGLINK_UR_SLOT
} // extern "C"
