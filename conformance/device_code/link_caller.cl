// Image A of the two-image link: its kernel calls link_callee, which only image B
// (link_callee.cl) defines, so the kernel runs only after a real link.
#include "device.h"

int link_callee(int X);

kernel void link_caller(global int *Out) {
  size_t I = dglinkGlobalId();
  Out[I] = link_callee((int)I);
}
