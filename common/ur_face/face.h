// What the files of the Unified Runtime face share: the DDI table every handle points
// at, the translation of the core's results into UR's, handle conversions, the UR
// spelling of the argument checks, and answers for the *GetInfo entry points.
#pragma once

#include <dglink/core/backend.h>
#include <dglink/core/command_buffer.h>
#include <dglink/support/error.h>

#include <unified-runtime/ur_api.h>
#include <unified-runtime/ur_ddi.h>

#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

// A dglink handle is the core's object: its first field points at this table.
struct ur_adapter_handle_t_ {
  const ur_dditable_t *Dispatch;
  std::atomic<uint32_t> RefCount{0};
};

namespace dglink::ur {

// Every slot filled (table.cpp): dglink's entry points, UNSUPPORTED_FEATURE elsewhere.
const ur_dditable_t &ddiTable();

// The adapter's one handle (adapter.cpp).
ur_adapter_handle_t adapterHandle();

// The UR code of the core's result: the same situation, UR's name for it
// (docs/ur.md lists the pairs).
ur_result_t toUr(pi_result Result);

// Records the message as this thread's last error and returns Code.
template <typename... Args>
ur_result_t failUr(ur_result_t Code, fmt::format_string<Args...> Format, Args &&...Arguments) {
  dglink::setLastError(PI_ERROR_UNKNOWN, fmt::format(Format, std::forward<Args>(Arguments)...));
  return Code;
}

// Handle conversions: a UR handle of dglink is the core's object.
#define DGLINK_UR_HANDLE_PAIR(UrType, CoreType)                                                    \
  inline CoreType *core(UrType Handle) { return reinterpret_cast<CoreType *>(Handle); }            \
  inline UrType face(CoreType *Handle) { return reinterpret_cast<UrType>(Handle); }
DGLINK_UR_HANDLE_PAIR(ur_platform_handle_t, _pi_platform)
DGLINK_UR_HANDLE_PAIR(ur_device_handle_t, _pi_device)
DGLINK_UR_HANDLE_PAIR(ur_context_handle_t, _pi_context)
DGLINK_UR_HANDLE_PAIR(ur_queue_handle_t, _pi_queue)
DGLINK_UR_HANDLE_PAIR(ur_mem_handle_t, _pi_mem)
DGLINK_UR_HANDLE_PAIR(ur_program_handle_t, _pi_program)
DGLINK_UR_HANDLE_PAIR(ur_kernel_handle_t, _pi_kernel)
DGLINK_UR_HANDLE_PAIR(ur_event_handle_t, _pi_event)
DGLINK_UR_HANDLE_PAIR(ur_exp_command_buffer_handle_t, _pi_command_buffer)
DGLINK_UR_HANDLE_PAIR(ur_usm_pool_handle_t, ::dglink::core::UsmPool)
DGLINK_UR_HANDLE_PAIR(ur_physical_mem_handle_t, dglink::core::PhysicalMemory)
DGLINK_UR_HANDLE_PAIR(ur_exp_command_buffer_command_handle_t, dglink::core::CommandHandle)
DGLINK_UR_HANDLE_PAIR(ur_sampler_handle_t, dglink::core::Sampler)
#undef DGLINK_UR_HANDLE_PAIR

// Lists of handles: the same pointers, read as the core's.
inline const pi_device *core(const ur_device_handle_t *List) {
  return reinterpret_cast<const pi_device *>(List);
}
inline const pi_event *core(const ur_event_handle_t *List) {
  return reinterpret_cast<const pi_event *>(List);
}
inline const pi_kernel *core(const ur_kernel_handle_t *List) {
  return reinterpret_cast<const pi_kernel *>(List);
}
inline const pi_program *core(const ur_program_handle_t *List) {
  return reinterpret_cast<const pi_program *>(List);
}
inline pi_event *core(ur_event_handle_t *Out) { return reinterpret_cast<pi_event *>(Out); }

// UR checks null handles and null pointers before anything else, with codes of its
// own; what the core checks next (released, foreign, wrong kind) keeps the
// contract's INVALID_<TYPE>.
#define DGLINK_UR_NOT_NULL_HANDLE(Handle)                                                          \
  do {                                                                                             \
    if ((Handle) == nullptr)                                                                       \
      return ::dglink::ur::failUr(UR_RESULT_ERROR_INVALID_NULL_HANDLE,                             \
                                  "{}: argument '{}' is null", __func__, #Handle);                 \
  } while (0)
#define DGLINK_UR_NOT_NULL_POINTER(Pointer)                                                        \
  do {                                                                                             \
    if ((Pointer) == nullptr)                                                                      \
      return ::dglink::ur::failUr(UR_RESULT_ERROR_INVALID_NULL_POINTER,                            \
                                  "{}: argument '{}' is null", __func__, #Pointer);                \
  } while (0)
// The core's answer, in UR's words.
#define DGLINK_UR_CORE(Call) return ::dglink::ur::toUr(Call)
#define DGLINK_UR_TRY(Call)                                                                        \
  do {                                                                                             \
    const pi_result DglinkCoreResult_ = (Call);                                                    \
    if (DglinkCoreResult_ != PI_SUCCESS)                                                           \
      return ::dglink::ur::toUr(DglinkCoreResult_);                                                \
  } while (0)

// Every entry point: `ur_result_t x(...) try { ... } DGLINK_UR_CATCH_ALL`; nothing thrown
// leaves the C ABI.
#define DGLINK_UR_CATCH_ALL                                                                        \
  catch (const std::bad_alloc &) {                                                                 \
    return ::dglink::ur::failUr(UR_RESULT_ERROR_OUT_OF_HOST_MEMORY, "{}: out of host memory",      \
                                __func__);                                                         \
  }                                                                                                \
  catch (const std::exception &Exception) {                                                        \
    return ::dglink::ur::failUr(UR_RESULT_ERROR_UNKNOWN, "{}: {}", __func__, Exception.what());    \
  }                                                                                                \
  catch (...) {                                                                                    \
    return ::dglink::ur::failUr(UR_RESULT_ERROR_UNKNOWN, "{}: unknown exception", __func__);       \
  }

// The answer of a UR *GetInfo query: the value's bytes into the caller's buffer, or the
// size needed; UR's codes for a buffer of size 0 or too small, and for neither output.
class InfoAnswer {
public:
  InfoAnswer(const char *Caller, size_t Size, void *Value, size_t *SizeRet)
      : Function(Caller), PropSize(Size), PropValue(Value), PropSizeRet(SizeRet) {}

  ur_result_t bytes(const void *Data, size_t Size) const;
  template <typename T> ur_result_t value(const T &Value) const {
    static_assert(std::is_trivially_copyable_v<T>, "info values are plain data");
    // Handles are answered as the pointers they are.
    return bytes(&Value, sizeof(T)); // NOLINT(bugprone-sizeof-expression)
  }
  ur_result_t boolean(bool Value) const { return value(ur_bool_t{Value}); }
  ur_result_t string(const std::string &Value) const {
    return bytes(Value.c_str(), Value.size() + 1);
  }
  template <typename T> ur_result_t array(const std::vector<T> &Values) const {
    return bytes(Values.data(), Values.size() * sizeof(T)); // NOLINT(bugprone-sizeof-expression)
  }
  // A query this face does not answer.
  ur_result_t unsupported(uint32_t Name) const;
  // Checks the outputs before the query is answered.
  ur_result_t check() const;

private:
  const char *Function;
  size_t PropSize;
  void *PropValue;
  size_t *PropSizeRet;
};

// The UR backend of the adapter's name ("opencl" -> UR_BACKEND_OPENCL).
ur_backend_t backendOf(const char *AdapterName);

} // namespace dglink::ur
