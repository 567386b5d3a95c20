// Defines helper() for link_main.cu.
extern "C" __device__ int helper(int x) { return x * 3 + 1; }
