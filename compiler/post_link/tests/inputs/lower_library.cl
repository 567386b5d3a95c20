// A library image: a device global and a function, no kernel. Its lowered image lists no
// entries, which must not make the kernels of a program it links into take the storage.
#include <dglink/device_global.h>

DGLINK_DEVICE_GLOBAL("lw_library_total") global int lw_library_total;

int lw_library_add(int By) {
  lw_library_total += By;
  return lw_library_total;
}
