/* dglink's additions to the Unified Runtime API, served by its UR adapters
 * (libur_adapter_dglink_<backend>.so; docs/ur.md). They keep the numbers of the PI
 * extensions they mirror (pi.h), which no UR enumerator uses.
 *
 * Device and program queries (urDeviceGetInfo, urProgramGetInfo): */
#ifndef DGLINK_UR_EXT_H
#define DGLINK_UR_EXT_H

/* char[]: the image targets the device links ("spir64 spirv64"), as
 * PI_EXT_DEVICE_INFO_LINK_FORMATS. */
#define DGLINK_UR_DEVICE_INFO_LINK_FORMATS 0x20100
/* uint32_t, pi_device_global_mechanism: none 0, native 1, lowered 2. */
#define DGLINK_UR_DEVICE_INFO_DEVICE_GLOBAL_MECHANISM 0x20101
/* uint32_t, pi_usm_mechanism: none 0, native 1, SVM 2. */
#define DGLINK_UR_DEVICE_INFO_USM_MECHANISM 0x20102
/* ur_bool_t: false for test drivers that accept programs but run nothing. */
#define DGLINK_UR_DEVICE_INFO_EXECUTES_KERNELS 0x20103
/* char[]: the dglink adapter's name ("opencl", "level_zero", "cuda", "hip"). */
#define DGLINK_UR_DEVICE_INFO_BACKEND_NAME 0x20104
/* char[]: the image targets the device builds and runs, linked or not. */
#define DGLINK_UR_DEVICE_INFO_IMAGE_FORMATS 0x20105
/* uint32_t, pi_device_binary_format: the format the program was made from. */
#define DGLINK_UR_PROGRAM_INFO_FORMAT 0x20200
/* char[]: the device globals the program's images declare, one line each, as
 * PI_EXT_PROGRAM_INFO_DEVICE_GLOBALS gives them (CP027's symbol sizes). */
#define DGLINK_UR_PROGRAM_INFO_DEVICE_GLOBALS 0x20201

/* Program metadata (ur_program_properties_t of urProgramCreateWithBinary/WithIL) that
 * describes a dglink device image, so that a program made through UR is the one
 * piextProgramCreateWithImage makes. Property sets travel as "<set name>/<property>"
 * (e.g. "SYCL/device globals/<unique id>"): UINT32, STRING, and BYTE_ARRAY whose bytes
 * are the property's value with its 64-bit size header, as DPC++ passes them. The
 * image's own fields: */
#define DGLINK_UR_METADATA_IMAGE_TARGET "DGLINK/image/target" /* STRING, e.g. "spir64" */
#define DGLINK_UR_METADATA_IMAGE_FORMAT "DGLINK/image/format" /* UINT32 */
#define DGLINK_UR_METADATA_IMAGE_COMPILE_OPTIONS "DGLINK/image/compile options" /* STRING */
#define DGLINK_UR_METADATA_IMAGE_LINK_OPTIONS "DGLINK/image/link options"       /* STRING */
/* STRING: the image's entries (kernel names), one per metadata entry of this name. */
#define DGLINK_UR_METADATA_IMAGE_ENTRY "DGLINK/image/entry"

#endif /* DGLINK_UR_EXT_H */
