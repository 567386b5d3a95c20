// The SPIR-V intake benchmark's device code: a few kernels of the size a SYCL program's
// image has (work-item builtins, math, atomics, local memory, a helper function).
int mix(int A, int B) { return (A * 31) ^ (B + 7); }

kernel void fill(global int *Out, int Base) {
  size_t I = get_global_id(0);
  Out[I] = mix(Base, (int)I);
}

kernel void saxpy(global float *Y, global const float *X, float A) {
  size_t I = get_global_id(0);
  Y[I] = fma(A, X[I], Y[I]) + sqrt(fabs(X[I]));
}

kernel void histogram(global const int *In, global int *Bins, int NumBins) {
  size_t I = get_global_id(0);
  atomic_add(&Bins[abs(In[I]) % NumBins], 1);
}

kernel void reduce(global const float *In, global float *Out, local float *Scratch) {
  size_t Local = get_local_id(0);
  Scratch[Local] = In[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (size_t Step = get_local_size(0) / 2; Step > 0; Step /= 2) {
    if (Local < Step)
      Scratch[Local] += Scratch[Local + Step];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (Local == 0)
    Out[get_group_id(0)] = Scratch[0];
}
