// Stands in for UR's test/conformance/device_code/build_failure.cpp: `single_task<class
// Foo>` whose body is the inline assembly "undefined". The SPIR-V carries it as
// SPV_INTEL_inline_assembly (as DPC++'s does), which the device compiler cannot build:
// urProgramCreateWithIL succeeds, urProgramBuild fails. No PTX (UR's CMake builds none).
#include "ur_cts.h"

kernel void UR_CTS_CGH_KERNEL(3Foo)(void) { __asm__ volatile("undefined\n"); }
