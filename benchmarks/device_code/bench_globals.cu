// The 4 MiB device global the benchmarks copy to and from (nvcc -ptx -rdc, so
// that the global is .visible and found by name).
extern "C" {
__device__ unsigned char bench_global[1 << 22];
__global__ void bench_touch(unsigned char *out) { out[0] = bench_global[0]; }
}
