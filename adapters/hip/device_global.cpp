// piextEnqueueDeviceGlobalVariableRead/Write: validation in the order of the
// error contract, a hipModuleGetGlobal lookup cached per program and name
// (dglink::DeviceGlobalCache, shared with the CUDA and Level Zero adapters), and
// copies on the queue's stream.
#include "handles.h"

#include <dglink/support/log.h>

namespace dglink::hip {
namespace {

pi_result lookup(_pi_program &Program, HipModule Module, const char *Function, const char *Name,
                 const DeviceGlobalEntry *&Entry) {
  Entry = Program.Globals.find(Name);
  if (Entry != nullptr)
    return PI_SUCCESS;
  std::lock_guard<std::mutex> Lock(Program.Globals.insertMutex());
  Entry = Program.Globals.find(Name); // another thread may have looked it up
  if (Entry != nullptr)
    return PI_SUCCESS;

  DGLINK_TRY(checkDeclaredDeviceGlobal(Function, *Program.Metadata, Name, &Program));

  auto NewEntry = std::make_unique<DeviceGlobalEntry>();
  NewEntry->Name = Name;
  NewEntry->Symbol = deviceGlobalSymbol(*Program.Metadata, Name);
  logger().trace("hip: device global lookup: '{}' -> symbol '{}' in program {} "
                 "(hipModuleGetGlobal)",
                 Name, NewEntry->Symbol, fmt::ptr(&Program));
  size_t ModuleBytes = 0;
  const HipError Result =
      hip().ModuleGetGlobal(&NewEntry->Address, &ModuleBytes, Module, NewEntry->Symbol.c_str());
  // HIP's AMD platform says hipErrorNotFound (or hipErrorInvalidValue in some
  // releases) for a name the module lacks.
  if (Result == HipErrorNotFound || Result == HipErrorInvalidValue ||
      Result == HipErrorInvalidHandle) {
    return missingDeviceGlobal(Function, Name, NewEntry->Symbol, &Program);
  }
  if (Result != HipSuccess)
    return hipError(Result, "hipModuleGetGlobal");

  applyDeclaredDeviceGlobal(*Program.Metadata, Name, ModuleBytes, NewEntry->Size,
                            NewEntry->Access);
  Entry = Program.Globals.insert(std::move(NewEntry));
  return PI_SUCCESS;
}

// Everything both entry points check before copying, in the contract's order.
pi_result prepare(const char *Function, pi_queue Queue, pi_program Program, const char *Name,
                  const void *HostPointer, const char *HostPointerName, size_t Count,
                  size_t Offset, pi_uint32 NumEvents, const pi_event *Events, bool IsWrite,
                  const DeviceGlobalEntry *&Entry) {
  DGLINK_TRY(checkHandle(Queue, PI_ERROR_INVALID_QUEUE, Function, "Queue"));
  DGLINK_TRY(checkHandle(Program, PI_ERROR_INVALID_PROGRAM, Function, "Program"));
  DGLINK_TRY(checkDeviceGlobalPointers(Function, Name, HostPointer, HostPointerName));
  DGLINK_TRY(checkWaitList(NumEvents, Events, &PluginFunctions));
  const HipModule Module = Program->Module.load(std::memory_order_acquire);
  if (Module == nullptr || Program->Context->Device != Queue->Device)
    return fail(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
                "{}: program {} is not built for device '{}' (HIP device {}) of the queue",
                Function, fmt::ptr(Program), Queue->Device->Name, Queue->Device->Ordinal);
  DGLINK_TRY(makeCurrent(*Queue->Device));
  DGLINK_TRY(lookup(*Program, Module, Function, Name, Entry));
  DGLINK_TRY(checkDeviceGlobalRange(Name, Offset, Count, Entry->Size));
  return checkHostAccess(Function, Name, Entry->Access, IsWrite);
}

} // namespace
} // namespace dglink::hip

using namespace dglink::hip;

extern "C" PI_API_EXPORT pi_result piextEnqueueDeviceGlobalVariableWrite(
    pi_queue Queue, pi_program Program, const char *Name, pi_bool BlockingWrite, size_t Count,
    size_t Offset, const void *Src, pi_uint32 NumEventsInWaitList,
    const pi_event *EventsWaitList, pi_event *Event) try {
  const DeviceGlobalEntry *Entry = nullptr;
  DGLINK_TRY(prepare(__func__, Queue, Program, Name, Src, "Src", Count, Offset,
                     NumEventsInWaitList, EventsWaitList, true, Entry));
  DGLINK_TRY(waitForEvents(*Queue, NumEventsInWaitList, EventsWaitList));
  EnqueueEvent Done(*Queue, Event);
  DGLINK_TRY(Done.prepare());
  return Done.finish(copyToDevice(*Queue, static_cast<char *>(Entry->Address) + Offset, Src,
                                  Count, BlockingWrite != PI_FALSE, Done));
}
DGLINK_CATCH_ALL

extern "C" PI_API_EXPORT pi_result piextEnqueueDeviceGlobalVariableRead(
    pi_queue Queue, pi_program Program, const char *Name, pi_bool BlockingRead, size_t Count,
    size_t Offset, void *Dst, pi_uint32 NumEventsInWaitList, const pi_event *EventsWaitList,
    pi_event *Event) try {
  const DeviceGlobalEntry *Entry = nullptr;
  DGLINK_TRY(prepare(__func__, Queue, Program, Name, Dst, "Dst", Count, Offset,
                     NumEventsInWaitList, EventsWaitList, false, Entry));
  DGLINK_TRY(waitForEvents(*Queue, NumEventsInWaitList, EventsWaitList));
  EnqueueEvent Done(*Queue, Event);
  DGLINK_TRY(Done.prepare());
  return Done.finish(copyToHost(*Queue, Dst, static_cast<const char *>(Entry->Address) + Offset,
                                Count, BlockingRead != PI_FALSE, Done));
}
DGLINK_CATCH_ALL
