// Program-scope variables for the device-global scenarios: kernels that read, write
// and transform each one, so that every host write is checked by a kernel and every
// kernel write by the host. Program-scope mutable globals need OpenCL C 2.0. Each
// variable is declared a device global with its unique id (the name the host uses),
// device_image_scope and host access (dglink/device_global.h); the shim records them
// in the image's "SYCL/device globals" and "SYCL/device global symbols" sets.
#include "device.h"

#include <dglink/device_global.h>

// Layout shared with the host's DeviceRecord (conformance/scenarios/device_globals.cpp):
// 24 bytes, aligned to 8, on spir64, nvptx64 and x86-64 alike.
typedef struct {
  int Id;
  float Weight;
  long Total;
  uchar Tag[8];
} DeviceRecord;

DGLINK_DEVICE_GLOBAL("dg_counter_uid") global int dg_counter;
DGLINK_DEVICE_GLOBAL("dg_initialized") global int dg_initialized = 0x1234ABCD;
DGLINK_DEVICE_GLOBAL("dg_initialized_quad")
global int dg_initialized_quad[4] = {0x11, 0x2222, 0x333333, 0x44444444};
DGLINK_DEVICE_GLOBAL("dg_quad") global int dg_quad[4];
DGLINK_DEVICE_GLOBAL("dg_record_uid") global DeviceRecord dg_record;
// 1 MiB, and its own image's alone (device_image_scope).
DGLINK_DEVICE_GLOBAL_PROPERTIES("dg_big", 1, read_write) global uint dg_big[262144];
DGLINK_DEVICE_GLOBAL("dg_unreferenced") global int dg_unreferenced[2]; // no kernel names it
DGLINK_DEVICE_GLOBAL("dg_target") global int dg_target;
// Set by dg_store_address to &dg_target.
DGLINK_DEVICE_GLOBAL("dg_pointer") global int *dg_pointer;
DGLINK_DEVICE_GLOBAL_PROPERTIES("dg_read_only", 0, read) global int dg_read_only = 0x0DDBA11;
DGLINK_DEVICE_GLOBAL_PROPERTIES("dg_write_only", 0, write) global int dg_write_only;
DGLINK_DEVICE_GLOBAL_PROPERTIES("dg_no_host_access", 0, none)
global int dg_no_host_access = 0x5EC2E7;

kernel void dg_read_counter(global int *Out) { Out[0] = dg_counter; }

kernel void dg_increment_counter(void) { dg_counter += 1; }

kernel void dg_copy_quad(global int *Out) {
  for (int I = 0; I < 4; ++I)
    Out[I] = dg_quad[I];
}

// Each element becomes its right neighbour plus its index: shows the kernel saw all four.
kernel void dg_rotate_quad(void) {
  int First = dg_quad[0];
  for (int I = 0; I < 3; ++I)
    dg_quad[I] = dg_quad[I + 1] + I;
  dg_quad[3] = First + 3;
}

kernel void dg_copy_initialized(global int *Out) {
  Out[0] = dg_initialized;
  for (int I = 0; I < 4; ++I)
    Out[1 + I] = dg_initialized_quad[I];
}

kernel void dg_update_record(void) {
  dg_record.Id += 1;
  dg_record.Weight *= 2.0f;
  dg_record.Total += dg_record.Id;
  for (int I = 0; I < 8; ++I)
    dg_record.Tag[I] ^= (uchar)0x5A;
}

// One work-item per element; unsigned, so the arithmetic wraps without overflow.
kernel void dg_transform_big(void) {
  size_t I = dglinkGlobalId();
  dg_big[I] = dg_big[I] * 3u + 1u;
}

kernel void dg_store_address(void) { dg_pointer = &dg_target; }

kernel void dg_store_address_in_buffer(global ulong *Addresses) {
  Addresses[0] = (ulong)&dg_target;
}

kernel void dg_bump_through_global(global int *Out) {
  Out[0] = *dg_pointer;
  *dg_pointer += 1;
}

kernel void dg_bump_through_buffer(global ulong *Addresses, global int *Out) {
  global int *Target = (global int *)Addresses[0];
  Out[0] = *Target;
  *Target += 10;
}

kernel void dg_copy_access_modes(global int *Out) {
  Out[0] = dg_read_only;
  Out[1] = dg_write_only;
  Out[2] = dg_no_host_access;
}
