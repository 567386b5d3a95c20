// piextEnqueueDeviceGlobalVariableRead/Write: validation in the order of the
// error contract, a cached zeModuleGetGlobalPointer lookup (the unique id,
// which a HostAccessINTEL decoration names, then the exported symbol), and
// copies appended to the queue's immediate command list.
#include "handles.h"

#include <dglink/support/log.h>

#include <algorithm>

namespace dglink::level_zero {
namespace {

// zeModuleGetGlobalPointer of Name in each module; false if none has it.
pi_result findInModules(const _pi_program &Program, const std::string &Name, void *&Address,
                        size_t &Size, bool &Found) {
  Found = false;
  for (ze_module_handle_t Module : Program.Modules) {
    const ze_result_t Result = ze().zeModuleGetGlobalPointer(Module, Name.c_str(), &Size, &Address);
    if (Result == ZE_RESULT_SUCCESS) {
      Found = true;
      return PI_SUCCESS;
    }
    if (Result != ZE_RESULT_ERROR_INVALID_GLOBAL_NAME)
      return zeError(Result, "zeModuleGetGlobalPointer");
  }
  return PI_SUCCESS;
}

pi_result lookup(_pi_program &Program, const char *Function, const char *Name,
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
  // The seed's rule: the driver matches the HostAccessINTEL name (the unique
  // id) first, then the export name; where the image maps the unique id to a
  // different symbol, that symbol is asked for next.
  size_t ModuleBytes = 0;
  bool Found = false;
  DGLINK_TRY(findInModules(Program, Name, NewEntry->Address, ModuleBytes, Found));
  const std::string Symbol = deviceGlobalSymbol(*Program.Metadata, Name);
  if (!Found && Symbol != Name)
    DGLINK_TRY(findInModules(Program, Symbol, NewEntry->Address, ModuleBytes, Found));
  logger().trace("level_zero: device global lookup: '{}' (symbol '{}') in program {}: {}", Name,
                 Symbol, fmt::ptr(&Program), Found ? "found" : "not found");
  if (!Found) {
    if (Symbol != Name)
      return fail(PI_ERROR_INVALID_VALUE,
                  "{}: device global '{}' (symbol '{}') is not in program {} "
                  "(zeModuleGetGlobalPointer: ZE_RESULT_ERROR_INVALID_GLOBAL_NAME)",
                  Function, Name, Symbol, fmt::ptr(&Program));
    return fail(PI_ERROR_INVALID_VALUE,
                "{}: device global '{}' is not in program {} (zeModuleGetGlobalPointer: "
                "ZE_RESULT_ERROR_INVALID_GLOBAL_NAME)",
                Function, Name, fmt::ptr(&Program));
  }
  applyDeclaredDeviceGlobal(*Program.Metadata, Name, ModuleBytes, NewEntry->Size,
                            NewEntry->Access);
  Entry = Program.Globals.insert(std::move(NewEntry));
  return PI_SUCCESS;
}

// Everything both entry points check before copying, in the contract's order.
pi_result prepare(const char *Function, pi_queue Queue, pi_program Program, const char *Name,
                  const void *HostPointer, const char *HostPointerName, size_t Count, size_t Offset,
                  pi_uint32 NumEvents, const pi_event *Events, bool IsWrite,
                  const DeviceGlobalEntry *&Entry) {
  DGLINK_TRY(checkHandle(Queue, PI_ERROR_INVALID_QUEUE, Function, "Queue"));
  DGLINK_TRY(checkHandle(Program, PI_ERROR_INVALID_PROGRAM, Function, "Program"));
  DGLINK_TRY(checkDeviceGlobalPointers(Function, Name, HostPointer, HostPointerName));
  DGLINK_TRY(checkWaitList(NumEvents, Events, &PluginFunctions));
  if (!Program->Executable.load(std::memory_order_acquire) ||
      Program->Context->Device != Queue->Device)
    return fail(PI_ERROR_INVALID_PROGRAM_EXECUTABLE,
                "{}: program {} is not built for device '{}' of the queue", Function,
                fmt::ptr(Program), Queue->Device->Name);
  DGLINK_TRY(lookup(*Program, Function, Name, Entry));
  DGLINK_TRY(checkDeviceGlobalRange(Name, Offset, Count, Entry->Size));
  return checkHostAccess(Function, Name, Entry->Access, IsWrite);
}

pi_result copy(pi_queue Queue, bool Blocking, void *Dst, const void *Src, size_t Count,
               pi_uint32 NumEvents, const pi_event *Events, pi_event *Event) {
  return enqueue(*Queue, "zeCommandListAppendMemoryCopy", Blocking, NumEvents, Events, Event,
                 [&](ze_event_handle_t Signal, uint32_t NumWaits, ze_event_handle_t *Waits) {
                   return ze().zeCommandListAppendMemoryCopy(Queue->List, Dst, Src, Count, Signal,
                                                             NumWaits, Waits);
                 });
}

} // namespace
} // namespace dglink::level_zero

using namespace dglink::level_zero;

extern "C" PI_API_EXPORT pi_result piextEnqueueDeviceGlobalVariableWrite(
    pi_queue Queue, pi_program Program, const char *Name, pi_bool BlockingWrite, size_t Count,
    size_t Offset, const void *Src, pi_uint32 NumEventsInWaitList, const pi_event *EventsWaitList,
    pi_event *Event) {
  const DeviceGlobalEntry *Entry = nullptr;
  DGLINK_TRY(prepare(__func__, Queue, Program, Name, Src, "Src", Count, Offset, NumEventsInWaitList,
                     EventsWaitList, true, Entry));
  return copy(Queue, BlockingWrite != PI_FALSE, static_cast<char *>(Entry->Address) + Offset, Src,
              Count, NumEventsInWaitList, EventsWaitList, Event);
}

extern "C" PI_API_EXPORT pi_result piextEnqueueDeviceGlobalVariableRead(
    pi_queue Queue, pi_program Program, const char *Name, pi_bool BlockingRead, size_t Count,
    size_t Offset, void *Dst, pi_uint32 NumEventsInWaitList, const pi_event *EventsWaitList,
    pi_event *Event) {
  const DeviceGlobalEntry *Entry = nullptr;
  DGLINK_TRY(prepare(__func__, Queue, Program, Name, Dst, "Dst", Count, Offset, NumEventsInWaitList,
                     EventsWaitList, false, Entry));
  return copy(Queue, BlockingRead != PI_FALSE, Dst,
              static_cast<const char *>(Entry->Address) + Offset, Count, NumEventsInWaitList,
              EventsWaitList, Event);
}
