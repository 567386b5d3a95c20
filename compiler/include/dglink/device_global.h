// Device code's way to declare a device global with plain clang (OpenCL C, C++ for
// OpenCL): the macros put an annotate attribute on the variable, which clang emits
// into llvm.global.annotations as the string
//   "dglink_device_global:<unique id>:<device_image_scope 0|1>:<host access>"
// and the shim (compiler/post_link) turns into the DPC++ IR attributes
// (sycl-device-global-size from the variable's type, sycl-unique-id,
// sycl-device-image-scope, sycl-host-access), then drops the annotation. See
// docs/shim.md.
//
//   #include <dglink/device_global.h>
//   DGLINK_DEVICE_GLOBAL("counter_uid") global int counter;
//   DGLINK_DEVICE_GLOBAL_PROPERTIES("table_uid", 1, read) global int table[16];
#ifndef DGLINK_DEVICE_GLOBAL_H
#define DGLINK_DEVICE_GLOBAL_H

// UniqueId: a string literal, the name the host uses (piextEnqueueDeviceGlobalVariable*).
// ImageScope: 0 or 1 (the device_image_scope property).
// HostAccess: read, write, read_write or none (the host_access property).
#define DGLINK_DEVICE_GLOBAL_PROPERTIES(UniqueId, ImageScope, HostAccess)                          \
  __attribute__((annotate("dglink_device_global:" UniqueId ":" #ImageScope ":" #HostAccess)))

// A device global shared by every image, readable and writable by the host.
#define DGLINK_DEVICE_GLOBAL(UniqueId) DGLINK_DEVICE_GLOBAL_PROPERTIES(UniqueId, 0, read_write)

// The layout of the device-global design (shared/seeds/device-global-design.md), which
// the runtime's device-global database (docs/runtime.md) works with:
//  - a variable WITHOUT device_image_scope holds only a pointer to its value (usmptr);
//    the runtime allocates one zero-filled USM buffer per device and writes its address
//    into the usmptr of every program that contains the variable, so that every
//    program on a device shares one value. Its device instance is 8 bytes; the image
//    records the size of the value (sizeof(Type), or sizeof(Type) * Count for an array,
//    as DPC++'s sycl-device-global-size does), which is what the host registers
//    (Runtime::addDeviceGlobal). The macro passes that size as the annotation's argument.
//  - a variable WITH device_image_scope holds the value itself, one per program.
//
//   DGLINK_SHARED_DEVICE_GLOBAL(int, counter, "counter_uid");
//   DGLINK_IMAGE_SCOPE_DEVICE_GLOBAL(int, limit, "limit_uid");
//   kernel void k(void) { DGLINK_SHARED(counter) += DGLINK_IMAGE_SCOPE(limit); }
// Element I of a shared array (DGLINK_SHARED_DEVICE_GLOBAL_ARRAY(int, 16, table,
// "table_uid")): DGLINK_SHARED_ELEMENT(table, I); of an image-scope one
// (DGLINK_IMAGE_SCOPE_DEVICE_GLOBAL_ARRAY(int, 16, table, "table_uid")):
// DGLINK_IMAGE_SCOPE(table)[I].
#define DGLINK_SHARED_DEVICE_GLOBAL_ARRAY(Type, Count, Name, UniqueId)                            \
  __attribute__((annotate("dglink_device_global:" UniqueId ":0:read_write",                       \
                          sizeof(Type) * (Count)))) global struct { global Type *usmptr; } Name
#define DGLINK_SHARED_DEVICE_GLOBAL(Type, Name, UniqueId)                                         \
  DGLINK_SHARED_DEVICE_GLOBAL_ARRAY(Type, 1, Name, UniqueId)
#define DGLINK_IMAGE_SCOPE_DEVICE_GLOBAL(Type, Name, UniqueId)                                    \
  DGLINK_DEVICE_GLOBAL_PROPERTIES(UniqueId, 1, read_write) global struct { Type val; } Name
#define DGLINK_IMAGE_SCOPE_DEVICE_GLOBAL_ARRAY(Type, Count, Name, UniqueId)                       \
  DGLINK_DEVICE_GLOBAL_PROPERTIES(UniqueId, 1, read_write) global struct { Type val[Count]; } Name
#define DGLINK_SHARED(Name) (*(Name).usmptr)
#define DGLINK_SHARED_ELEMENT(Name, Index) ((Name).usmptr[Index])
#define DGLINK_IMAGE_SCOPE(Name) ((Name).val)

#endif
