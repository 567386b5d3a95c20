// Calls cl_helper(), defined in opencl_link_lib.cl (clang's nvcl PTX writes
// neither .extern nor .visible: the adapter adds them).
int cl_helper(int x);
kernel void call_cl_helper(global int *out, int x) { out[get_global_id(0)] = cl_helper(x); }
