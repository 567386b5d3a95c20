// Helpers shared by the conformance suite's OpenCL C sources, so that one source
// compiles for every image target.
#ifndef DGLINK_CONFORMANCE_DEVICE_H
#define DGLINK_CONFORMANCE_DEVICE_H

#ifdef __NVPTX__
// NVIDIA's OpenCL does not resolve get_global_id in a PTX binary (clang emits it
// as an undefined function), so PTX images read the special registers directly.
// The conformance suite never launches with a global offset.
static inline size_t dglinkGlobalId(void) {
  return (size_t)__nvvm_read_ptx_sreg_ctaid_x() * (size_t)__nvvm_read_ptx_sreg_ntid_x() +
         (size_t)__nvvm_read_ptx_sreg_tid_x();
}
// The work-group's view (dimension 0) and its barrier, the same way.
static inline size_t dglinkLocalId(void) { return (size_t)__nvvm_read_ptx_sreg_tid_x(); }
static inline size_t dglinkLocalSize(void) { return (size_t)__nvvm_read_ptx_sreg_ntid_x(); }
static inline size_t dglinkGroupId(void) { return (size_t)__nvvm_read_ptx_sreg_ctaid_x(); }
static inline void dglinkLocalBarrier(void) { __nvvm_bar_sync(0); }
#else
static inline size_t dglinkGlobalId(void) { return get_global_id(0); }
static inline size_t dglinkLocalId(void) { return get_local_id(0); }
static inline size_t dglinkLocalSize(void) { return get_local_size(0); }
static inline size_t dglinkGroupId(void) { return get_group_id(0); }
static inline void dglinkLocalBarrier(void) { barrier(CLK_LOCAL_MEM_FENCE); }
#endif

#endif
