// fill.cl for NVIDIA's OpenCL as PTX: the work-item id comes from PTX special registers,
// because clang emits get_global_id() as an external call that only libclc would define.
kernel void fill(global int *Out, int Base) {
  int I = __nvvm_read_ptx_sreg_ctaid_x() * __nvvm_read_ptx_sreg_ntid_x() +
          __nvvm_read_ptx_sreg_tid_x();
  Out[I] = Base + I;
}
