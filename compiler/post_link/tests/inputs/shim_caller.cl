// End-to-end device code: a kernel calling a function another image exports.
#ifdef __NVPTX__
static inline size_t globalId(void) {
  return (size_t)__nvvm_read_ptx_sreg_ctaid_x() * (size_t)__nvvm_read_ptx_sreg_ntid_x() +
         (size_t)__nvvm_read_ptx_sreg_tid_x();
}
#else
static inline size_t globalId(void) { return get_global_id(0); }
#endif

extern int shim_callee(int Value);

kernel void shim_caller(global int *Out) {
  const size_t I = globalId();
  Out[I] = shim_callee((int)I);
}
