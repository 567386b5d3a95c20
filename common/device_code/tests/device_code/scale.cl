// The unit tests' SPIR-V module: one kernel with a builtin call and a math function.
kernel void scale(global int *Out, int Factor) {
  size_t I = get_global_id(0);
  Out[I] = (int)I * Factor + (int)sqrt((float)I * (float)I);
}
