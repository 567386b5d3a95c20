// Device-global read and write: the error contract of DESIGN.md checked in its order, then
// the mechanism: a program from lowered images keeps its variables in storage the adapter
// owns (a buffer read or write, no kernel launch); otherwise the driver's
// cl_intel_global_variable_access where the device has it.
#include "opencl_adapter.h"

#include <dglink/support/device_global.h>

namespace dglink::opencl {
namespace {

enum class Direction { Read, Write };

// One device-global copy, validated, as every mechanism receives it.
struct DeviceGlobalCopy {
  pi_queue Queue;
  pi_program Program;
  const char *Name;
  const DeviceGlobalInfo *Variable;
  Direction Dir;
  bool Blocking;
  size_t Count;
  size_t Offset;
  void *HostPtr; // Dst of a read, Src of a write
};

// Checks in the order of DESIGN.md's error table, after the handle and pointer checks the
// entry points make.
pi_result validate(const char *Function, pi_queue Queue, pi_program Program, const char *Name,
                   Direction Dir, size_t Count, size_t Offset, pi_uint32 NumEvents,
                   const pi_event *WaitList, const DeviceGlobalInfo *&Variable) {
  DGLINK_TRY(checkQueueWaitList(Queue, NumEvents, WaitList));
  if (!programBuiltFor(Program, Queue->Device))
    return fail(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
                "{}: {} is not built for device '{}' (the queue's device)", Function,
                programLabel(Program), Queue->Device->Name);
  const auto Found = Program->Metadata.DeviceGlobals.find(Name);
  if (Found == Program->Metadata.DeviceGlobals.end())
    return fail(PI_ERROR_INVALID_VALUE, "{}: {} has no device global named '{}'", Function,
                programLabel(Program), Name);
  DGLINK_TRY(checkDeviceGlobalRange(Name, Offset, Count, Found->second.Size));
  DGLINK_TRY(checkHostAccess(Function, Name, Found->second.Access, Dir == Direction::Write));
  Variable = &Found->second;
  return PI_SUCCESS;
}

// PI_DEVICE_GLOBAL_MECHANISM_NATIVE: the driver finds the variable by name.
pi_result copyNative(const char *Function, const DeviceGlobalCopy &Copy, pi_uint32 NumEvents,
                     const pi_event *WaitList, pi_event *Event) {
  const GlobalVariableFunctions &Functions = Copy.Queue->Device->Platform->GlobalVariable;
  ClEventList ClWaitList(NumEvents, WaitList);
  PendingEvent Pending(Copy.Queue, Event);
  const cl_bool Blocking = Copy.Blocking ? CL_TRUE : CL_FALSE;
  cl_int Error;
  const char *ClFunction;
  if (Copy.Dir == Direction::Read) {
    ClFunction = "clEnqueueReadGlobalVariableINTEL";
    Error = Functions.Read(Copy.Queue->Queue, Copy.Program->Program, Copy.Name, Blocking,
                           Copy.Count, Copy.Offset, Copy.HostPtr, ClWaitList.size(),
                           ClWaitList.data(), Pending.clEvent());
  } else {
    ClFunction = "clEnqueueWriteGlobalVariableINTEL";
    Error = Functions.Write(Copy.Queue->Queue, Copy.Program->Program, Copy.Name, Blocking,
                            Copy.Count, Copy.Offset, Copy.HostPtr, ClWaitList.size(),
                            ClWaitList.data(), Pending.clEvent());
  }
  if (Error != CL_SUCCESS)
    return fail(toPiResult(Error), "{}: {} failed with {} ({}) for device global '{}'", Function,
                ClFunction, clErrorName(Error), Error, Copy.Name);
  Pending.commit();
  return PI_SUCCESS;
}

// PI_DEVICE_GLOBAL_MECHANISM_LOWERED: the variable's bytes at its offset in the program's
// storage on the queue's device.
pi_result copyLowered(const char *Function, const DeviceGlobalCopy &Copy, pi_uint32 NumEvents,
                      const pi_event *WaitList, pi_event *Event) {
  const auto Place = Copy.Program->Metadata.Lowered->Variables.find(Copy.Name);
  if (Place == Copy.Program->Metadata.Lowered->Variables.end())
    return fail(PI_ERROR_INVALID_BINARY,
                "{}: device global '{}' of {} has no place in the lowered storage", Function,
                Copy.Name, programLabel(Copy.Program));
  cl_mem Storage = nullptr;
  DGLINK_TRY(loweredStorage(Function, Copy.Program, Copy.Queue->Device, Storage));
  ClEventList ClWaitList(NumEvents, WaitList);
  PendingEvent Pending(Copy.Queue, Event);
  const cl_bool Blocking = Copy.Blocking ? CL_TRUE : CL_FALSE;
  const size_t Offset = static_cast<size_t>(Place->second.Offset) + Copy.Offset;
  cl_int Error;
  const char *ClFunction;
  if (Copy.Dir == Direction::Read) {
    ClFunction = "clEnqueueReadBuffer";
    Error = clEnqueueReadBuffer(Copy.Queue->Queue, Storage, Blocking, Offset, Copy.Count,
                                Copy.HostPtr, ClWaitList.size(), ClWaitList.data(),
                                Pending.clEvent());
  } else {
    ClFunction = "clEnqueueWriteBuffer";
    Error = clEnqueueWriteBuffer(Copy.Queue->Queue, Storage, Blocking, Offset, Copy.Count,
                                 Copy.HostPtr, ClWaitList.size(), ClWaitList.data(),
                                 Pending.clEvent());
  }
  if (Error != CL_SUCCESS)
    return fail(toPiResult(Error), "{}: {} failed with {} ({}) for device global '{}'", Function,
                ClFunction, clErrorName(Error), Error, Copy.Name);
  Pending.commit();
  return PI_SUCCESS;
}

pi_result copy(const char *Function, const DeviceGlobalCopy &Copy, pi_uint32 NumEvents,
               const pi_event *WaitList, pi_event *Event) {
  if (Copy.Program->Metadata.Lowered)
    return copyLowered(Function, Copy, NumEvents, WaitList, Event);
  pi_device Device = Copy.Queue->Device;
  if (Device->DeviceGlobal == PI_DEVICE_GLOBAL_MECHANISM_NATIVE)
    return copyNative(Function, Copy, NumEvents, WaitList, Event);
  return fail(PI_ERROR_INVALID_OPERATION,
              "{}: {} was made from an image whose device globals were not lowered, and device "
              "'{}' has no cl_intel_global_variable_access; make the image with `dglink compile "
              "--lower-device-globals` (docs/opencl-lowering.md)",
              Function, programLabel(Copy.Program), Device->Name);
}

} // namespace
} // namespace dglink::opencl

using namespace dglink::opencl;

extern "C" {

PI_API_EXPORT pi_result piextEnqueueDeviceGlobalVariableRead(pi_queue Queue, pi_program Program,
                                                             const char *Name, pi_bool BlockingRead,
                                                             size_t Count, size_t Offset, void *Dst,
                                                             pi_uint32 NumEventsInWaitList,
                                                             const pi_event *EventsWaitList,
                                                             pi_event *Event) try {
  DGLINK_OPENCL_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_OPENCL_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  DGLINK_CHECK_NOT_NULL(Name, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(Dst, PI_ERROR_INVALID_VALUE);
  const dglink::DeviceGlobalInfo *Variable = nullptr;
  DGLINK_TRY(validate(__func__, Queue, Program, Name, Direction::Read, Count, Offset,
                      NumEventsInWaitList, EventsWaitList, Variable));
  const DeviceGlobalCopy Copy{Queue, Program, Name, Variable, Direction::Read, BlockingRead != 0,
                              Count, Offset,  Dst};
  return copy(__func__, Copy, NumEventsInWaitList, EventsWaitList, Event);
}
DGLINK_OPENCL_CATCH_ALL

PI_API_EXPORT pi_result piextEnqueueDeviceGlobalVariableWrite(
    pi_queue Queue, pi_program Program, const char *Name, pi_bool BlockingWrite, size_t Count,
    size_t Offset, const void *Src, pi_uint32 NumEventsInWaitList, const pi_event *EventsWaitList,
    pi_event *Event) try {
  DGLINK_OPENCL_CHECK_HANDLE(Queue, PI_ERROR_INVALID_QUEUE);
  DGLINK_OPENCL_CHECK_HANDLE(Program, PI_ERROR_INVALID_PROGRAM);
  DGLINK_CHECK_NOT_NULL(Name, PI_ERROR_INVALID_VALUE);
  DGLINK_CHECK_NOT_NULL(Src, PI_ERROR_INVALID_VALUE);
  const dglink::DeviceGlobalInfo *Variable = nullptr;
  DGLINK_TRY(validate(__func__, Queue, Program, Name, Direction::Write, Count, Offset,
                      NumEventsInWaitList, EventsWaitList, Variable));
  // Src is only read; the shared copy description carries one host pointer for both ways.
  const DeviceGlobalCopy Copy{Queue,    Program,          Name,
                              Variable, Direction::Write, BlockingWrite != 0,
                              Count,    Offset,           const_cast<void *>(Src)};
  return copy(__func__, Copy, NumEventsInWaitList, EventsWaitList, Event);
}
DGLINK_OPENCL_CATCH_ALL

} // extern "C"
