// Device code for the shim's end-to-end tests: device globals declared with
// dglink/device_global.h, a kernel per global, an exported helper and an import.
#include <dglink/device_global.h>

DGLINK_DEVICE_GLOBAL("counter_uid") global int counter;
DGLINK_DEVICE_GLOBAL_PROPERTIES("readonly_table", 0, read) global int table[4] = {1, 2, 3, 4};
DGLINK_DEVICE_GLOBAL_PROPERTIES("scoped", 1, none) global long scoped;

#ifdef DGLINK_TEST_NO_IMPORTS
// amdgcn code objects cannot import (they are not linked at run time).
static int library_function(int Value) { return Value * 2; }
#else
extern int library_function(int);
#endif

int helper(int Value) { return Value + table[1]; }

kernel void bump_counter(global int *Out) {
  counter += helper(1);
  Out[0] = counter;
}

kernel void use_scoped(global long *Out) {
  scoped += library_function(2);
  Out[0] = scoped;
}
