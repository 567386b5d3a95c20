// Stands in for UR's test/conformance/device_code/no_args.cpp: `parallel_for<class
// no_args>` over a 3-D range, no arguments, no effect (the original only reads its id).
#include "ur_cts.h"

kernel void UR_CTS_CGH_KERNEL(7no_args)(void) {}
