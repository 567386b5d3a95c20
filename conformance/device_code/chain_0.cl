// Image 0 of the chain of four: the kernel starts the value with the digit 0xD and
// hands it to chain_1 (image 1); images 1-3 each append one hex digit, so the
// result 0xDCBA needs all four images and proves the order of the calls.
#include "device.h"

int chain_1(int X);

kernel void chain_start(global int *Out) {
  size_t I = dglinkGlobalId();
  // The work-item index sits above the 16 bits of the chain so every element differs.
  Out[I] = ((int)I << 16) | chain_1(0xD);
}
