// Defines cl_helper() for amd_link_main.cl.
int cl_helper(int x) { return x * 5 + 2; }
