// amdgcn device code that calls OpenCL builtins (get_global_id, a math function):
// the ROCm device libraries define them; the image neither imports nor exports.
kernel void scale_by_id(global float *Data) {
  const size_t I = get_global_id(0);
  Data[I] = sqrt((float)I) * (float)get_local_size(0);
}
