// The CUDA runtime's own way to reach a device global, for the baseline:
// cudaMemcpyToSymbol / cudaMemcpyFromSymbol on a variable registered by nvcc.
#include <cuda_runtime.h>

__device__ unsigned char runtime_symbol[1 << 20];

extern "C" int dglinkRuntimeInit(void) { return static_cast<int>(cudaFree(nullptr)); }

extern "C" int dglinkRuntimeToSymbol(const void *Src, size_t Count, size_t Offset) {
  return static_cast<int>(
      cudaMemcpyToSymbol(runtime_symbol, Src, Count, Offset, cudaMemcpyHostToDevice));
}

extern "C" int dglinkRuntimeFromSymbol(void *Dst, size_t Count, size_t Offset) {
  return static_cast<int>(
      cudaMemcpyFromSymbol(Dst, runtime_symbol, Count, Offset, cudaMemcpyDeviceToHost));
}
