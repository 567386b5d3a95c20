// Stands in for UR's test/conformance/device_code/device_global.cpp: a device global int
// with device_image_scope (a plain program-scope int in the image) that
// `parallel_for<class device_global>` increments. The tests read and write it by its
// SYCL unique id `_Z7dev_var` (urEnqueueDeviceGlobalVariableRead/Write,
// urProgramGetGlobalVariablePointer): in SPIR-V the variable itself has that name; in PTX
// it is `dev_var` (the name the `_Z7dev_var@global_id_mapping` metadata of a CUDA image
// maps the id to). No arguments. Needs OpenCL C 2.0 (program-scope mutable variables).
#include "ur_cts.h"

#ifdef __NVPTX__
#define DEV_VAR dev_var
#else
#define DEV_VAR _Z7dev_var
#endif

global int DEV_VAR = 0;

kernel void UR_CTS_CGH_KERNEL(13device_global)(void) { DEV_VAR = DEV_VAR + 1; }
