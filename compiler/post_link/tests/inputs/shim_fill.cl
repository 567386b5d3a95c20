// End-to-end device code: one kernel that writes a pattern, no imports.
#ifdef __NVPTX__
// NVIDIA's OpenCL does not resolve get_global_id in a PTX binary.
static inline size_t globalId(void) {
  return (size_t)__nvvm_read_ptx_sreg_ctaid_x() * (size_t)__nvvm_read_ptx_sreg_ntid_x() +
         (size_t)__nvvm_read_ptx_sreg_tid_x();
}
#else
static inline size_t globalId(void) { return get_global_id(0); }
#endif

kernel void shim_fill(global int *Out) {
  const size_t I = globalId();
  Out[I] = (int)I * 3 + 1;
}
