// Global offsets (piEnqueueKernelLaunch's GlobalWorkOffset): each work-item writes its
// global id, offset included, at its place counted from the offset. The shim gives the
// nvptx64 and amdgcn images DPC++'s "<kernel>_with_offset" entry points for the kernels
// that read the offset (device.h), which the CUDA and HIP adapters launch for a non-zero
// one; group_ids reads no offset, so it has none and those adapters refuse an offset for it.
#include "device.h"

kernel void offset_ids(global int *Out) {
  const size_t Id = dglinkOffsetGlobalId(0);
  Out[Id - dglinkGlobalOffset(0)] = (int)Id;
}

// Two dimensions: (x << 16) | y at the row-major place of (x, y) less the offsets.
kernel void offset_ids_2d(global int *Out, uint Width) {
  const size_t X = dglinkOffsetGlobalId(0);
  const size_t Y = dglinkOffsetGlobalId(1);
  Out[(Y - dglinkGlobalOffset(1)) * Width + (X - dglinkGlobalOffset(0))] = (int)((X << 16) | Y);
}

// Reads no offset: the place from the group and local ids only.
kernel void group_ids(global int *Out) {
  const size_t Id = dglinkGroupId() * dglinkLocalSize() + dglinkLocalId();
  Out[Id] = (int)Id;
}
