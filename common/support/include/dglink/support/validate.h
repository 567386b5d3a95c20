// Argument checks every adapter makes the same way (wait lists, handle ownership,
// device-global ranges), so the error contract is one table on every backend.
#pragma once

#include <dglink/support/error.h>

namespace dglink {

// True when Handle was made by the adapter whose function table is Table.
template <typename Handle>
bool ownedBy(Handle H, const pi_plugin_functions *Table) {
  return H != nullptr && reinterpret_cast<const pi_handle_header *>(H)->Dispatch == Table;
}

// A wait list is a non-null array of NumEvents non-null events of this adapter,
// or null with NumEvents == 0.
inline pi_result checkWaitList(pi_uint32 NumEvents, const pi_event *Events,
                               const pi_plugin_functions *Table) {
  if ((NumEvents == 0) != (Events == nullptr))
    return fail(PI_ERROR_INVALID_EVENT_WAIT_LIST,
                "event wait list: {} events but the list pointer is {}", NumEvents,
                Events == nullptr ? "null" : "not null");
  for (pi_uint32 I = 0; I < NumEvents; ++I)
    if (!ownedBy(Events[I], Table))
      return fail(PI_ERROR_INVALID_EVENT_WAIT_LIST,
                  "event wait list: entry {} is {}", I,
                  Events[I] == nullptr ? "null" : "not an event of this adapter");
  return PI_SUCCESS;
}

// Offset + Count must lie inside a device global of Size bytes (no overflow).
inline pi_result checkDeviceGlobalRange(const char *Name, size_t Offset, size_t Count,
                                        size_t Size) {
  if (Offset > Size || Count > Size - Offset)
    return fail(PI_ERROR_INVALID_VALUE,
                "device global '{}': offset {} + count {} is past its size of {} bytes", clip(Name),
                Offset, Count, Size);
  return PI_SUCCESS;
}

} // namespace dglink
