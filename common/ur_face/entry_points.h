// The UR entry points dglink serves (one file per area defines them; table.cpp puts
// them into the DDI table), each over the adapter core.
#pragma once

#include "face.h"

// A handle argument the core checks next (released, foreign, wrong kind: the contract's
// INVALID_<TYPE>), after UR's null check.
#define DGLINK_UR_CHECK(Handle, PiCode)                                                            \
  DGLINK_UR_TRY(::dglink::core::checkHandle(::dglink::ur::core(Handle), PiCode, __func__, #Handle))

namespace dglink::ur {

std::vector<std::string> splitOnSpaces(const std::string &Text);

// adapter.cpp
ur_result_t adapterGet(uint32_t, ur_adapter_handle_t *, uint32_t *);
ur_result_t adapterRetain(ur_adapter_handle_t);
ur_result_t adapterRelease(ur_adapter_handle_t);
ur_result_t adapterGetLastError(ur_adapter_handle_t, const char **, int32_t *);
ur_result_t adapterGetInfo(ur_adapter_handle_t, ur_adapter_info_t, size_t, void *, size_t *);
ur_result_t platformGet(ur_adapter_handle_t, uint32_t, ur_platform_handle_t *, uint32_t *);
ur_result_t platformGetInfo(ur_platform_handle_t, ur_platform_info_t, size_t, void *, size_t *);
ur_result_t platformGetApiVersion(ur_platform_handle_t, ur_api_version_t *);
ur_result_t platformGetBackendOption(ur_platform_handle_t, const char *, const char **);
ur_result_t deviceGet(ur_platform_handle_t, ur_device_type_t, uint32_t, ur_device_handle_t *,
                      uint32_t *);
ur_result_t deviceGetInfo(ur_device_handle_t, ur_device_info_t, size_t, void *, size_t *);
ur_result_t deviceRetain(ur_device_handle_t);
ur_result_t deviceRelease(ur_device_handle_t);
ur_result_t deviceSelectBinary(ur_device_handle_t, const ur_device_binary_t *, uint32_t,
                               uint32_t *);

// context.cpp: contexts, queues, buffers, USM
ur_result_t contextCreate(uint32_t, const ur_device_handle_t *, const ur_context_properties_t *,
                          ur_context_handle_t *);
ur_result_t contextRetain(ur_context_handle_t);
ur_result_t contextRelease(ur_context_handle_t);
ur_result_t contextGetInfo(ur_context_handle_t, ur_context_info_t, size_t, void *, size_t *);
ur_result_t queueCreate(ur_context_handle_t, ur_device_handle_t, const ur_queue_properties_t *,
                        ur_queue_handle_t *);
ur_result_t queueRetain(ur_queue_handle_t);
ur_result_t queueRelease(ur_queue_handle_t);
ur_result_t queueGetInfo(ur_queue_handle_t, ur_queue_info_t, size_t, void *, size_t *);
ur_result_t queueFinish(ur_queue_handle_t);
ur_result_t queueFlush(ur_queue_handle_t);
ur_result_t memBufferCreate(ur_context_handle_t, ur_mem_flags_t, size_t,
                            const ur_buffer_properties_t *, ur_mem_handle_t *);
ur_result_t memRetain(ur_mem_handle_t);
ur_result_t memRelease(ur_mem_handle_t);
ur_result_t memGetInfo(ur_mem_handle_t, ur_mem_info_t, size_t, void *, size_t *);
ur_result_t usmHostAlloc(ur_context_handle_t, const ur_usm_desc_t *, ur_usm_pool_handle_t, size_t,
                         void **);
ur_result_t usmDeviceAlloc(ur_context_handle_t, ur_device_handle_t, const ur_usm_desc_t *,
                           ur_usm_pool_handle_t, size_t, void **);
ur_result_t usmSharedAlloc(ur_context_handle_t, ur_device_handle_t, const ur_usm_desc_t *,
                           ur_usm_pool_handle_t, size_t, void **);
ur_result_t usmFree(ur_context_handle_t, void *);

// program.cpp: programs and kernels
ur_result_t programCreateWithIL(ur_context_handle_t, const void *, size_t,
                                const ur_program_properties_t *, ur_program_handle_t *);
ur_result_t programCreateWithBinary(ur_context_handle_t, uint32_t, ur_device_handle_t *, size_t *,
                                    const uint8_t **, const ur_program_properties_t *,
                                    ur_program_handle_t *);
ur_result_t programBuild(ur_context_handle_t, ur_program_handle_t, const char *);
ur_result_t programCompile(ur_context_handle_t, ur_program_handle_t, const char *);
ur_result_t programLink(ur_context_handle_t, uint32_t, const ur_program_handle_t *, const char *,
                        ur_program_handle_t *);
ur_result_t programBuildExp(ur_program_handle_t, uint32_t, ur_device_handle_t *,
                            ur_exp_program_flags_t, const char *);
ur_result_t programCompileExp(ur_program_handle_t, uint32_t, ur_device_handle_t *,
                              ur_exp_program_flags_t, const char *);
ur_result_t programLinkExp(ur_context_handle_t, uint32_t, ur_device_handle_t *,
                           ur_exp_program_flags_t, uint32_t, const ur_program_handle_t *,
                           const char *, ur_program_handle_t *);
ur_result_t programRetain(ur_program_handle_t);
ur_result_t programRelease(ur_program_handle_t);
ur_result_t programGetInfo(ur_program_handle_t, ur_program_info_t, size_t, void *, size_t *);
ur_result_t programGetBuildInfo(ur_program_handle_t, ur_device_handle_t, ur_program_build_info_t,
                                size_t, void *, size_t *);
ur_result_t programGetGlobalVariablePointer(ur_device_handle_t, ur_program_handle_t, const char *,
                                            size_t *, void **);
ur_result_t kernelCreate(ur_program_handle_t, const char *, ur_kernel_handle_t *);
ur_result_t kernelRetain(ur_kernel_handle_t);
ur_result_t kernelRelease(ur_kernel_handle_t);
ur_result_t kernelGetInfo(ur_kernel_handle_t, ur_kernel_info_t, size_t, void *, size_t *);
ur_result_t kernelGetGroupInfo(ur_kernel_handle_t, ur_device_handle_t, ur_kernel_group_info_t,
                               size_t, void *, size_t *);

// enqueue.cpp: commands and events
ur_result_t enqueueKernelLaunchWithArgsExp(ur_queue_handle_t, ur_kernel_handle_t, uint32_t,
                                           const size_t *, const size_t *, const size_t *, uint32_t,
                                           const ur_exp_kernel_arg_properties_t *,
                                           const ur_kernel_launch_ext_properties_t *, uint32_t,
                                           const ur_event_handle_t *, ur_event_handle_t *);
ur_result_t enqueueEventsWait(ur_queue_handle_t, uint32_t, const ur_event_handle_t *,
                              ur_event_handle_t *);
ur_result_t enqueueEventsWaitWithBarrier(ur_queue_handle_t, uint32_t, const ur_event_handle_t *,
                                         ur_event_handle_t *);
ur_result_t enqueueMemBufferRead(ur_queue_handle_t, ur_mem_handle_t, bool, size_t, size_t, void *,
                                 uint32_t, const ur_event_handle_t *, ur_event_handle_t *);
ur_result_t enqueueMemBufferWrite(ur_queue_handle_t, ur_mem_handle_t, bool, size_t, size_t,
                                  const void *, uint32_t, const ur_event_handle_t *,
                                  ur_event_handle_t *);
ur_result_t enqueueUSMFill(ur_queue_handle_t, void *, size_t, const void *, size_t, uint32_t,
                           const ur_event_handle_t *, ur_event_handle_t *);
ur_result_t enqueueUSMMemcpy(ur_queue_handle_t, bool, void *, const void *, size_t, uint32_t,
                             const ur_event_handle_t *, ur_event_handle_t *);
ur_result_t enqueueDeviceGlobalVariableWrite(ur_queue_handle_t, ur_program_handle_t, const char *,
                                             bool, size_t, size_t, const void *, uint32_t,
                                             const ur_event_handle_t *, ur_event_handle_t *);
ur_result_t enqueueDeviceGlobalVariableRead(ur_queue_handle_t, ur_program_handle_t, const char *,
                                            bool, size_t, size_t, void *, uint32_t,
                                            const ur_event_handle_t *, ur_event_handle_t *);
ur_result_t eventWait(uint32_t, const ur_event_handle_t *);
ur_result_t eventGetInfo(ur_event_handle_t, ur_event_info_t, size_t, void *, size_t *);
ur_result_t eventRetain(ur_event_handle_t);
ur_result_t eventRelease(ur_event_handle_t);

} // namespace dglink::ur
