// An image whose import no other image exports: linking it must fail and the
// build log must name dglink_missing_symbol.
#include "device.h"

int dglink_missing_symbol(int X);

kernel void uses_missing(global int *Out) {
  size_t I = dglinkGlobalId();
  Out[I] = dglink_missing_symbol((int)I);
}
