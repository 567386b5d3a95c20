// Helpers shared by the conformance suite's OpenCL C sources, so that one source
// compiles for every image target.
#ifndef DGLINK_CONFORMANCE_DEVICE_H
#define DGLINK_CONFORMANCE_DEVICE_H

#ifdef __NVPTX__
// NVIDIA's OpenCL does not resolve get_global_id in a PTX binary (clang emits it
// as an undefined function), so PTX images read the special registers directly.
// dglinkGlobalId leaves the global offset out (the scenarios using it launch with none);
// dglinkOffsetGlobalId adds it (below).
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

#if defined(__NVPTX__) || defined(__AMDGCN__)
// The launch's global offset on CUDA and HIP: the shim gives each kernel that reaches
// this call DPC++'s "<kernel>_with_offset" entry point, whose last parameter is the
// offset and which the adapters launch for a non-zero one; the kernel itself reads 0
// (compiler/post_link/global_offset.cpp). NVIDIA's OpenCL launches PTX with offset 0 only.
size_t __dglink_global_offset(uint d);
static inline size_t dglinkGlobalOffset(uint d) { return __dglink_global_offset(d); }
#ifdef __NVPTX__
static inline size_t dglinkOffsetGlobalId(uint d) {
  const size_t Group = d == 0   ? (size_t)__nvvm_read_ptx_sreg_ctaid_x()
                       : d == 1 ? (size_t)__nvvm_read_ptx_sreg_ctaid_y()
                                : (size_t)__nvvm_read_ptx_sreg_ctaid_z();
  const size_t Size = d == 0   ? (size_t)__nvvm_read_ptx_sreg_ntid_x()
                      : d == 1 ? (size_t)__nvvm_read_ptx_sreg_ntid_y()
                               : (size_t)__nvvm_read_ptx_sreg_ntid_z();
  const size_t Local = d == 0   ? (size_t)__nvvm_read_ptx_sreg_tid_x()
                       : d == 1 ? (size_t)__nvvm_read_ptx_sreg_tid_y()
                                : (size_t)__nvvm_read_ptx_sreg_tid_z();
  return Group * Size + Local + dglinkGlobalOffset(d);
}
#else
// HIP launches with the code object's hidden offset 0: the ids without it, plus DPC++'s.
static inline size_t dglinkOffsetGlobalId(uint d) {
  return get_group_id(d) * get_local_size(d) + get_local_id(d) + dglinkGlobalOffset(d);
}
#endif
#else
static inline size_t dglinkGlobalOffset(uint d) { return get_global_offset(d); }
static inline size_t dglinkOffsetGlobalId(uint d) { return get_global_id(d); }
#endif

#endif
