// Defines cl_helper() for opencl_link_main.cl.
int cl_helper(int x) { return x * 5 + 2; }
