// Contexts: one device each, a ze_context_handle_t, its recycled events and an
// immediate command list for copies outside any queue.
#include "handles.h"

#include <dglink/support/info.h>

namespace dglink::level_zero {

void releaseContext(_pi_context *Context) {
  if (!dropReference(Context))
    return;
  if (Context->InitList != nullptr)
    ze().zeCommandListDestroy(Context->InitList);
  for (ze_event_handle_t Event : Context->AllEvents)
    ze().zeEventDestroy(Event);
  for (ze_event_pool_handle_t Pool : Context->EventPools)
    ze().zeEventPoolDestroy(Pool);
  ze().zeContextDestroy(Context->Context);
  delete Context;
}

} // namespace dglink::level_zero

using namespace dglink::level_zero;

extern "C" PI_API_EXPORT pi_result piContextCreate(const pi_context_properties *Properties,
                                                   pi_uint32 NumDevices, const pi_device *Devices,
                                                   pi_context *RetContext) {
  DGLINK_TRY(dglink::checkContextCreate(Properties, NumDevices, Devices, RetContext,
                                        &PluginFunctions, AdapterLabel, "dglink Level Zero"));
  ze_context_desc_t Desc = {};
  Desc.stype = ZE_STRUCTURE_TYPE_CONTEXT_DESC;
  ze_context_handle_t Handle = nullptr;
  DGLINK_ZE(zeContextCreate, Devices[0]->Platform->Driver, &Desc, &Handle);
  auto *Context = new _pi_context();
  Context->Device = Devices[0];
  Context->Context = Handle;
  ze_command_queue_desc_t ListDesc = {};
  ListDesc.stype = ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC;
  ListDesc.mode = ZE_COMMAND_QUEUE_MODE_DEFAULT;
  const ze_result_t Result =
      ze().zeCommandListCreateImmediate(Handle, Devices[0]->Device, &ListDesc, &Context->InitList);
  if (Result != ZE_RESULT_SUCCESS) {
    releaseContext(Context);
    return zeError(Result, "zeCommandListCreateImmediate");
  }
  *RetContext = Context;
  return PI_SUCCESS;
}

extern "C" PI_API_EXPORT pi_result piContextGetInfo(pi_context Context, pi_context_info ParamName,
                                                    size_t ParamValueSize, void *ParamValue,
                                                    size_t *ParamValueSizeRet) {
  DGLINK_ZE_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  switch (ParamName) {
  case PI_CONTEXT_INFO_NUM_DEVICES:
    return dglink::returnInfo(pi_uint32{1}, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_CONTEXT_INFO_DEVICES:
    return dglink::returnInfo(static_cast<pi_device>(Context->Device), ParamValueSize, ParamValue,
                              ParamValueSizeRet);
  case PI_CONTEXT_INFO_REFERENCE_COUNT:
    return dglink::returnInfo(Context->RefCount.load(), ParamValueSize, ParamValue,
                              ParamValueSizeRet);
  }
  return dglink::fail(PI_ERROR_INVALID_VALUE, "piContextGetInfo: unknown parameter {:#x}",
                      static_cast<unsigned>(ParamName));
}

extern "C" PI_API_EXPORT pi_result piContextRetain(pi_context Context) {
  DGLINK_ZE_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  retain(Context);
  return PI_SUCCESS;
}

extern "C" PI_API_EXPORT pi_result piContextRelease(pi_context Context) {
  DGLINK_ZE_CHECK_HANDLE(Context, PI_ERROR_INVALID_CONTEXT);
  releaseContext(Context);
  return PI_SUCCESS;
}
