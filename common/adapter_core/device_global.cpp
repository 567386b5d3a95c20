// piextEnqueueDeviceGlobalVariableRead/Write, written once: the checks in the order
// of the error contract (docs/error-contract.md), the per-program lookup cache
// (unique id -> module symbol -> the backend's location, asked once per program,
// device and name), then one generic copy through the queue.
#include "entry.h"

#include <dglink/support/log.h>
#include <dglink/support/validate.h>

using namespace dglink::core;

namespace {

using Entry = dglink::DeviceGlobalEntry<DeviceGlobalLocation>;

pi_result lookup(const char *Function, _pi_program &Program, _pi_device &Device, const char *Name,
                 const Entry *&Found) {
  Found = Program.Globals.find(Name, &Device);
  if (Found != nullptr)
    return PI_SUCCESS;
  std::lock_guard<std::mutex> Lock(Program.Globals.insertMutex());
  Found = Program.Globals.find(Name, &Device); // another thread may have looked it up
  if (Found != nullptr)
    return PI_SUCCESS;

  DGLINK_TRY(dglink::checkDeclaredDeviceGlobal(Function, Program.Metadata, Name, &Program));
  allocationPoint();
  auto NewEntry = std::make_unique<Entry>();
  NewEntry->Name = Name;
  NewEntry->Device = &Device;
  NewEntry->Symbol = dglink::deviceGlobalSymbol(Program.Metadata, Name);
  GlobalLookup Result;
  DGLINK_TRY(Program.Impl->findGlobal(Program, Device, NewEntry->Name, NewEntry->Symbol, Result));
  dglink::logger().trace("{}: device global lookup: '{}' (symbol '{}') in program {}: {}",
                         backend().name(), dglink::clip(Name), dglink::clip(NewEntry->Symbol),
                         fmt::ptr(&Program), Result.Found ? "found" : "not found");
  if (!Result.Found) {
    const pi_result Missing =
        dglink::missingDeviceGlobal(Function, Name, NewEntry->Symbol, &Program);
    if (Result.NotFoundReason == nullptr)
      return Missing;
    return dglink::fail(Missing, "{} ({})", dglink::lastErrorMessage(), Result.NotFoundReason);
  }
  NewEntry->Address = Result.Location;
  dglink::applyDeclaredDeviceGlobal(Program.Metadata, Name, Result.Bytes, NewEntry->Size,
                                    NewEntry->Access);
  Found = Program.Globals.insert(std::move(NewEntry));
  return PI_SUCCESS;
}

// Everything both entry points check before copying, in the contract's order.
pi_result prepare(const char *Function, pi_queue Queue, pi_program Program, const char *Name,
                  const void *HostPointer, const char *HostPointerName, size_t Count, size_t Offset,
                  pi_uint32 NumEvents, const pi_event *Events, bool IsWrite, const Entry *&Found) {
  DGLINK_TRY(checkHandle(Queue, PI_ERROR_INVALID_QUEUE, Function, "Queue"));
  DGLINK_TRY(checkHandle(Program, PI_ERROR_INVALID_PROGRAM, Function, "Program"));
  DGLINK_TRY(dglink::checkDeviceGlobalPointers(Function, Name, HostPointer, HostPointerName));
  DGLINK_TRY(checkWaitList(NumEvents, Events));
  if (!Program->Executable.load(std::memory_order_acquire) || !Program->hasDevice(Queue->Device))
    return dglink::fail(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
                        "{}: program {} is not built for device '{}' of the queue", Function,
                        fmt::ptr(Program), Queue->Device->Description.Name);
  DGLINK_TRY(lookup(Function, *Program, *Queue->Device, Name, Found));
  DGLINK_TRY(dglink::checkDeviceGlobalRange(Name, Offset, Count, Found->Size));
  return dglink::checkHostAccess(Function, Name, Found->Access, IsWrite);
}

DeviceGlobalLocation at(const DeviceGlobalLocation &Base, size_t Offset) {
  return {Base.Address + Offset, Base.Buffer};
}

} // namespace

namespace dglink::core {

pi_result lookupDeviceGlobal(const char *Function, _pi_program &Program, _pi_device &Device,
                             const char *Name, DeviceGlobalLocation &Location, size_t &Size) {
  if (!Program.Executable.load(std::memory_order_acquire) || !Program.hasDevice(&Device))
    return dglink::fail(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
                        "{}: program {} is not built for device '{}'", Function, fmt::ptr(&Program),
                        Device.Description.Name);
  const Entry *Found = nullptr;
  DGLINK_TRY(lookup(Function, Program, Device, Name, Found));
  Location = Found->Address;
  Size = Found->Size;
  return PI_SUCCESS;
}

} // namespace dglink::core

extern "C" {

PI_API_EXPORT pi_result piextEnqueueDeviceGlobalVariableWrite(
    pi_queue Queue, pi_program Program, const char *Name, pi_bool BlockingWrite, size_t Count,
    size_t Offset, const void *Src, pi_uint32 NumEventsInWaitList, const pi_event *EventsWaitList,
    pi_event *Event) try {
  DGLINK_ENTRY();
  const Entry *Found = nullptr;
  DGLINK_TRY(prepare(__func__, Queue, Program, Name, Src, "Src", Count, Offset, NumEventsInWaitList,
                     EventsWaitList, true, Found));
  return submit(*Queue, PI_COMMAND_TYPE_DEVICE_GLOBAL_VARIABLE_WRITE, NumEventsInWaitList,
                EventsWaitList, BlockingWrite != PI_FALSE, Event, [&](const Enqueue &Request) {
                  return Queue->Impl->write(at(Found->Address, Offset), Src, Count, Request);
                });
}
DGLINK_CATCH_ALL

PI_API_EXPORT pi_result piextEnqueueDeviceGlobalVariableRead(pi_queue Queue, pi_program Program,
                                                             const char *Name, pi_bool BlockingRead,
                                                             size_t Count, size_t Offset, void *Dst,
                                                             pi_uint32 NumEventsInWaitList,
                                                             const pi_event *EventsWaitList,
                                                             pi_event *Event) try {
  DGLINK_ENTRY();
  const Entry *Found = nullptr;
  DGLINK_TRY(prepare(__func__, Queue, Program, Name, Dst, "Dst", Count, Offset, NumEventsInWaitList,
                     EventsWaitList, false, Found));
  return submit(*Queue, PI_COMMAND_TYPE_DEVICE_GLOBAL_VARIABLE_READ, NumEventsInWaitList,
                EventsWaitList, BlockingRead != PI_FALSE, Event, [&](const Enqueue &Request) {
                  return Queue->Impl->read(Dst, at(Found->Address, Offset), Count, Request);
                });
}
DGLINK_CATCH_ALL

} // extern "C"
