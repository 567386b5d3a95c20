// OpenCL C device code compiled by clang-15 for nvptx64-nvidia-nvcl: program-
// scope globals shared by the kernels, work-item functions the adapter defines.
global int counter = 0;
global int table[42];

kernel void add(global int *out, int v) {
  size_t i = get_global_id(0);
  out[i] = table[i % 42] + v + counter;
}
kernel void bump(void) { counter += 1; }
kernel void ids(global ulong *out) {
  size_t i = get_global_linear_id();
  out[4 * i + 0] = get_local_id(0);
  out[4 * i + 1] = get_group_id(0);
  out[4 * i + 2] = get_local_size(0);
  out[4 * i + 3] = get_global_size(0);
  barrier(CLK_GLOBAL_MEM_FENCE);
}
