// Stands in for UR's test/conformance/device_code/linker_error.cpp: `parallel_for<class
// Foo>` calls the SYCL_EXTERNAL function `void this_function_does_not_exist()`, which no
// module defines: the SPIR-V imports it (LinkageAttributes Import, under its C++ name
// _Z28this_function_does_not_existv, as DPC++'s does), so urProgramCompile succeeds and
// urProgramLink fails. No PTX (UR's CMake builds none).
#include "ur_cts.h"

void __attribute__((overloadable)) this_function_does_not_exist(void);

kernel void UR_CTS_CGH_KERNEL(3Foo)(void) { this_function_does_not_exist(); }
