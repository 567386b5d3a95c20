// Stands in for UR's test/conformance/device_code/bar.cpp: `parallel_for<class Bar>`
// over one item, an empty kernel without arguments.
#include "ur_cts.h"

kernel void UR_CTS_CGH_KERNEL(3Bar)(void) {}
