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

// What the command entry points share (enqueue.cpp).
// UR's wait list rules, checked before the core looks at the events.
ur_result_t checkWaitList(const char *Function, uint32_t Count, const ur_event_handle_t *List);
// The core's answer for a buffer command whose size problems UR names
// UR_RESULT_ERROR_INVALID_SIZE (ranges, regions, pitches, patterns): every
// PI_ERROR_INVALID_VALUE of these entry points is one, since UR's null checks came first.
ur_result_t sizeProblem(pi_result Result);
// The core answers a USM range past the allocation with the contract's BUFFER_SIZE; UR's
// spec names it INVALID_SIZE.
ur_result_t usmHintResult(pi_result Result);
pi_buff_rect_offset_struct rectOffset(ur_rect_offset_t Offset);
pi_buff_rect_region_struct rectRegion(ur_rect_region_t Region);

#define DGLINK_UR_WAIT_LIST(Count, List)                                                           \
  do {                                                                                             \
    if (const ur_result_t DglinkWait_ = ::dglink::ur::checkWaitList(__func__, Count, List);        \
        DglinkWait_ != UR_RESULT_SUCCESS)                                                          \
      return DglinkWait_;                                                                          \
  } while (0)

// adapter.cpp
ur_result_t urAdapterGet(uint32_t, ur_adapter_handle_t *, uint32_t *);
ur_result_t urAdapterRetain(ur_adapter_handle_t);
ur_result_t urAdapterRelease(ur_adapter_handle_t);
ur_result_t urAdapterGetLastError(ur_adapter_handle_t, const char **, int32_t *);
ur_result_t urAdapterGetInfo(ur_adapter_handle_t, ur_adapter_info_t, size_t, void *, size_t *);
ur_result_t urPlatformGet(ur_adapter_handle_t, uint32_t, ur_platform_handle_t *, uint32_t *);
ur_result_t urPlatformGetInfo(ur_platform_handle_t, ur_platform_info_t, size_t, void *, size_t *);
ur_result_t urPlatformGetApiVersion(ur_platform_handle_t, ur_api_version_t *);
ur_result_t urPlatformGetBackendOption(ur_platform_handle_t, const char *, const char **);
ur_result_t urDeviceGet(ur_platform_handle_t, ur_device_type_t, uint32_t, ur_device_handle_t *,
                        uint32_t *);
ur_result_t urDeviceGetInfo(ur_device_handle_t, ur_device_info_t, size_t, void *, size_t *);
ur_result_t urDeviceRetain(ur_device_handle_t);
ur_result_t urDeviceRelease(ur_device_handle_t);
ur_result_t urDeviceGetGlobalTimestamps(ur_device_handle_t, uint64_t *, uint64_t *);
ur_result_t urDeviceSelectBinary(ur_device_handle_t, const ur_device_binary_t *, uint32_t,
                                 uint32_t *);

// context.cpp: contexts, queues, buffers, USM
ur_result_t urContextCreate(uint32_t, const ur_device_handle_t *, const ur_context_properties_t *,
                            ur_context_handle_t *);
ur_result_t urContextRetain(ur_context_handle_t);
ur_result_t urContextRelease(ur_context_handle_t);
ur_result_t urContextGetInfo(ur_context_handle_t, ur_context_info_t, size_t, void *, size_t *);
ur_result_t urContextSetExtendedDeleter(ur_context_handle_t, ur_context_extended_deleter_t, void *);
ur_result_t urQueueCreate(ur_context_handle_t, ur_device_handle_t, const ur_queue_properties_t *,
                          ur_queue_handle_t *);
ur_result_t urQueueRetain(ur_queue_handle_t);
ur_result_t urQueueRelease(ur_queue_handle_t);
ur_result_t urQueueGetInfo(ur_queue_handle_t, ur_queue_info_t, size_t, void *, size_t *);
ur_result_t urQueueFinish(ur_queue_handle_t);
ur_result_t urQueueFlush(ur_queue_handle_t);
ur_result_t urMemBufferCreate(ur_context_handle_t, ur_mem_flags_t, size_t,
                              const ur_buffer_properties_t *, ur_mem_handle_t *);
ur_result_t urMemBufferPartition(ur_mem_handle_t, ur_mem_flags_t, ur_buffer_create_type_t,
                                 const ur_buffer_region_t *, ur_mem_handle_t *);
ur_result_t urMemRetain(ur_mem_handle_t);
ur_result_t urMemRelease(ur_mem_handle_t);
ur_result_t urMemGetInfo(ur_mem_handle_t, ur_mem_info_t, size_t, void *, size_t *);
// image.cpp: images and samplers
ur_result_t urMemImageCreate(ur_context_handle_t, ur_mem_flags_t, const ur_image_format_t *,
                             const ur_image_desc_t *, void *, ur_mem_handle_t *);
ur_result_t urMemImageCreateWithNativeHandle(ur_native_handle_t, ur_context_handle_t,
                                             const ur_image_format_t *, const ur_image_desc_t *,
                                             const ur_mem_native_properties_t *, ur_mem_handle_t *);
ur_result_t urMemImageGetInfo(ur_mem_handle_t, ur_image_info_t, size_t, void *, size_t *);
ur_result_t urEnqueueMemImageRead(ur_queue_handle_t, ur_mem_handle_t, bool, ur_rect_offset_t,
                                  ur_rect_region_t, size_t, size_t, void *, uint32_t,
                                  const ur_event_handle_t *, ur_event_handle_t *);
ur_result_t urEnqueueMemImageWrite(ur_queue_handle_t, ur_mem_handle_t, bool, ur_rect_offset_t,
                                   ur_rect_region_t, size_t, size_t, void *, uint32_t,
                                   const ur_event_handle_t *, ur_event_handle_t *);
ur_result_t urEnqueueMemImageCopy(ur_queue_handle_t, ur_mem_handle_t, ur_mem_handle_t,
                                  ur_rect_offset_t, ur_rect_offset_t, ur_rect_region_t, uint32_t,
                                  const ur_event_handle_t *, ur_event_handle_t *);
ur_result_t urSamplerCreate(ur_context_handle_t, const ur_sampler_desc_t *, ur_sampler_handle_t *);
ur_result_t urSamplerRetain(ur_sampler_handle_t);
ur_result_t urSamplerRelease(ur_sampler_handle_t);
ur_result_t urSamplerGetInfo(ur_sampler_handle_t, ur_sampler_info_t, size_t, void *, size_t *);
ur_result_t urSamplerGetNativeHandle(ur_sampler_handle_t, ur_native_handle_t *);
ur_result_t urSamplerCreateWithNativeHandle(ur_native_handle_t, ur_context_handle_t,
                                            const ur_sampler_native_properties_t *,
                                            ur_sampler_handle_t *);
ur_result_t urUSMPoolCreate(ur_context_handle_t, ur_usm_pool_desc_t *, ur_usm_pool_handle_t *);
ur_result_t urUSMPoolRetain(ur_usm_pool_handle_t);
ur_result_t urUSMPoolRelease(ur_usm_pool_handle_t);
ur_result_t urUSMPoolGetInfo(ur_usm_pool_handle_t, ur_usm_pool_info_t, size_t, void *, size_t *);
ur_result_t urUSMHostAlloc(ur_context_handle_t, const ur_usm_desc_t *, ur_usm_pool_handle_t, size_t,
                           void **);
ur_result_t urUSMDeviceAlloc(ur_context_handle_t, ur_device_handle_t, const ur_usm_desc_t *,
                             ur_usm_pool_handle_t, size_t, void **);
ur_result_t urUSMSharedAlloc(ur_context_handle_t, ur_device_handle_t, const ur_usm_desc_t *,
                             ur_usm_pool_handle_t, size_t, void **);
ur_result_t urUSMFree(ur_context_handle_t, void *);
ur_result_t urUSMGetMemAllocInfo(ur_context_handle_t, const void *, ur_usm_alloc_info_t, size_t,
                                 void *, size_t *);

// program.cpp: programs and kernels
ur_result_t urProgramCreateWithIL(ur_context_handle_t, const void *, size_t,
                                  const ur_program_properties_t *, ur_program_handle_t *);
ur_result_t urProgramCreateWithBinary(ur_context_handle_t, uint32_t, ur_device_handle_t *, size_t *,
                                      const uint8_t **, const ur_program_properties_t *,
                                      ur_program_handle_t *);
ur_result_t urProgramBuild(ur_context_handle_t, ur_program_handle_t, const char *);
ur_result_t urProgramCompile(ur_context_handle_t, ur_program_handle_t, const char *);
ur_result_t urProgramLink(ur_context_handle_t, uint32_t, const ur_program_handle_t *, const char *,
                          ur_program_handle_t *);
ur_result_t urProgramBuildExp(ur_program_handle_t, uint32_t, ur_device_handle_t *,
                              ur_exp_program_flags_t, const char *);
ur_result_t urProgramCompileExp(ur_program_handle_t, uint32_t, ur_device_handle_t *,
                                ur_exp_program_flags_t, const char *);
ur_result_t urProgramLinkExp(ur_context_handle_t, uint32_t, ur_device_handle_t *,
                             ur_exp_program_flags_t, uint32_t, const ur_program_handle_t *,
                             const char *, ur_program_handle_t *);
ur_result_t urProgramRetain(ur_program_handle_t);
ur_result_t urProgramRelease(ur_program_handle_t);
ur_result_t urProgramSetSpecializationConstants(ur_program_handle_t, uint32_t,
                                                const ur_specialization_constant_info_t *);
ur_result_t urProgramGetInfo(ur_program_handle_t, ur_program_info_t, size_t, void *, size_t *);
ur_result_t urProgramGetBuildInfo(ur_program_handle_t, ur_device_handle_t, ur_program_build_info_t,
                                  size_t, void *, size_t *);
ur_result_t urProgramGetGlobalVariablePointer(ur_device_handle_t, ur_program_handle_t, const char *,
                                              size_t *, void **);
ur_result_t urKernelCreate(ur_program_handle_t, const char *, ur_kernel_handle_t *);
ur_result_t urKernelRetain(ur_kernel_handle_t);
ur_result_t urKernelRelease(ur_kernel_handle_t);
ur_result_t urKernelGetInfo(ur_kernel_handle_t, ur_kernel_info_t, size_t, void *, size_t *);
ur_result_t urKernelGetSubGroupInfo(ur_kernel_handle_t, ur_device_handle_t,
                                    ur_kernel_sub_group_info_t, size_t, void *, size_t *);
ur_result_t urKernelGetGroupInfo(ur_kernel_handle_t, ur_device_handle_t, ur_kernel_group_info_t,
                                 size_t, void *, size_t *);
ur_result_t urKernelGetSuggestedLocalWorkSize(ur_kernel_handle_t, ur_queue_handle_t, uint32_t,
                                              const size_t *, const size_t *, size_t *);
ur_result_t urKernelSetExecInfo(ur_kernel_handle_t, ur_kernel_exec_info_t, size_t,
                                const ur_kernel_exec_info_properties_t *, const void *);
ur_result_t urKernelSuggestMaxCooperativeGroupCount(ur_kernel_handle_t, ur_device_handle_t,
                                                    uint32_t, const size_t *, size_t, uint32_t *);

// enqueue.cpp: commands and events
ur_result_t urEnqueueKernelLaunchWithArgsExp(ur_queue_handle_t, ur_kernel_handle_t, uint32_t,
                                             const size_t *, const size_t *, const size_t *,
                                             uint32_t, const ur_exp_kernel_arg_properties_t *,
                                             const ur_kernel_launch_ext_properties_t *, uint32_t,
                                             const ur_event_handle_t *, ur_event_handle_t *);
ur_result_t urEnqueueEventsWait(ur_queue_handle_t, uint32_t, const ur_event_handle_t *,
                                ur_event_handle_t *);
ur_result_t urEnqueueEventsWaitWithBarrier(ur_queue_handle_t, uint32_t, const ur_event_handle_t *,
                                           ur_event_handle_t *);
ur_result_t urEnqueueMemBufferRead(ur_queue_handle_t, ur_mem_handle_t, bool, size_t, size_t, void *,
                                   uint32_t, const ur_event_handle_t *, ur_event_handle_t *);
ur_result_t urEnqueueMemBufferWrite(ur_queue_handle_t, ur_mem_handle_t, bool, size_t, size_t,
                                    const void *, uint32_t, const ur_event_handle_t *,
                                    ur_event_handle_t *);
ur_result_t urEnqueueMemBufferCopy(ur_queue_handle_t, ur_mem_handle_t, ur_mem_handle_t, size_t,
                                   size_t, size_t, uint32_t, const ur_event_handle_t *,
                                   ur_event_handle_t *);
ur_result_t urEnqueueMemBufferFill(ur_queue_handle_t, ur_mem_handle_t, const void *, size_t, size_t,
                                   size_t, uint32_t, const ur_event_handle_t *,
                                   ur_event_handle_t *);
ur_result_t urEnqueueMemBufferMap(ur_queue_handle_t, ur_mem_handle_t, bool, ur_map_flags_t, size_t,
                                  size_t, uint32_t, const ur_event_handle_t *, ur_event_handle_t *,
                                  void **);
ur_result_t urEnqueueMemUnmap(ur_queue_handle_t, ur_mem_handle_t, void *, uint32_t,
                              const ur_event_handle_t *, ur_event_handle_t *);
ur_result_t urEnqueueMemBufferReadRect(ur_queue_handle_t, ur_mem_handle_t, bool, ur_rect_offset_t,
                                       ur_rect_offset_t, ur_rect_region_t, size_t, size_t, size_t,
                                       size_t, void *, uint32_t, const ur_event_handle_t *,
                                       ur_event_handle_t *);
ur_result_t urEnqueueMemBufferWriteRect(ur_queue_handle_t, ur_mem_handle_t, bool, ur_rect_offset_t,
                                        ur_rect_offset_t, ur_rect_region_t, size_t, size_t, size_t,
                                        size_t, void *, uint32_t, const ur_event_handle_t *,
                                        ur_event_handle_t *);
ur_result_t urEnqueueMemBufferCopyRect(ur_queue_handle_t, ur_mem_handle_t, ur_mem_handle_t,
                                       ur_rect_offset_t, ur_rect_offset_t, ur_rect_region_t, size_t,
                                       size_t, size_t, size_t, uint32_t, const ur_event_handle_t *,
                                       ur_event_handle_t *);
ur_result_t urEnqueueEventsWaitWithBarrierExt(ur_queue_handle_t,
                                              const ur_exp_enqueue_ext_properties_t *, uint32_t,
                                              const ur_event_handle_t *, ur_event_handle_t *);
ur_result_t urEnqueueUSMFill(ur_queue_handle_t, void *, size_t, const void *, size_t, uint32_t,
                             const ur_event_handle_t *, ur_event_handle_t *);
ur_result_t urEnqueueUSMPrefetch(ur_queue_handle_t, const void *, size_t, ur_usm_migration_flags_t,
                                 uint32_t, const ur_event_handle_t *, ur_event_handle_t *);
ur_result_t urEnqueueUSMAdvise(ur_queue_handle_t, const void *, size_t, ur_usm_advice_flags_t,
                               ur_event_handle_t *);
ur_result_t urEnqueueUSMMemcpy(ur_queue_handle_t, bool, void *, const void *, size_t, uint32_t,
                               const ur_event_handle_t *, ur_event_handle_t *);
ur_result_t urEnqueueUSMFill2D(ur_queue_handle_t, void *, size_t, size_t, const void *, size_t,
                               size_t, uint32_t, const ur_event_handle_t *, ur_event_handle_t *);
ur_result_t urEnqueueUSMMemcpy2D(ur_queue_handle_t, bool, void *, size_t, const void *, size_t,
                                 size_t, size_t, uint32_t, const ur_event_handle_t *,
                                 ur_event_handle_t *);
ur_result_t urEnqueueTimestampRecordingExp(ur_queue_handle_t, bool, uint32_t,
                                           const ur_event_handle_t *, ur_event_handle_t *);
ur_result_t urEnqueueDeviceGlobalVariableWrite(ur_queue_handle_t, ur_program_handle_t, const char *,
                                               bool, size_t, size_t, const void *, uint32_t,
                                               const ur_event_handle_t *, ur_event_handle_t *);
ur_result_t urEnqueueDeviceGlobalVariableRead(ur_queue_handle_t, ur_program_handle_t, const char *,
                                              bool, size_t, size_t, void *, uint32_t,
                                              const ur_event_handle_t *, ur_event_handle_t *);
ur_result_t urEventWait(uint32_t, const ur_event_handle_t *);
ur_result_t urEventGetInfo(ur_event_handle_t, ur_event_info_t, size_t, void *, size_t *);
ur_result_t urEventRetain(ur_event_handle_t);
ur_result_t urEventRelease(ur_event_handle_t);
ur_result_t urEventGetProfilingInfo(ur_event_handle_t, ur_profiling_info_t, size_t, void *,
                                    size_t *);
ur_result_t urEventSetCallback(ur_event_handle_t, ur_execution_info_t, ur_event_callback_t, void *);

// virtual_memory.cpp: virtual and physical memory, the context's USM copy
ur_result_t urVirtualMemGranularityGetInfo(ur_context_handle_t, ur_device_handle_t, size_t,
                                           ur_virtual_mem_granularity_info_t, size_t, void *,
                                           size_t *);
ur_result_t urVirtualMemReserve(ur_context_handle_t, const void *, size_t, void **);
ur_result_t urVirtualMemFree(ur_context_handle_t, const void *, size_t);
ur_result_t urVirtualMemMap(ur_context_handle_t, const void *, size_t, ur_physical_mem_handle_t,
                            size_t, ur_virtual_mem_access_flags_t);
ur_result_t urVirtualMemUnmap(ur_context_handle_t, const void *, size_t);
ur_result_t urVirtualMemSetAccess(ur_context_handle_t, const void *, size_t,
                                  ur_virtual_mem_access_flags_t);
ur_result_t urVirtualMemGetInfo(ur_context_handle_t, const void *, size_t, ur_virtual_mem_info_t,
                                size_t, void *, size_t *);
ur_result_t urPhysicalMemCreate(ur_context_handle_t, ur_device_handle_t, size_t,
                                const ur_physical_mem_properties_t *, ur_physical_mem_handle_t *);
ur_result_t urPhysicalMemRetain(ur_physical_mem_handle_t);
ur_result_t urPhysicalMemRelease(ur_physical_mem_handle_t);
ur_result_t urPhysicalMemGetInfo(ur_physical_mem_handle_t, ur_physical_mem_info_t, size_t, void *,
                                 size_t *);
ur_result_t urUSMContextMemcpyExp(ur_context_handle_t, void *, const void *, size_t);

// native.cpp: the driver's own handles
ur_result_t urPlatformGetNativeHandle(ur_platform_handle_t, ur_native_handle_t *);
ur_result_t urDeviceGetNativeHandle(ur_device_handle_t, ur_native_handle_t *);
ur_result_t urContextGetNativeHandle(ur_context_handle_t, ur_native_handle_t *);
ur_result_t urQueueGetNativeHandle(ur_queue_handle_t, ur_queue_native_desc_t *,
                                   ur_native_handle_t *);
ur_result_t urMemGetNativeHandle(ur_mem_handle_t, ur_device_handle_t, ur_native_handle_t *);
ur_result_t urProgramGetNativeHandle(ur_program_handle_t, ur_native_handle_t *);
ur_result_t urKernelGetNativeHandle(ur_kernel_handle_t, ur_native_handle_t *);
ur_result_t urEventGetNativeHandle(ur_event_handle_t, ur_native_handle_t *);
ur_result_t urPlatformCreateWithNativeHandle(ur_native_handle_t, ur_adapter_handle_t,
                                             const ur_platform_native_properties_t *,
                                             ur_platform_handle_t *);
ur_result_t urDeviceCreateWithNativeHandle(ur_native_handle_t, ur_adapter_handle_t,
                                           const ur_device_native_properties_t *,
                                           ur_device_handle_t *);
ur_result_t urQueueCreateWithNativeHandle(ur_native_handle_t, ur_context_handle_t,
                                          ur_device_handle_t, const ur_queue_native_properties_t *,
                                          ur_queue_handle_t *);
ur_result_t urEventCreateWithNativeHandle(ur_native_handle_t, ur_context_handle_t,
                                          const ur_event_native_properties_t *,
                                          ur_event_handle_t *);
ur_result_t urContextCreateWithNativeHandle(ur_native_handle_t, ur_adapter_handle_t, uint32_t,
                                            const ur_device_handle_t *,
                                            const ur_context_native_properties_t *,
                                            ur_context_handle_t *);
ur_result_t urMemBufferCreateWithNativeHandle(ur_native_handle_t, ur_context_handle_t,
                                              const ur_mem_native_properties_t *,
                                              ur_mem_handle_t *);
ur_result_t urProgramCreateWithNativeHandle(ur_native_handle_t, ur_context_handle_t,
                                            const ur_program_native_properties_t *,
                                            ur_program_handle_t *);
ur_result_t urKernelCreateWithNativeHandle(ur_native_handle_t, ur_context_handle_t,
                                           ur_program_handle_t,
                                           const ur_kernel_native_properties_t *,
                                           ur_kernel_handle_t *);

// command_buffer.cpp: command buffers
ur_result_t urCommandBufferCreateExp(ur_context_handle_t, ur_device_handle_t,
                                     const ur_exp_command_buffer_desc_t *,
                                     ur_exp_command_buffer_handle_t *);
ur_result_t urCommandBufferRetainExp(ur_exp_command_buffer_handle_t);
ur_result_t urCommandBufferReleaseExp(ur_exp_command_buffer_handle_t);
ur_result_t urCommandBufferFinalizeExp(ur_exp_command_buffer_handle_t);
ur_result_t urCommandBufferGetInfoExp(ur_exp_command_buffer_handle_t, ur_exp_command_buffer_info_t,
                                      size_t, void *, size_t *);
ur_result_t urCommandBufferAppendKernelLaunchExp(
    ur_exp_command_buffer_handle_t, ur_kernel_handle_t, uint32_t, const size_t *, const size_t *,
    const size_t *, uint32_t, ur_kernel_handle_t *, uint32_t,
    const ur_exp_command_buffer_sync_point_t *, uint32_t, const ur_event_handle_t *,
    ur_exp_command_buffer_sync_point_t *, ur_event_handle_t *,
    ur_exp_command_buffer_command_handle_t *);
ur_result_t urCommandBufferAppendKernelLaunchWithArgsExp(
    ur_exp_command_buffer_handle_t, ur_kernel_handle_t, uint32_t, const size_t *, const size_t *,
    const size_t *, uint32_t, const ur_exp_kernel_arg_properties_t *, uint32_t,
    ur_kernel_handle_t *, uint32_t, const ur_exp_command_buffer_sync_point_t *, uint32_t,
    const ur_event_handle_t *, ur_exp_command_buffer_sync_point_t *, ur_event_handle_t *,
    ur_exp_command_buffer_command_handle_t *);
ur_result_t
urCommandBufferAppendUSMMemcpyExp(ur_exp_command_buffer_handle_t, void *, const void *, size_t,
                                  uint32_t, const ur_exp_command_buffer_sync_point_t *, uint32_t,
                                  const ur_event_handle_t *, ur_exp_command_buffer_sync_point_t *,
                                  ur_event_handle_t *, ur_exp_command_buffer_command_handle_t *);
ur_result_t urCommandBufferAppendUSMFillExp(ur_exp_command_buffer_handle_t, void *, const void *,
                                            size_t, size_t, uint32_t,
                                            const ur_exp_command_buffer_sync_point_t *, uint32_t,
                                            const ur_event_handle_t *,
                                            ur_exp_command_buffer_sync_point_t *,
                                            ur_event_handle_t *,
                                            ur_exp_command_buffer_command_handle_t *);
ur_result_t urCommandBufferAppendUSMPrefetchExp(ur_exp_command_buffer_handle_t, const void *,
                                                size_t, ur_usm_migration_flags_t, uint32_t,
                                                const ur_exp_command_buffer_sync_point_t *,
                                                uint32_t, const ur_event_handle_t *,
                                                ur_exp_command_buffer_sync_point_t *,
                                                ur_event_handle_t *,
                                                ur_exp_command_buffer_command_handle_t *);
ur_result_t urCommandBufferAppendUSMAdviseExp(ur_exp_command_buffer_handle_t, const void *, size_t,
                                              ur_usm_advice_flags_t, uint32_t,
                                              const ur_exp_command_buffer_sync_point_t *, uint32_t,
                                              const ur_event_handle_t *,
                                              ur_exp_command_buffer_sync_point_t *,
                                              ur_event_handle_t *,
                                              ur_exp_command_buffer_command_handle_t *);
ur_result_t urCommandBufferAppendMemBufferCopyExp(ur_exp_command_buffer_handle_t, ur_mem_handle_t,
                                                  ur_mem_handle_t, size_t, size_t, size_t, uint32_t,
                                                  const ur_exp_command_buffer_sync_point_t *,
                                                  uint32_t, const ur_event_handle_t *,
                                                  ur_exp_command_buffer_sync_point_t *,
                                                  ur_event_handle_t *,
                                                  ur_exp_command_buffer_command_handle_t *);
ur_result_t urCommandBufferAppendMemBufferWriteExp(ur_exp_command_buffer_handle_t, ur_mem_handle_t,
                                                   size_t, size_t, const void *, uint32_t,
                                                   const ur_exp_command_buffer_sync_point_t *,
                                                   uint32_t, const ur_event_handle_t *,
                                                   ur_exp_command_buffer_sync_point_t *,
                                                   ur_event_handle_t *,
                                                   ur_exp_command_buffer_command_handle_t *);
ur_result_t urCommandBufferAppendMemBufferReadExp(ur_exp_command_buffer_handle_t, ur_mem_handle_t,
                                                  size_t, size_t, void *, uint32_t,
                                                  const ur_exp_command_buffer_sync_point_t *,
                                                  uint32_t, const ur_event_handle_t *,
                                                  ur_exp_command_buffer_sync_point_t *,
                                                  ur_event_handle_t *,
                                                  ur_exp_command_buffer_command_handle_t *);
ur_result_t urCommandBufferAppendMemBufferCopyRectExp(
    ur_exp_command_buffer_handle_t, ur_mem_handle_t, ur_mem_handle_t, ur_rect_offset_t,
    ur_rect_offset_t, ur_rect_region_t, size_t, size_t, size_t, size_t, uint32_t,
    const ur_exp_command_buffer_sync_point_t *, uint32_t, const ur_event_handle_t *,
    ur_exp_command_buffer_sync_point_t *, ur_event_handle_t *,
    ur_exp_command_buffer_command_handle_t *);
ur_result_t urCommandBufferAppendMemBufferWriteRectExp(
    ur_exp_command_buffer_handle_t, ur_mem_handle_t, ur_rect_offset_t, ur_rect_offset_t,
    ur_rect_region_t, size_t, size_t, size_t, size_t, void *, uint32_t,
    const ur_exp_command_buffer_sync_point_t *, uint32_t, const ur_event_handle_t *,
    ur_exp_command_buffer_sync_point_t *, ur_event_handle_t *,
    ur_exp_command_buffer_command_handle_t *);
ur_result_t urCommandBufferAppendMemBufferReadRectExp(
    ur_exp_command_buffer_handle_t, ur_mem_handle_t, ur_rect_offset_t, ur_rect_offset_t,
    ur_rect_region_t, size_t, size_t, size_t, size_t, void *, uint32_t,
    const ur_exp_command_buffer_sync_point_t *, uint32_t, const ur_event_handle_t *,
    ur_exp_command_buffer_sync_point_t *, ur_event_handle_t *,
    ur_exp_command_buffer_command_handle_t *);
ur_result_t urCommandBufferAppendMemBufferFillExp(ur_exp_command_buffer_handle_t, ur_mem_handle_t,
                                                  const void *, size_t, size_t, size_t, uint32_t,
                                                  const ur_exp_command_buffer_sync_point_t *,
                                                  uint32_t, const ur_event_handle_t *,
                                                  ur_exp_command_buffer_sync_point_t *,
                                                  ur_event_handle_t *,
                                                  ur_exp_command_buffer_command_handle_t *);
ur_result_t urEnqueueCommandBufferExp(ur_queue_handle_t, ur_exp_command_buffer_handle_t, uint32_t,
                                      const ur_event_handle_t *, ur_event_handle_t *);
ur_result_t
urCommandBufferUpdateKernelLaunchExp(ur_exp_command_buffer_handle_t, uint32_t,
                                     const ur_exp_command_buffer_update_kernel_launch_desc_t *);
ur_result_t urCommandBufferUpdateSignalEventExp(ur_exp_command_buffer_command_handle_t,
                                                ur_event_handle_t *);
ur_result_t urCommandBufferUpdateWaitEventsExp(ur_exp_command_buffer_command_handle_t, uint32_t,
                                               const ur_event_handle_t *);

} // namespace dglink::ur
