// OpenCL C for amdgcn-amd-amdhsa (a relocatable code object): program-scope
// globals and a kernel that touches one, without work-item built-ins (those
// come from ROCm's device libraries, which the tests do not link).
global int counter = 0;
global int table[42];

kernel void bump(void) { counter += 1; }
