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

#endif
