// The consumer's device code: one device global, and a kernel that adds one to it.
#include <dglink/device_global.h>

DGLINK_DEVICE_GLOBAL("consumer_counter") global int consumer_counter;

kernel void consumer_bump(void) { consumer_counter += 1; }
