// A builtin the PTX translation does not define: the module is refused by name
// (ptx_translation_test.cpp, PtxMath).
kernel void store_rtz(global half *out, global const float *in) {
  size_t i = get_global_id(0);
  vstore_half_rtz(in[i], i, out);
}
