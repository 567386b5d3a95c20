// Helpers shared by the ports of UR's CTS device programs (conformance/ur_cts, docs/ur.md):
// one OpenCL C source compiles for spir64 (SPIR-V for OpenCL and Level Zero) and for
// nvptx64 (PTX for the CUDA driver, which has no OpenCL builtin library: the indices come
// from the PTX special registers there, and the global offset from DPC++'s
// "<kernel>_with_offset" entry point, which dglink-local-args makes).
#ifndef DGLINK_UR_CTS_H
#define DGLINK_UR_CTS_H

// DPC++'s name for a kernel whose name type is a class declared in the command-group
// lambda of main (`cgh.parallel_for<class fill>(...)` inside
// `queue.submit([&](sycl::handler &cgh) {...})`): the class is local to that lambda's
// call operator. LEN_NAME is the class name with its length, e.g. 4fill.
#define UR_CTS_CGH_KERNEL(LEN_NAME) _ZTSZZ4mainENKUlRN4sycl3_V17handlerEE_clES2_E##LEN_NAME

// A 1-D sycl::id (the offset argument DPC++ keeps of a 1-D buffer accessor; the CTS sets
// it with urKernelSetArgValue, {0}). OpenCL C allows no size_t in a kernel argument: a
// ulong is size_t of both 64-bit targets.
typedef struct {
  ulong offset[1];
} ur_cts_id1;

#ifdef __NVPTX__
static inline size_t ur_cts_lid(uint d) {
  return d == 0 ? (size_t)__nvvm_read_ptx_sreg_tid_x()
                : d == 1 ? (size_t)__nvvm_read_ptx_sreg_tid_y() : (size_t)__nvvm_read_ptx_sreg_tid_z();
}
static inline size_t ur_cts_lsize(uint d) {
  return d == 0 ? (size_t)__nvvm_read_ptx_sreg_ntid_x()
                : d == 1 ? (size_t)__nvvm_read_ptx_sreg_ntid_y() : (size_t)__nvvm_read_ptx_sreg_ntid_z();
}
static inline size_t ur_cts_group(uint d) {
  return d == 0 ? (size_t)__nvvm_read_ptx_sreg_ctaid_x()
                : d == 1 ? (size_t)__nvvm_read_ptx_sreg_ctaid_y() : (size_t)__nvvm_read_ptx_sreg_ctaid_z();
}
static inline size_t ur_cts_groups(uint d) {
  return d == 0 ? (size_t)__nvvm_read_ptx_sreg_nctaid_x()
                : d == 1 ? (size_t)__nvvm_read_ptx_sreg_nctaid_y() : (size_t)__nvvm_read_ptx_sreg_nctaid_z();
}
#ifdef UR_CTS_NO_OFFSET_ENTRIES
// The stand-in without dglink-local-args: no entry point reads the offset.
static inline size_t ur_cts_offset(uint d) { return 0; }
#else
// Read from the last parameter of the kernel's "<kernel>_with_offset" entry point, which
// dglink-local-args makes for each kernel that reaches this call (0 in the kernel itself).
size_t __dglink_global_offset(uint d);
static inline size_t ur_cts_offset(uint d) { return __dglink_global_offset(d); }
#endif
static inline size_t ur_cts_gid(uint d) {
  return ur_cts_group(d) * ur_cts_lsize(d) + ur_cts_lid(d) + ur_cts_offset(d);
}
static inline size_t ur_cts_gsize(uint d) { return ur_cts_groups(d) * ur_cts_lsize(d); }
static inline void ur_cts_local_barrier(void) { __nvvm_bar_sync(0); }
#else
static inline size_t ur_cts_lid(uint d) { return get_local_id(d); }
static inline size_t ur_cts_lsize(uint d) { return get_local_size(d); }
static inline size_t ur_cts_group(uint d) { return get_group_id(d); }
static inline size_t ur_cts_offset(uint d) { return get_global_offset(d); }
static inline size_t ur_cts_gid(uint d) { return get_global_id(d); }
static inline size_t ur_cts_gsize(uint d) { return get_global_size(d); }
static inline void ur_cts_local_barrier(void) { barrier(CLK_LOCAL_MEM_FENCE); }
#endif

// SYCL's get_global_linear_id of a DIMS-dimensional kernel: the id less the offset,
// linearized with the last SYCL dimension (UR's dimension 0) varying fastest.
static inline size_t ur_cts_global_linear_id(uint dims) {
  size_t id = 0;
  for (uint d = dims; d-- > 0;)
    id = id * ur_cts_gsize(d) + (ur_cts_gid(d) - ur_cts_offset(d));
  return id;
}

#endif
