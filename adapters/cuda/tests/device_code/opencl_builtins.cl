// Calls every OpenCL work-item function the adapter defines for nvcl PTX.
kernel void all_builtins(global ulong *out) {
  out[0] = get_global_id(0); out[1] = get_local_id(1); out[2] = get_group_id(2);
  out[3] = get_local_size(0); out[4] = get_global_size(1); out[5] = get_num_groups(2);
  out[6] = get_work_dim(); out[7] = get_global_offset(0); out[8] = get_enqueued_local_size(0);
  out[9] = get_global_linear_id(); out[10] = get_local_linear_id();
  barrier(CLK_LOCAL_MEM_FENCE); work_group_barrier(CLK_GLOBAL_MEM_FENCE);
  work_group_barrier(CLK_GLOBAL_MEM_FENCE, memory_scope_work_group);
  mem_fence(CLK_GLOBAL_MEM_FENCE); read_mem_fence(CLK_LOCAL_MEM_FENCE);
  write_mem_fence(CLK_LOCAL_MEM_FENCE);
}
