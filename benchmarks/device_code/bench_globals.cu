// The 1 MiB device global the benchmarks copy to and from (nvcc -ptx -rdc and
// -fatbin; the fatbin carries sm_90 code so a fresh program loads without JIT).
extern "C" {
__device__ unsigned char bench_global[1 << 20];
__global__ void bench_touch(unsigned char *out) { out[0] = bench_global[0]; }
}
