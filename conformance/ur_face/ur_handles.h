// What the UR-face scenarios share: a pi_* handle of the bridge as the UR handle it is,
// the last message of a device's UR adapter, and an event's execution status.
#pragma once

#include <dglink/pi.h>

#include <unified-runtime/ur_api.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

namespace dglink::conformance {

// Through the bridge a pi_* handle is the UR handle.
inline ur_device_handle_t asUr(pi_device Device) {
  return reinterpret_cast<ur_device_handle_t>(Device);
}
inline ur_context_handle_t asUr(pi_context Context) {
  return reinterpret_cast<ur_context_handle_t>(Context);
}
inline ur_queue_handle_t asUr(pi_queue Queue) { return reinterpret_cast<ur_queue_handle_t>(Queue); }
inline ur_kernel_handle_t asUr(pi_kernel Kernel) {
  return reinterpret_cast<ur_kernel_handle_t>(Kernel);
}
inline ur_program_handle_t asUr(pi_program Program) {
  return reinterpret_cast<ur_program_handle_t>(Program);
}

// The message the platform's UR adapter gave last on this thread.
inline std::string urLastError(pi_platform Platform) {
  ur_adapter_handle_t Adapter = nullptr;
  // The adapter handle (a pointer) is what the query writes.
  const size_t AdapterBytes = sizeof(Adapter); // NOLINT(bugprone-sizeof-expression)
  if (urPlatformGetInfo(reinterpret_cast<ur_platform_handle_t>(Platform), UR_PLATFORM_INFO_ADAPTER,
                        AdapterBytes, &Adapter, nullptr) != UR_RESULT_SUCCESS)
    return "(no adapter)";
  const char *Message = nullptr;
  int32_t Code = 0;
  if (urAdapterGetLastError(Adapter, &Message, &Code) != UR_RESULT_SUCCESS || Message == nullptr)
    return "";
  return Message;
}

// UR 0.12's leak checker (UR_LAYER_FULL_VALIDATION) records each handle an adapter hands
// out as new: a discovered platform or device handed out again, or a queue the adapter
// made for an adopted event, reads to it as a double creation or an unknown handle; a
// handle of the wrong kind or a released one, passed on purpose, reads as misuse.
inline bool leakCheckerOn() {
  const char *Layers = std::getenv("UR_ENABLE_LAYERS");
  return Layers != nullptr && std::strstr(Layers, "VALIDATION") != nullptr;
}

// An event's execution status (ERROR, and a test failure, where the query fails).
inline ur_event_status_t statusOf(ur_event_handle_t Event) {
  ur_event_status_t Status = UR_EVENT_STATUS_ERROR;
  EXPECT_EQ(urEventGetInfo(Event, UR_EVENT_INFO_COMMAND_EXECUTION_STATUS, sizeof(Status), &Status,
                           nullptr),
            UR_RESULT_SUCCESS);
  return Status;
}

// A handle's size for a *GetInfo query (a pointer: what the query writes).
template <typename Handle> constexpr size_t handleBytes() {
  return sizeof(Handle); // NOLINT(bugprone-sizeof-expression)
}

} // namespace dglink::conformance
