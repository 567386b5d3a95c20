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
#else
static inline size_t dglinkGlobalId(void) { return get_global_id(0); }
#endif

#endif
