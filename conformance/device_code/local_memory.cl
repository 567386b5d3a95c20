// Local-memory kernel arguments (piKernelSetArg with a null value, UR's LOCAL
// arguments): three local arrays of the host's sizes around a by-value argument. Each
// work-group writes its slice of In into all three, then each item reads its mirror
// item's values back: arrays that overlapped, or a wrong offset, give other values.
// The shim makes the nvptx64 and amdgcn images in DPC++'s CUDA/HIP form
// (--local-args-as-offsets: each local pointer an offset into one dynamic
// shared-memory array), which the CUDA and HIP adapters lay out at each launch.
#include "device.h"

kernel void local_mirror(global const int *In, local uchar *Bytes, int Bias, local int *Values,
                         local long *Wide, global int *Out) {
  const size_t Id = dglinkLocalId();
  const size_t Size = dglinkLocalSize();
  const int Value = In[dglinkGlobalId()];
  Bytes[Id] = (uchar)(Id + 1);
  Values[Id] = Value;
  Wide[Id] = (long)Value * 3;
  dglinkLocalBarrier();
  const size_t Mirror = Size - 1 - Id;
  Out[dglinkGlobalId()] = Values[Mirror] * 1000 + (int)Bytes[Mirror] +
                          (int)(Wide[Mirror] - (long)Values[Mirror] * 3) + Bias;
}
