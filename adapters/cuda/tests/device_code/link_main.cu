// Calls helper(), defined in link_lib.cu: linked with piProgramLink.
extern "C" __device__ int helper(int x);
extern "C" __global__ void call_helper(int *out, int x) { *out = helper(x); }
