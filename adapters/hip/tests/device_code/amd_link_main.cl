// Calls cl_helper(), defined in amd_link_lib.cl: an import the link resolves.
int cl_helper(int x);
kernel void call_cl_helper(global int *out, int x) { out[0] = cl_helper(x); }
