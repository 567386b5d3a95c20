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
  Table.Adapter.pfnGet = adapterGet;
  Table.Adapter.pfnRetain = adapterRetain;
  Table.Adapter.pfnRelease = adapterRelease;
  Table.Adapter.pfnGetLastError = adapterGetLastError;
  Table.Adapter.pfnGetInfo = adapterGetInfo;

  Table.Platform.pfnGet = platformGet;
  Table.Platform.pfnGetInfo = platformGetInfo;
  Table.Platform.pfnGetApiVersion = platformGetApiVersion;
  Table.Platform.pfnGetBackendOption = platformGetBackendOption;

  Table.Device.pfnGet = deviceGet;
  Table.Device.pfnGetInfo = deviceGetInfo;
  Table.Device.pfnRetain = deviceRetain;
  Table.Device.pfnRelease = deviceRelease;
  Table.Device.pfnSelectBinary = deviceSelectBinary;

  Table.Context.pfnCreate = contextCreate;
  Table.Context.pfnRetain = contextRetain;
  Table.Context.pfnRelease = contextRelease;
  Table.Context.pfnGetInfo = contextGetInfo;

  Table.Queue.pfnCreate = queueCreate;
  Table.Queue.pfnRetain = queueRetain;
  Table.Queue.pfnRelease = queueRelease;
  Table.Queue.pfnGetInfo = queueGetInfo;
  Table.Queue.pfnFinish = queueFinish;
  Table.Queue.pfnFlush = queueFlush;

  Table.Mem.pfnBufferCreate = memBufferCreate;
  Table.Mem.pfnRetain = memRetain;
  Table.Mem.pfnRelease = memRelease;
  Table.Mem.pfnGetInfo = memGetInfo;

  Table.USM.pfnHostAlloc = usmHostAlloc;
  Table.USM.pfnDeviceAlloc = usmDeviceAlloc;
  Table.USM.pfnSharedAlloc = usmSharedAlloc;
  Table.USM.pfnFree = usmFree;

  Table.Program.pfnCreateWithIL = programCreateWithIL;
  Table.Program.pfnCreateWithBinary = programCreateWithBinary;
  Table.Program.pfnBuild = programBuild;
  Table.Program.pfnCompile = programCompile;
  Table.Program.pfnLink = programLink;
  Table.Program.pfnRetain = programRetain;
  Table.Program.pfnRelease = programRelease;
  Table.Program.pfnGetInfo = programGetInfo;
  Table.Program.pfnGetBuildInfo = programGetBuildInfo;
  Table.Program.pfnGetGlobalVariablePointer = programGetGlobalVariablePointer;
  Table.ProgramExp.pfnBuildExp = programBuildExp;
  Table.ProgramExp.pfnCompileExp = programCompileExp;
  Table.ProgramExp.pfnLinkExp = programLinkExp;

  Table.Kernel.pfnCreate = kernelCreate;
  Table.Kernel.pfnRetain = kernelRetain;
  Table.Kernel.pfnRelease = kernelRelease;
  Table.Kernel.pfnGetInfo = kernelGetInfo;
  Table.Kernel.pfnGetGroupInfo = kernelGetGroupInfo;

  Table.Enqueue.pfnEventsWait = enqueueEventsWait;
  Table.Enqueue.pfnEventsWaitWithBarrier = enqueueEventsWaitWithBarrier;
  Table.Enqueue.pfnMemBufferRead = enqueueMemBufferRead;
  Table.Enqueue.pfnMemBufferWrite = enqueueMemBufferWrite;
  Table.Enqueue.pfnUSMFill = enqueueUSMFill;
  Table.Enqueue.pfnUSMMemcpy = enqueueUSMMemcpy;
  Table.Enqueue.pfnDeviceGlobalVariableWrite = enqueueDeviceGlobalVariableWrite;
  Table.Enqueue.pfnDeviceGlobalVariableRead = enqueueDeviceGlobalVariableRead;
  Table.EnqueueExp.pfnKernelLaunchWithArgsExp = enqueueKernelLaunchWithArgsExp;

  Table.Event.pfnWait = eventWait;
  Table.Event.pfnGetInfo = eventGetInfo;
  Table.Event.pfnRetain = eventRetain;
  Table.Event.pfnRelease = eventRelease;
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
