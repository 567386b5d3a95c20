// The CUDA version of CP027's toy example (shared/seeds/cp027-global-device-symbols.md,
// the end of the document), with the CUDA runtime's symbol copies (cudaMemcpyToSymbol,
// cudaMemcpyFromSymbol and their Async forms) where the proposal's own CUDA listing
// loads a module with the driver API. main.cpp beside it is the same example with the
// dglink runtime and include/dglink/symbol.h; the comments give the SYCL lines of the
// proposal each step stands for.
//
// Not built by default: cmake -DDGLINK_BUILD_CUDA_EXAMPLES=ON (needs nvcc). Exits 0 when
// every check holds, 1 when one does not, 77 (ctest's skip) without a CUDA device.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <iterator>

// Device code, as the proposal writes it.
__constant__ int GV = 42;
__device__ int MutableGV = 42;
__device__ int GVArray[42];

__global__ void kernel1(int *Acc) { *Acc = GV; }
__global__ void kernel2(int *Acc) { *Acc = GV; }
__global__ void kernel3(int V2) { MutableGV = V2; }
// Beyond the proposal: the device's array, summed, so that the fill can be checked.
__global__ void sumGVArray(int *Out) {
  int Sum = 0;
  for (int I = 0; I < 42; ++I)
    Sum += GVArray[I];
  *Out = Sum;
}

namespace {

int Failures = 0;

bool check(cudaError_t Result, const char *What) {
  if (Result == cudaSuccess)
    return true;
  std::printf("FAILED: %s: %s\n", What, cudaGetErrorString(Result));
  ++Failures;
  return false;
}

void expect(bool Holds, const char *What, int Value) {
  std::printf("%s: %s (%d)\n", Holds ? "ok" : "FAILED", What, Value);
  Failures += Holds ? 0 : 1;
}

// CUDA has no host side of a __device__ variable: these stand for the host values of
// sycl::symbol<int> GV and sycl::symbol<int, global_space> MutableGV.
int HostGV;
int HostMutableGV;

void call(int V1, int V2) {
  // sycl::queue q;
  cudaStream_t Stream;
  if (!check(cudaStreamCreate(&Stream), "cudaStreamCreate"))
    return;
  // int res; (a sycl::buffer over it)
  int *Res = nullptr;
  if (!check(cudaMallocManaged(&Res, sizeof(int)), "cudaMallocManaged"))
    return;

  // GV = 42; MutableGV = 21;
  HostGV = 42;
  HostMutableGV = 21;

  // q.submit([&](sycl::handler h) { h.copy_to_symbol<GV>(v1); });
  check(cudaMemcpyToSymbolAsync(GV, &V1, sizeof(int), 0, cudaMemcpyHostToDevice, Stream),
        "cudaMemcpyToSymbolAsync(GV, v1)");
  // h.parallel_for([=] { acc[0] = GV; });
  kernel1<<<1, 1, 0, Stream>>>(Res);
  check(cudaGetLastError(), "kernel1");
  check(cudaStreamSynchronize(Stream), "cudaStreamSynchronize");
  // assert(res == v1);
  expect(*Res == V1, "kernel1 read GV == v1", *Res);
  // assert(GV == 42);
  expect(HostGV == 42, "host GV is still 42", HostGV);

  // h.copy_to_symbol<GV>(v2); then acc[0] = GV; assert(res == v2);
  check(cudaMemcpyToSymbolAsync(GV, &V2, sizeof(int), 0, cudaMemcpyHostToDevice, Stream),
        "cudaMemcpyToSymbolAsync(GV, v2)");
  kernel2<<<1, 1, 0, Stream>>>(Res);
  check(cudaGetLastError(), "kernel2");
  check(cudaStreamSynchronize(Stream), "cudaStreamSynchronize");
  expect(*Res == V2, "kernel2 read GV == v2", *Res);

  // h.copy_to_symbol<MutableGV>(v1);
  check(cudaMemcpyToSymbolAsync(MutableGV, &V1, sizeof(int), 0, cudaMemcpyHostToDevice, Stream),
        "cudaMemcpyToSymbolAsync(MutableGV, v1)");
  // h.parallel_for([=] { MutableGV = v2; }); ev.wait();
  kernel3<<<1, 1, 0, Stream>>>(V2);
  check(cudaGetLastError(), "kernel3");
  check(cudaStreamSynchronize(Stream), "cudaStreamSynchronize");
  // assert(MutableGV == 21);
  expect(HostMutableGV == 21, "host MutableGV is still 21", HostMutableGV);
  // h.update_host<MutableGV>(); ev.wait(); assert(MutableGV == v2);
  check(cudaMemcpyFromSymbolAsync(&HostMutableGV, MutableGV, sizeof(int), 0,
                                  cudaMemcpyDeviceToHost, Stream),
        "cudaMemcpyFromSymbolAsync(MutableGV)");
  check(cudaStreamSynchronize(Stream), "cudaStreamSynchronize");
  expect(HostMutableGV == V2, "after the copy back, MutableGV == v2", HostMutableGV);

  // h.fill<GVArray>(42); (CUDA has no fill of a symbol: a host array of 42s is copied)
  int Filled[42];
  std::fill(std::begin(Filled), std::end(Filled), 42);
  check(cudaMemcpyToSymbol(GVArray, Filled, sizeof(Filled)), "cudaMemcpyToSymbol(GVArray)");
  sumGVArray<<<1, 1, 0, Stream>>>(Res);
  check(cudaGetLastError(), "sumGVArray");
  check(cudaStreamSynchronize(Stream), "cudaStreamSynchronize");
  expect(*Res == 42 * 42, "sum of the device's GVArray == 42 * 42", *Res);
  int Back[42] = {};
  check(cudaMemcpyFromSymbol(Back, GVArray, sizeof(Back)), "cudaMemcpyFromSymbol(GVArray)");
  expect(std::count(std::begin(Back), std::end(Back), 42) == 42, "GVArray came back as 42s",
         static_cast<int>(std::count(std::begin(Back), std::end(Back), 42)));

  check(cudaFree(Res), "cudaFree");
  check(cudaStreamDestroy(Stream), "cudaStreamDestroy");
}

} // namespace

int main() {
  int Devices = 0;
  if (cudaGetDeviceCount(&Devices) != cudaSuccess || Devices == 0) {
    std::printf("cp027_symbols_cuda: no CUDA device\n");
    return 77;
  }
  call(1234, 5678);
  std::printf("cp027_symbols_cuda: %s\n", Failures == 0 ? "every check holds" : "FAILED");
  return Failures == 0 ? 0 : 1;
}
