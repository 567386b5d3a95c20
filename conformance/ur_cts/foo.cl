// Stands in for UR's test/conformance/device_code/foo.cpp: `parallel_for<class Foo>`
// over one item, an empty kernel without arguments.
#include "ur_cts.h"

kernel void UR_CTS_CGH_KERNEL(3Foo)(void) {}
