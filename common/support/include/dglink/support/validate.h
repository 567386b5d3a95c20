// Argument checks shared beyond the adapter core (device-global ranges), so the error
// contract is one table on every backend. Handles and wait lists are the core's
// (common/adapter_core), which knows its own handles.
#pragma once

#include <dglink/support/error.h>

namespace dglink {

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
