// Device globals and kernels of the CUDA adapter's unit tests (nvcc -ptx -rdc).
extern "C" {
__device__ int dg_value;
__device__ int dg_array[42];
__device__ int dg_readonly;  // the tests' metadata says host_access read
__device__ int dg_writeonly; // host_access write
__device__ int dg_none;      // host_access none
__device__ unsigned char dg_big[1 << 20];

__global__ void sum_array(int *out) {
  int sum = 0;
  for (int i = 0; i < 42; ++i)
    sum += dg_array[i];
  *out = sum;
}
__global__ void set_value(int v) { dg_value = v; }
__global__ void read_value(int *out) { *out = dg_value; }
__global__ void fill_index(int *out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  out[i] = i;
}
}
