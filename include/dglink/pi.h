/* The dglink PI ABI: the C contract between a SYCL runtime, the dispatch layer
 * and every backend adapter (handles, results, info enums, device images and the
 * function table). */
#ifndef DGLINK_PI_H
#define DGLINK_PI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Version of this ABI. piPluginInit refuses a caller whose major version differs;
 * a newer minor version only appends entries to the end of the function table. */
#define PI_MAJOR_VERSION 1
#define PI_MINOR_VERSION 2
#define PI_VERSION_STRING "1.2"

#if defined(_WIN32)
#define PI_API_EXPORT __declspec(dllexport)
#else
#define PI_API_EXPORT __attribute__((visibility("default")))
#endif
#define PI_CALL

typedef int32_t pi_int32;
typedef uint32_t pi_uint32;
typedef uint64_t pi_uint64;
typedef pi_uint32 pi_bool;
typedef pi_uint64 pi_bitfield;

#define PI_FALSE 0u
#define PI_TRUE 1u

/* Results use OpenCL's numbering; dglink's own codes sit below -990. */
typedef enum {
  PI_SUCCESS = 0,
  PI_ERROR_DEVICE_NOT_FOUND = -1,
  PI_ERROR_DEVICE_NOT_AVAILABLE = -2,
  PI_ERROR_COMPILER_NOT_AVAILABLE = -3,
  PI_ERROR_MEM_OBJECT_ALLOCATION_FAILURE = -4,
  PI_ERROR_OUT_OF_RESOURCES = -5,
  PI_ERROR_OUT_OF_HOST_MEMORY = -6,
  PI_ERROR_PROFILING_INFO_NOT_AVAILABLE = -7,
  PI_ERROR_MEM_COPY_OVERLAP = -8,
  PI_ERROR_IMAGE_FORMAT_NOT_SUPPORTED = -10, /* images: UR faces only (PI has no images) */
  PI_ERROR_BUILD_PROGRAM_FAILURE = -11,
  PI_ERROR_MISALIGNED_SUB_BUFFER_OFFSET = -13,
  PI_ERROR_COMPILE_PROGRAM_FAILURE = -15,
  PI_ERROR_LINKER_NOT_AVAILABLE = -16,
  PI_ERROR_LINK_PROGRAM_FAILURE = -17,
  PI_ERROR_INVALID_VALUE = -30,
  PI_ERROR_INVALID_DEVICE_TYPE = -31,
  PI_ERROR_INVALID_PLATFORM = -32,
  PI_ERROR_INVALID_DEVICE = -33,
  PI_ERROR_INVALID_CONTEXT = -34,
  PI_ERROR_INVALID_QUEUE_PROPERTIES = -35,
  PI_ERROR_INVALID_QUEUE = -36,
  PI_ERROR_INVALID_HOST_PTR = -37,
  PI_ERROR_INVALID_MEM_OBJECT = -38,
  PI_ERROR_INVALID_IMAGE_FORMAT_DESCRIPTOR = -39,
  PI_ERROR_INVALID_IMAGE_SIZE = -40,
  PI_ERROR_INVALID_SAMPLER = -41,
  PI_ERROR_INVALID_BINARY = -42,
  PI_ERROR_INVALID_BUILD_OPTIONS = -43,
  PI_ERROR_INVALID_PROGRAM = -44,
  PI_ERROR_INVALID_PROGRAM_EXECUTABLE = -45,
  PI_ERROR_INVALID_KERNEL_NAME = -46,
  PI_ERROR_INVALID_KERNEL_DEFINITION = -47,
  PI_ERROR_INVALID_KERNEL = -48,
  PI_ERROR_INVALID_ARG_INDEX = -49,
  PI_ERROR_INVALID_ARG_VALUE = -50,
  PI_ERROR_INVALID_ARG_SIZE = -51,
  PI_ERROR_INVALID_KERNEL_ARGS = -52,
  PI_ERROR_INVALID_WORK_DIMENSION = -53,
  PI_ERROR_INVALID_WORK_GROUP_SIZE = -54,
  PI_ERROR_INVALID_WORK_ITEM_SIZE = -55,
  PI_ERROR_INVALID_GLOBAL_OFFSET = -56,
  PI_ERROR_INVALID_EVENT_WAIT_LIST = -57,
  PI_ERROR_INVALID_EVENT = -58,
  PI_ERROR_INVALID_OPERATION = -59,
  PI_ERROR_INVALID_BUFFER_SIZE = -61,
  PI_ERROR_INVALID_GLOBAL_WORK_SIZE = -63,
  PI_ERROR_INVALID_COMPILER_OPTIONS = -66,
  PI_ERROR_INVALID_LINKER_OPTIONS = -67,
  PI_ERROR_INVALID_SPEC_ID = -71,
  /* cl_khr_command_buffer's numbers: a command buffer handle that is none, a sync point
     that is none of its commands */
  PI_ERROR_INVALID_COMMAND_BUFFER_KHR = -1138,
  PI_ERROR_INVALID_SYNC_POINT_WAIT_LIST_KHR = -1139,
  PI_ERROR_UNSUPPORTED_FEATURE = -995,
  PI_ERROR_PLUGIN_SPECIFIC_ERROR = -996,
  PI_ERROR_COMMAND_EXECUTION_FAILURE = -997,
  PI_ERROR_UNKNOWN = -999
} pi_result;

/* Opaque handles. Every handle an adapter returns starts with a pointer to that
 * adapter's function table (pi_handle_header), so one dispatch layer can route a
 * call by reading the first field, as the OpenCL ICD loader does. */
typedef struct _pi_platform *pi_platform;
typedef struct _pi_device *pi_device;
typedef struct _pi_context *pi_context;
typedef struct _pi_queue *pi_queue;
typedef struct _pi_mem *pi_mem;
typedef struct _pi_program *pi_program;
typedef struct _pi_kernel *pi_kernel;
typedef struct _pi_event *pi_event;

struct _pi_plugin_functions;
typedef struct {
  const struct _pi_plugin_functions *Dispatch;
} pi_handle_header;

/* ---- platform and device information ---- */
typedef enum {
  PI_PLATFORM_INFO_NAME = 0x0902,
  PI_PLATFORM_INFO_VENDOR = 0x0903,
  PI_PLATFORM_INFO_VERSION = 0x0901,
  PI_PLATFORM_INFO_PROFILE = 0x0900,
  PI_PLATFORM_INFO_EXTENSIONS = 0x0904,
  /* dglink: the adapter's name ("opencl", "cuda", "hip", "level_zero"). */
  PI_EXT_PLATFORM_INFO_BACKEND = 0x20000
} pi_platform_info;

typedef pi_bitfield pi_device_type;
#define PI_DEVICE_TYPE_DEFAULT ((pi_device_type)1 << 0)
#define PI_DEVICE_TYPE_CPU ((pi_device_type)1 << 1)
#define PI_DEVICE_TYPE_GPU ((pi_device_type)1 << 2)
#define PI_DEVICE_TYPE_ACC ((pi_device_type)1 << 3)
#define PI_DEVICE_TYPE_ALL ((pi_device_type)0xFFFFFFFF)

typedef enum {
  PI_DEVICE_INFO_TYPE = 0x1000,                /* pi_device_type */
  PI_DEVICE_INFO_VENDOR_ID = 0x1001,           /* pi_uint32 */
  PI_DEVICE_INFO_MAX_COMPUTE_UNITS = 0x1002,   /* pi_uint32 */
  PI_DEVICE_INFO_MAX_WORK_GROUP_SIZE = 0x1004, /* size_t */
  PI_DEVICE_INFO_GLOBAL_MEM_SIZE = 0x101F,     /* pi_uint64 */
  PI_DEVICE_INFO_DOUBLE_FP_CONFIG = 0x1032,    /* pi_bitfield, 0 without fp64 */
  PI_DEVICE_INFO_HALF_FP_CONFIG = 0x1033,      /* pi_bitfield, 0 without fp16 */
  PI_DEVICE_INFO_AVAILABLE = 0x1027,           /* pi_bool */
  PI_DEVICE_INFO_COMPILER_AVAILABLE = 0x1028,  /* pi_bool */
  PI_DEVICE_INFO_LINKER_AVAILABLE = 0x103E,    /* pi_bool */
  PI_DEVICE_INFO_NAME = 0x102B,                /* string */
  PI_DEVICE_INFO_VENDOR = 0x102C,              /* string */
  PI_DEVICE_INFO_DRIVER_VERSION = 0x102D,      /* string */
  PI_DEVICE_INFO_VERSION = 0x102F,             /* string */
  PI_DEVICE_INFO_EXTENSIONS = 0x1030,          /* string, space separated */
  PI_DEVICE_INFO_PLATFORM = 0x1031,            /* pi_platform */
  PI_DEVICE_INFO_IL_VERSION = 0x105B,          /* string, may be empty */
  PI_DEVICE_INFO_REFERENCE_COUNT = 0x1047,     /* pi_uint32 */
  /* Limits, memory, vector widths: OpenCL's numbers and types (pi_uint32 for cl_uint,
     pi_uint64 for cl_ulong, pi_bool for cl_bool, pi_bitfield for OpenCL's bit-fields) */
  PI_DEVICE_INFO_MAX_WORK_ITEM_DIMENSIONS = 0x1003,    /* pi_uint32: 3 */
  PI_DEVICE_INFO_MAX_WORK_ITEM_SIZES = 0x1005,         /* size_t[3] */
  PI_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_CHAR = 0x1006, /* pi_uint32, each */
  PI_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_SHORT = 0x1007,
  PI_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_INT = 0x1008,
  PI_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_LONG = 0x1009,
  PI_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_FLOAT = 0x100A,
  PI_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_DOUBLE = 0x100B,
  PI_DEVICE_INFO_PREFERRED_VECTOR_WIDTH_HALF = 0x1034,
  PI_DEVICE_INFO_NATIVE_VECTOR_WIDTH_CHAR = 0x1036,
  PI_DEVICE_INFO_NATIVE_VECTOR_WIDTH_SHORT = 0x1037,
  PI_DEVICE_INFO_NATIVE_VECTOR_WIDTH_INT = 0x1038,
  PI_DEVICE_INFO_NATIVE_VECTOR_WIDTH_LONG = 0x1039,
  PI_DEVICE_INFO_NATIVE_VECTOR_WIDTH_FLOAT = 0x103A,
  PI_DEVICE_INFO_NATIVE_VECTOR_WIDTH_DOUBLE = 0x103B,
  PI_DEVICE_INFO_NATIVE_VECTOR_WIDTH_HALF = 0x103C,
  PI_DEVICE_INFO_MAX_CLOCK_FREQUENCY = 0x100C,                    /* pi_uint32, MHz */
  PI_DEVICE_INFO_ADDRESS_BITS = 0x100D,                           /* pi_uint32: 64 */
  PI_DEVICE_INFO_MAX_MEM_ALLOC_SIZE = 0x1010,                     /* pi_uint64 */
  PI_DEVICE_INFO_IMAGE_SUPPORT = 0x1016,                          /* pi_bool: false (no images) */
  PI_DEVICE_INFO_MAX_PARAMETER_SIZE = 0x1017,                     /* size_t */
  PI_DEVICE_INFO_MEM_BASE_ADDR_ALIGN = 0x1019,                    /* pi_uint32, bits */
  PI_DEVICE_INFO_SINGLE_FP_CONFIG = 0x101B,                       /* pi_bitfield */
  PI_DEVICE_INFO_GLOBAL_MEM_CACHE_TYPE = 0x101C,                  /* pi_device_mem_cache_type */
  PI_DEVICE_INFO_GLOBAL_MEM_CACHELINE_SIZE = 0x101D,              /* pi_uint32 */
  PI_DEVICE_INFO_GLOBAL_MEM_CACHE_SIZE = 0x101E,                  /* pi_uint64 */
  PI_DEVICE_INFO_MAX_CONSTANT_BUFFER_SIZE = 0x1020,               /* pi_uint64 */
  PI_DEVICE_INFO_MAX_CONSTANT_ARGS = 0x1021,                      /* pi_uint32 */
  PI_DEVICE_INFO_LOCAL_MEM_TYPE = 0x1022,                         /* pi_device_local_mem_type */
  PI_DEVICE_INFO_LOCAL_MEM_SIZE = 0x1023,                         /* pi_uint64 */
  PI_DEVICE_INFO_ERROR_CORRECTION_SUPPORT = 0x1024,               /* pi_bool */
  PI_DEVICE_INFO_PROFILING_TIMER_RESOLUTION = 0x1025,             /* size_t, ns */
  PI_DEVICE_INFO_ENDIAN_LITTLE = 0x1026,                          /* pi_bool */
  PI_DEVICE_INFO_EXECUTION_CAPABILITIES = 0x1029,                 /* pi_bitfield: PI_EXEC_* */
  PI_DEVICE_INFO_HOST_UNIFIED_MEMORY = 0x1035,                    /* pi_bool */
  PI_DEVICE_INFO_PREFERRED_INTEROP_USER_SYNC = 0x1048,            /* pi_bool */
  PI_DEVICE_INFO_PRINTF_BUFFER_SIZE = 0x1049,                     /* size_t */
  PI_DEVICE_INFO_MAX_NUM_SUB_GROUPS = 0x105C,                     /* pi_uint32 */
  PI_DEVICE_INFO_SUB_GROUP_INDEPENDENT_FORWARD_PROGRESS = 0x105D, /* pi_bool */
  PI_DEVICE_INFO_SUB_GROUP_SIZES_INTEL = 0x4108,                  /* size_t[] */
  /* DPC++'s PI numbers */
  PI_DEVICE_INFO_ATOMIC_64 = 0x10110,                         /* pi_bool */
  PI_DEVICE_INFO_ATOMIC_MEMORY_ORDER_CAPABILITIES = 0x10111,  /* pi_memory_order_capabilities */
  PI_DEVICE_INFO_ATOMIC_MEMORY_SCOPE_CAPABILITIES = 0x11000,  /* pi_memory_scope_capabilities */
  PI_EXT_ONEAPI_DEVICE_INFO_MAX_GLOBAL_WORK_GROUPS = 0x20000, /* size_t */
  PI_EXT_ONEAPI_DEVICE_INFO_MAX_WORK_GROUPS_3D = 0x20003,     /* size_t[3] */
  /* pi_usm_capabilities: what each kind of USM allocation allows on this device
     (0: piextUSM*Alloc of that kind is refused with PI_ERROR_INVALID_OPERATION) */
  PI_DEVICE_INFO_USM_HOST_SUPPORT = 0x4190,
  PI_DEVICE_INFO_USM_DEVICE_SUPPORT = 0x4191,
  PI_DEVICE_INFO_USM_SINGLE_SHARED_SUPPORT = 0x4192,
  /* dglink extensions */
  PI_EXT_DEVICE_INFO_LINK_FORMATS = 0x20100,            /* string: "spir64 spirv64 ..." (the
                                                            image targets this device links) */
  PI_EXT_DEVICE_INFO_DEVICE_GLOBAL_MECHANISM = 0x20101, /* pi_device_global_mechanism */
  PI_EXT_DEVICE_INFO_USM_MECHANISM = 0x20102,           /* pi_usm_mechanism */
  PI_EXT_DEVICE_INFO_EXECUTES_KERNELS = 0x20103,        /* pi_bool: false for test drivers */
  PI_EXT_DEVICE_INFO_BACKEND_NAME = 0x20104,            /* string: adapter name */
  PI_EXT_DEVICE_INFO_IMAGE_FORMATS = 0x20105            /* string: "spir64 nvptx64 ..." (the image
                                                            targets this device builds and runs, linked
                                                            or not; a superset of LINK_FORMATS) */
} pi_device_info;

/* OpenCL's numbers: cl_device_mem_cache_type, cl_device_local_mem_type,
   cl_device_exec_capabilities. */
typedef enum {
  PI_DEVICE_MEM_CACHE_TYPE_NONE = 0,
  PI_DEVICE_MEM_CACHE_TYPE_READ_ONLY_CACHE = 1,
  PI_DEVICE_MEM_CACHE_TYPE_READ_WRITE_CACHE = 2
} pi_device_mem_cache_type;
typedef enum {
  PI_DEVICE_LOCAL_MEM_TYPE_NONE = 0, /* no local memory of its own */
  PI_DEVICE_LOCAL_MEM_TYPE_LOCAL = 1,
  PI_DEVICE_LOCAL_MEM_TYPE_GLOBAL = 2
} pi_device_local_mem_type;
#define PI_EXEC_KERNEL ((pi_bitfield)1 << 0)
#define PI_EXEC_NATIVE_KERNEL ((pi_bitfield)1 << 1)

/* What atomics and fences can do, as DPC++'s PI numbers them (the same bits as UR's). */
typedef pi_bitfield pi_memory_order_capabilities;
#define PI_MEMORY_ORDER_RELAXED ((pi_memory_order_capabilities)0x01)
#define PI_MEMORY_ORDER_ACQUIRE ((pi_memory_order_capabilities)0x02)
#define PI_MEMORY_ORDER_RELEASE ((pi_memory_order_capabilities)0x04)
#define PI_MEMORY_ORDER_ACQ_REL ((pi_memory_order_capabilities)0x08)
#define PI_MEMORY_ORDER_SEQ_CST ((pi_memory_order_capabilities)0x10)
typedef pi_bitfield pi_memory_scope_capabilities;
#define PI_MEMORY_SCOPE_WORK_ITEM ((pi_memory_scope_capabilities)0x01)
#define PI_MEMORY_SCOPE_SUB_GROUP ((pi_memory_scope_capabilities)0x02)
#define PI_MEMORY_SCOPE_WORK_GROUP ((pi_memory_scope_capabilities)0x04)
#define PI_MEMORY_SCOPE_DEVICE ((pi_memory_scope_capabilities)0x08)
#define PI_MEMORY_SCOPE_SYSTEM ((pi_memory_scope_capabilities)0x10)

/* How a device serves piextEnqueueDeviceGlobalVariableRead/Write. */
typedef enum {
  PI_DEVICE_GLOBAL_MECHANISM_NONE = 0,   /* not supported: the entry points fail */
  PI_DEVICE_GLOBAL_MECHANISM_NATIVE = 1, /* the driver looks the variable up by name */
  PI_DEVICE_GLOBAL_MECHANISM_LOWERED = 2 /* storage owned by the adapter (shim-lowered) */
} pi_device_global_mechanism;

/* How the piextUSM* entry points are served on a device. */
typedef enum {
  PI_USM_MECHANISM_NONE = 0,   /* no USM: use memory buffers (piMemBufferCreate) */
  PI_USM_MECHANISM_NATIVE = 1, /* the backend's own USM (CUDA, HIP, L0, cl_intel_usm) */
  PI_USM_MECHANISM_SVM = 2     /* OpenCL 2.0 buffer SVM */
} pi_usm_mechanism;

/* ---- contexts, queues, memory ---- */
typedef intptr_t pi_context_properties;
typedef enum {
  PI_CONTEXT_INFO_NUM_DEVICES = 0x1083,
  PI_CONTEXT_INFO_DEVICES = 0x1081,
  PI_CONTEXT_INFO_REFERENCE_COUNT = 0x1080
} pi_context_info;

typedef pi_bitfield pi_queue_properties;
#define PI_QUEUE_FLAG_PROFILING_ENABLE ((pi_queue_properties)1 << 1)
typedef enum {
  PI_QUEUE_INFO_CONTEXT = 0x1090,
  PI_QUEUE_INFO_DEVICE = 0x1091,
  PI_QUEUE_INFO_REFERENCE_COUNT = 0x1092,
  /* dglink: pi_bool, whether every command enqueued so far is complete */
  PI_EXT_QUEUE_INFO_EMPTY = 0x20300
} pi_queue_info;

/* Memory flags: OpenCL's cl_mem_flags numbering. One access flag (none: read/write). */
typedef pi_bitfield pi_mem_flags;
#define PI_MEM_FLAGS_ACCESS_RW ((pi_mem_flags)1 << 0)
#define PI_MEM_FLAGS_ACCESS_WRITE_ONLY ((pi_mem_flags)1 << 1)
#define PI_MEM_FLAGS_ACCESS_READ_ONLY ((pi_mem_flags)1 << 2)
/* The buffer is the caller's memory at HostPtr (which must outlive it): what the host
 * wrote there before a command is what the command reads. A driver may keep a copy
 * (OpenCL's CL_MEM_USE_HOST_PTR may): what commands wrote is what reads of the buffer
 * return. */
#define PI_MEM_FLAGS_HOST_PTR_USE ((pi_mem_flags)1 << 3)
#define PI_MEM_FLAGS_HOST_PTR_COPY ((pi_mem_flags)1 << 5)

/* piMemBufferPartition: a sub-buffer of Size bytes at Origin of its parent, sharing its
 * bytes. */
typedef enum { PI_BUFFER_CREATE_TYPE_REGION = 0x1220 } pi_buffer_create_type;
typedef struct {
  size_t Origin;
  size_t Size;
} pi_buffer_region_struct;
typedef pi_buffer_region_struct *pi_buffer_region;

/* piEnqueueMemBufferMap: what the host does with the mapped bytes (OpenCL's cl_map_flags
 * numbering). READ and WRITE get the buffer's bytes; WRITE_INVALIDATE_REGION alone may get
 * any bytes (nothing is read), and excludes READ. 0 is READ | WRITE. What a map that may
 * write (WRITE, WRITE_INVALIDATE_REGION, 0) holds is written back by piEnqueueMemUnmap. */
typedef pi_bitfield pi_map_flags;
#define PI_MAP_READ ((pi_map_flags)1 << 0)
#define PI_MAP_WRITE ((pi_map_flags)1 << 1)
#define PI_MAP_WRITE_INVALIDATE_REGION ((pi_map_flags)1 << 2)

/* A rectangle of piEnqueueMemBufferRead/Write/CopyRect: offsets and region in bytes for
 * x, rows for y, slices for z; a pitch of 0 is the tight one (row: region[0], slice:
 * region[1] * row pitch). */
typedef struct {
  size_t x_bytes;
  size_t y_scalar;
  size_t z_scalar;
} pi_buff_rect_offset_struct;
typedef pi_buff_rect_offset_struct *pi_buff_rect_offset;
typedef struct {
  size_t width_bytes;
  size_t height_scalar;
  size_t depth_scalar;
} pi_buff_rect_region_struct;
typedef pi_buff_rect_region_struct *pi_buff_rect_region;

typedef pi_bitfield pi_usm_mem_properties; /* zero-terminated list; none defined yet */
typedef pi_bitfield pi_usm_capabilities;
#define PI_USM_ACCESS ((pi_usm_capabilities)1 << 0)        /* the device reads/writes it */
#define PI_USM_ATOMIC_ACCESS ((pi_usm_capabilities)1 << 1) /* ... with atomics too */

/* piextUSMGetMemAllocInfo (PI 1.2; DPC++'s numbers): what a pointer is. */
typedef enum {
  PI_MEM_ALLOC_TYPE = 0x419A,     /* pi_usm_type */
  PI_MEM_ALLOC_BASE_PTR = 0x419B, /* void *: the start of its allocation */
  PI_MEM_ALLOC_SIZE = 0x419C,     /* size_t: the size of its allocation */
  PI_MEM_ALLOC_DEVICE = 0x419D    /* pi_device of device and shared memory, else null */
} pi_mem_alloc_info;
typedef enum {
  PI_MEM_TYPE_UNKNOWN = 0x4196, /* not USM of the context (BASE_PTR, SIZE: null, 0) */
  PI_MEM_TYPE_HOST = 0x4197,
  PI_MEM_TYPE_DEVICE = 0x4198,
  PI_MEM_TYPE_SHARED = 0x4199
} pi_usm_type;

/* ---- programs and kernels ---- */
typedef enum {
  PI_PROGRAM_INFO_REFERENCE_COUNT = 0x1160,
  PI_PROGRAM_INFO_CONTEXT = 0x1161,
  PI_PROGRAM_INFO_NUM_DEVICES = 0x1162,
  PI_PROGRAM_INFO_DEVICES = 0x1163,
  PI_PROGRAM_INFO_BINARY_SIZES = 0x1165,
  PI_PROGRAM_INFO_BINARIES = 0x1166,
  PI_PROGRAM_INFO_NUM_KERNELS = 0x1167,
  PI_PROGRAM_INFO_KERNEL_NAMES = 0x1168,
  /* dglink: the image format the program was made from (pi_device_binary_format) */
  PI_EXT_PROGRAM_INFO_FORMAT = 0x20200,
  /* char[]: the device globals the program's images declare, one line each:
   * "<unique id> <bytes of the device instance> <device_image_scope 0|1>\n" (answered
   * by every adapter from the images' "SYCL/device globals"; empty when they declare none) */
  PI_EXT_PROGRAM_INFO_DEVICE_GLOBALS = 0x20201
} pi_program_info;

typedef enum {
  PI_PROGRAM_BUILD_INFO_STATUS = 0x1181,
  PI_PROGRAM_BUILD_INFO_OPTIONS = 0x1182,
  PI_PROGRAM_BUILD_INFO_LOG = 0x1183,
  PI_PROGRAM_BUILD_INFO_BINARY_TYPE = 0x1184
} pi_program_build_info;

typedef enum {
  PI_PROGRAM_BUILD_STATUS_NONE = -1,
  PI_PROGRAM_BUILD_STATUS_ERROR = -2,
  PI_PROGRAM_BUILD_STATUS_SUCCESS = 0,
  PI_PROGRAM_BUILD_STATUS_IN_PROGRESS = -3
} pi_program_build_status;

typedef enum {
  PI_PROGRAM_BINARY_TYPE_NONE = 0x0,
  PI_PROGRAM_BINARY_TYPE_COMPILED_OBJECT = 0x1,
  PI_PROGRAM_BINARY_TYPE_LIBRARY = 0x2,
  PI_PROGRAM_BINARY_TYPE_EXECUTABLE = 0x4
} pi_program_binary_type;

typedef enum {
  PI_KERNEL_INFO_FUNCTION_NAME = 0x1190,
  PI_KERNEL_INFO_NUM_ARGS = 0x1191,
  PI_KERNEL_INFO_REFERENCE_COUNT = 0x1192,
  PI_KERNEL_INFO_CONTEXT = 0x1193,
  PI_KERNEL_INFO_PROGRAM = 0x1194
} pi_kernel_info;

/* ---- events ---- */
typedef enum {
  PI_EVENT_COMPLETE = 0x0,
  PI_EVENT_RUNNING = 0x1,
  PI_EVENT_SUBMITTED = 0x2,
  PI_EVENT_QUEUED = 0x3
} pi_event_status;

typedef enum {
  PI_EVENT_INFO_COMMAND_QUEUE = 0x11D0,
  PI_EVENT_INFO_CONTEXT = 0x11D4,
  PI_EVENT_INFO_COMMAND_EXECUTION_STATUS = 0x11D3, /* pi_int32, pi_event_status */
  PI_EVENT_INFO_REFERENCE_COUNT = 0x11D2,
  PI_EVENT_INFO_COMMAND_TYPE = 0x11D1 /* pi_command_type */
} pi_event_info;

/* The command an event stands for: OpenCL's cl_command_type numbering, dglink's own
 * for the commands OpenCL has no name for. */
typedef enum {
  PI_COMMAND_TYPE_NDRANGE_KERNEL = 0x11F0,
  PI_COMMAND_TYPE_MEM_BUFFER_READ = 0x11F3,
  PI_COMMAND_TYPE_MEM_BUFFER_WRITE = 0x11F4,
  PI_COMMAND_TYPE_MEM_BUFFER_COPY = 0x11F5,
  PI_COMMAND_TYPE_IMAGE_READ = 0x11F6, /* images: UR faces only */
  PI_COMMAND_TYPE_IMAGE_WRITE = 0x11F7,
  PI_COMMAND_TYPE_IMAGE_COPY = 0x11F8,
  PI_COMMAND_TYPE_MEM_BUFFER_MAP = 0x11FB,
  PI_COMMAND_TYPE_MEM_BUFFER_UNMAP = 0x11FD,
  PI_COMMAND_TYPE_MARKER = 0x11FE,
  PI_COMMAND_TYPE_MEM_BUFFER_READ_RECT = 0x1201,
  PI_COMMAND_TYPE_MEM_BUFFER_WRITE_RECT = 0x1202,
  PI_COMMAND_TYPE_MEM_BUFFER_COPY_RECT = 0x1203,
  PI_COMMAND_TYPE_BARRIER = 0x1205,
  PI_COMMAND_TYPE_MEM_BUFFER_FILL = 0x1207,
  PI_COMMAND_TYPE_USM_FILL = 0x4204,
  PI_COMMAND_TYPE_USM_MEMCPY = 0x4205,
  PI_COMMAND_TYPE_USM_PREFETCH = 0x4206, /* cl_intel_unified_shared_memory's MIGRATEMEM */
  PI_COMMAND_TYPE_USM_ADVISE = 0x4207,   /* ... and MEMADVISE */
  PI_COMMAND_TYPE_DEVICE_GLOBAL_VARIABLE_READ = 0x20400,
  PI_COMMAND_TYPE_DEVICE_GLOBAL_VARIABLE_WRITE = 0x20401,
  PI_COMMAND_TYPE_EXT_COMMAND_BUFFER = 0x12A8, /* a command buffer's submission (DPC++'s number) */
  /* UR faces only (dglink's numbers): 2D USM copies and fills, timestamp recording */
  PI_COMMAND_TYPE_USM_FILL_2D = 0x20402,
  PI_COMMAND_TYPE_USM_MEMCPY_2D = 0x20403,
  PI_COMMAND_TYPE_TIMESTAMP_RECORDING = 0x20404
} pi_command_type;

/* piEventGetProfilingInfo: nanoseconds on one clock per device. Answered only for events
 * of queues made with PI_QUEUE_FLAG_PROFILING_ENABLE (else
 * PI_ERROR_PROFILING_INFO_NOT_AVAILABLE), once the command is complete (the call waits),
 * with QUEUED <= SUBMIT <= START <= END <= COMPLETE. */
typedef enum {
  PI_PROFILING_INFO_COMMAND_QUEUED = 0x1280,
  PI_PROFILING_INFO_COMMAND_SUBMIT = 0x1281,
  PI_PROFILING_INFO_COMMAND_START = 0x1282,
  PI_PROFILING_INFO_COMMAND_END = 0x1283,
  PI_PROFILING_INFO_COMMAND_COMPLETE = 0x1284
} pi_profiling_info;

/* ---- device images and property sets (laid out like DPC++'s) ---- */

/* Property value types. */
typedef enum {
  PI_PROPERTY_TYPE_UNKNOWN = 0,
  PI_PROPERTY_TYPE_UINT32 = 1,     /* value kept in ValSize, ValAddr is null */
  PI_PROPERTY_TYPE_BYTE_ARRAY = 2, /* ValAddr: 8-byte little-endian size in bits, then bytes;
                                      ValSize: bytes at ValAddr, the 8 included */
  PI_PROPERTY_TYPE_STRING = 3      /* ValAddr: NUL-terminated; ValSize: strlen + 1 */
} pi_property_type;

typedef struct _pi_device_binary_property_struct {
  char *Name;
  void *ValAddr;
  pi_uint32 Type;
  pi_uint64 ValSize;
} _pi_device_binary_property_struct;
typedef _pi_device_binary_property_struct *pi_device_binary_property;

typedef struct _pi_device_binary_property_set_struct {
  char *Name;
  pi_device_binary_property PropertiesBegin;
  pi_device_binary_property PropertiesEnd;
} _pi_device_binary_property_set_struct;
typedef _pi_device_binary_property_set_struct *pi_device_binary_property_set;

/* Names of the property sets dglink images carry. */
#define PI_PROPERTY_SET_DEVICE_GLOBALS "SYCL/device globals"
#define PI_PROPERTY_SET_EXPORTED_SYMBOLS "SYCL/exported symbols"
#define PI_PROPERTY_SET_IMPORTED_SYMBOLS "SYCL/imported symbols"
#define PI_PROPERTY_SET_VIRTUAL_FUNCTIONS "SYCL/virtual functions"
#define PI_PROPERTY_SET_PROGRAM_METADATA "SYCL/program metadata"
/* Images whose device globals `dglink compile --lower-device-globals` moved into storage
 * the OpenCL adapter owns (docs/opencl-lowering.md). The first set marks such an image:
 * "size" (byte array: uint64 bytes of storage) and "argument" (string "last": every
 * kernel takes a pointer to the storage as its last argument). The offsets set maps a
 * unique id to a byte array {uint64 offset; uint64 size}; the initializers set a unique
 * id to its initial bytes (absent: zero). */
#define PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_STORAGE "DGLINK/device global storage"
#define PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_OFFSETS "DGLINK/device global offsets"
#define PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_INITIALIZERS "DGLINK/device global initializers"

/* An entry of an image (a kernel), in the offload-entry layout. */
typedef struct _pi_offload_entry_struct {
  void *addr;
  char *name;
  size_t size;
  int32_t flags;
  int32_t reserved;
} _pi_offload_entry_struct;
typedef _pi_offload_entry_struct *_pi_offload_entry;

typedef enum {
  PI_DEVICE_BINARY_TYPE_NONE = 0,
  PI_DEVICE_BINARY_TYPE_NATIVE = 1, /* PTX, cubin, AMD code object, a driver's own binary */
  PI_DEVICE_BINARY_TYPE_SPIRV = 2,
  PI_DEVICE_BINARY_TYPE_LLVMIR_BITCODE = 3 /* SPIR: LLVM bitcode for spir64 */
} pi_device_binary_format;
typedef uint8_t pi_device_binary_type;

#define PI_DEVICE_BINARY_VERSION 1
#define PI_DEVICE_BINARY_OFFLOAD_KIND_SYCL 4

/* Image target names (DeviceTargetSpec). */
#define PI_DEVICE_BINARY_TARGET_UNKNOWN "<unknown>"
#define PI_DEVICE_BINARY_TARGET_SPIRV64 "spir64"
#define PI_DEVICE_BINARY_TARGET_SPIRV64_X86_64 "spir64_x86_64"
#define PI_DEVICE_BINARY_TARGET_SPIRV64_GEN "spir64_gen"
#define PI_DEVICE_BINARY_TARGET_SPIRV64_FPGA "spir64_fpga"
#define PI_DEVICE_BINARY_TARGET_NVPTX64 "nvptx64"
#define PI_DEVICE_BINARY_TARGET_AMDGCN "amdgcn"

typedef struct _pi_device_binary_struct {
  uint16_t Version;
  uint8_t Kind;
  uint8_t Format; /* pi_device_binary_format */
  const char *DeviceTargetSpec;
  const char *CompileOptions;
  const char *LinkOptions;
  const char *ManifestStart;
  const char *ManifestEnd;
  const unsigned char *BinaryStart;
  const unsigned char *BinaryEnd;
  _pi_offload_entry EntriesBegin;
  _pi_offload_entry EntriesEnd;
  pi_device_binary_property_set PropertySetsBegin;
  pi_device_binary_property_set PropertySetsEnd;
} _pi_device_binary_struct;
typedef _pi_device_binary_struct *pi_device_binary;

#define PI_DEVICE_BINARIES_VERSION 1
typedef struct _pi_device_binaries_struct {
  uint16_t Version;
  uint16_t NumDeviceBinaries;
  pi_device_binary DeviceBinaries;
  _pi_offload_entry HostEntriesBegin;
  _pi_offload_entry HostEntriesEnd;
} _pi_device_binaries_struct;
typedef _pi_device_binaries_struct *pi_device_binaries;

/* ---- extension strings (PI_DEVICE_INFO_EXTENSIONS), see docs/extension-strings.md ---- */
#define PI_EXT_DEVICE_GLOBAL_ACCESS "pi_ext_device_global_access"
#define PI_EXT_SPIRV64_LINKING "pi_ext_spirv64_linking" /* SPIR-V images, target spir64 */
#define PI_EXT_SPIR64_LINKING "pi_ext_spir64_linking"   /* SPIR (LLVM bitcode), target spir64 */
#define PI_EXT_NVPTX64_LINKING "pi_ext_nvptx64_linking" /* PTX images */
#define PI_EXT_AMDGCN_LINKING "pi_ext_amdgcn_linking"   /* AMD code objects */

/* ---- the entry points ---- */
#define PI_ENTRY_POINTS(X)                                                                         \
  X(piPlatformsGet, pi_result,                                                                     \
    (pi_uint32 NumEntries, pi_platform * Platforms, pi_uint32 * NumPlatforms))                     \
  X(piPlatformGetInfo, pi_result,                                                                  \
    (pi_platform Platform, pi_platform_info ParamName, size_t ParamValueSize, void *ParamValue,    \
     size_t *ParamValueSizeRet))                                                                   \
  X(piDevicesGet, pi_result,                                                                       \
    (pi_platform Platform, pi_device_type DeviceType, pi_uint32 NumEntries, pi_device * Devices,   \
     pi_uint32 * NumDevices))                                                                      \
  X(piDeviceGetInfo, pi_result,                                                                    \
    (pi_device Device, pi_device_info ParamName, size_t ParamValueSize, void *ParamValue,          \
     size_t *ParamValueSizeRet))                                                                   \
  X(piDeviceRetain, pi_result, (pi_device Device))                                                 \
  X(piDeviceRelease, pi_result, (pi_device Device))                                                \
  X(piContextCreate, pi_result,                                                                    \
    (const pi_context_properties *Properties, pi_uint32 NumDevices, const pi_device *Devices,      \
     pi_context *RetContext))                                                                      \
  X(piContextGetInfo, pi_result,                                                                   \
    (pi_context Context, pi_context_info ParamName, size_t ParamValueSize, void *ParamValue,       \
     size_t *ParamValueSizeRet))                                                                   \
  X(piContextRetain, pi_result, (pi_context Context))                                              \
  X(piContextRelease, pi_result, (pi_context Context))                                             \
  X(piQueueCreate, pi_result,                                                                      \
    (pi_context Context, pi_device Device, pi_queue_properties Properties, pi_queue * RetQueue))   \
  X(piQueueGetInfo, pi_result,                                                                     \
    (pi_queue Queue, pi_queue_info ParamName, size_t ParamValueSize, void *ParamValue,             \
     size_t *ParamValueSizeRet))                                                                   \
  X(piQueueFinish, pi_result, (pi_queue Queue))                                                    \
  X(piQueueRetain, pi_result, (pi_queue Queue))                                                    \
  X(piQueueRelease, pi_result, (pi_queue Queue))                                                   \
  X(piMemBufferCreate, pi_result,                                                                  \
    (pi_context Context, pi_mem_flags Flags, size_t Size, void *HostPtr, pi_mem *RetMem))          \
  X(piMemRetain, pi_result, (pi_mem Mem))                                                          \
  X(piMemRelease, pi_result, (pi_mem Mem))                                                         \
  X(piEnqueueMemBufferRead, pi_result,                                                             \
    (pi_queue Queue, pi_mem Buffer, pi_bool BlockingRead, size_t Offset, size_t Size, void *Dst,   \
     pi_uint32 NumEventsInWaitList, const pi_event *EventWaitList, pi_event *Event))               \
  X(piEnqueueMemBufferWrite, pi_result,                                                            \
    (pi_queue Queue, pi_mem Buffer, pi_bool BlockingWrite, size_t Offset, size_t Size,             \
     const void *Src, pi_uint32 NumEventsInWaitList, const pi_event *EventWaitList,                \
     pi_event *Event))                                                                             \
  X(piextUSMDeviceAlloc, pi_result,                                                                \
    (void **ResultPtr, pi_context Context, pi_device Device,                                       \
     const pi_usm_mem_properties *Properties, size_t Size, pi_uint32 Alignment))                   \
  X(piextUSMHostAlloc, pi_result,                                                                  \
    (void **ResultPtr, pi_context Context, const pi_usm_mem_properties *Properties, size_t Size,   \
     pi_uint32 Alignment))                                                                         \
  X(piextUSMSharedAlloc, pi_result,                                                                \
    (void **ResultPtr, pi_context Context, pi_device Device,                                       \
     const pi_usm_mem_properties *Properties, size_t Size, pi_uint32 Alignment))                   \
  X(piextUSMFree, pi_result, (pi_context Context, void *Ptr))                                      \
  X(piextUSMEnqueueMemcpy, pi_result,                                                              \
    (pi_queue Queue, pi_bool Blocking, void *Dst, const void *Src, size_t Size,                    \
     pi_uint32 NumEventsInWaitList, const pi_event *EventWaitList, pi_event *Event))               \
  X(piextUSMEnqueueFill, pi_result,                                                                \
    (pi_queue Queue, void *Ptr, const void *Pattern, size_t PatternSize, size_t Size,              \
     pi_uint32 NumEventsInWaitList, const pi_event *EventWaitList, pi_event *Event))               \
  X(piProgramCreate, pi_result,                                                                    \
    (pi_context Context, const void *IL, size_t Length, pi_program *RetProgram))                   \
  X(piProgramCreateWithBinary, pi_result,                                                          \
    (pi_context Context, pi_uint32 NumDevices, const pi_device *DeviceList, const size_t *Lengths, \
     const unsigned char **Binaries, size_t NumMetadataEntries,                                    \
     const pi_device_binary_property *Metadata, pi_int32 *BinaryStatus, pi_program *RetProgram))   \
  X(piextProgramCreateWithImage, pi_result,                                                        \
    (pi_context Context, pi_uint32 NumDevices, const pi_device *DeviceList,                        \
     const _pi_device_binary_struct *Image, pi_program *RetProgram))                               \
  X(piProgramCompile, pi_result,                                                                   \
    (pi_program Program, pi_uint32 NumDevices, const pi_device *DeviceList, const char *Options,   \
     pi_uint32 NumInputHeaders, const pi_program *InputHeaders, const char **HeaderIncludeNames,   \
     void (*PfnNotify)(pi_program Program, void *UserData), void *UserData))                       \
  X(piProgramLink, pi_result,                                                                      \
    (pi_context Context, pi_uint32 NumDevices, const pi_device *DeviceList, const char *Options,   \
     pi_uint32 NumInputPrograms, const pi_program *InputPrograms,                                  \
     void (*PfnNotify)(pi_program Program, void *UserData), void *UserData,                        \
     pi_program *RetProgram))                                                                      \
  X(piProgramBuild, pi_result,                                                                     \
    (pi_program Program, pi_uint32 NumDevices, const pi_device *DeviceList, const char *Options,   \
     void (*PfnNotify)(pi_program Program, void *UserData), void *UserData))                       \
  X(piProgramGetInfo, pi_result,                                                                   \
    (pi_program Program, pi_program_info ParamName, size_t ParamValueSize, void *ParamValue,       \
     size_t *ParamValueSizeRet))                                                                   \
  X(piProgramGetBuildInfo, pi_result,                                                              \
    (pi_program Program, pi_device Device, pi_program_build_info ParamName, size_t ParamValueSize, \
     void *ParamValue, size_t *ParamValueSizeRet))                                                 \
  X(piProgramRetain, pi_result, (pi_program Program))                                              \
  X(piProgramRelease, pi_result, (pi_program Program))                                             \
  X(piKernelCreate, pi_result, (pi_program Program, const char *KernelName, pi_kernel *RetKernel)) \
  X(piKernelSetArg, pi_result,                                                                     \
    (pi_kernel Kernel, pi_uint32 ArgIndex, size_t ArgSize, const void *ArgValue))                  \
  X(piextKernelSetArgPointer, pi_result,                                                           \
    (pi_kernel Kernel, pi_uint32 ArgIndex, size_t ArgSize, const void *ArgValue))                  \
  X(piextKernelSetArgMemObj, pi_result,                                                            \
    (pi_kernel Kernel, pi_uint32 ArgIndex, const pi_mem *ArgValue))                                \
  X(piKernelGetInfo, pi_result,                                                                    \
    (pi_kernel Kernel, pi_kernel_info ParamName, size_t ParamValueSize, void *ParamValue,          \
     size_t *ParamValueSizeRet))                                                                   \
  X(piKernelRetain, pi_result, (pi_kernel Kernel))                                                 \
  X(piKernelRelease, pi_result, (pi_kernel Kernel))                                                \
  X(piEnqueueKernelLaunch, pi_result,                                                              \
    (pi_queue Queue, pi_kernel Kernel, pi_uint32 WorkDim, const size_t *GlobalWorkOffset,          \
     const size_t *GlobalWorkSize, const size_t *LocalWorkSize, pi_uint32 NumEventsInWaitList,     \
     const pi_event *EventWaitList, pi_event *Event))                                              \
  X(piEventsWait, pi_result, (pi_uint32 NumEvents, const pi_event *EventList))                     \
  X(piEventGetInfo, pi_result,                                                                     \
    (pi_event Event, pi_event_info ParamName, size_t ParamValueSize, void *ParamValue,             \
     size_t *ParamValueSizeRet))                                                                   \
  X(piEventRetain, pi_result, (pi_event Event))                                                    \
  X(piEventRelease, pi_result, (pi_event Event))                                                   \
  X(piEnqueueEventsWait, pi_result,                                                                \
    (pi_queue Queue, pi_uint32 NumEventsInWaitList, const pi_event *EventWaitList,                 \
     pi_event *Event))                                                                             \
  X(piEnqueueEventsWaitWithBarrier, pi_result,                                                     \
    (pi_queue Queue, pi_uint32 NumEventsInWaitList, const pi_event *EventWaitList,                 \
     pi_event *Event))                                                                             \
  X(piextEnqueueDeviceGlobalVariableRead, pi_result,                                               \
    (pi_queue Queue, pi_program Program, const char *Name, pi_bool BlockingRead, size_t Count,     \
     size_t Offset, void *Dst, pi_uint32 NumEventsInWaitList, const pi_event *EventsWaitList,      \
     pi_event *Event))                                                                             \
  X(piextEnqueueDeviceGlobalVariableWrite, pi_result,                                              \
    (pi_queue Queue, pi_program Program, const char *Name, pi_bool BlockingWrite, size_t Count,    \
     size_t Offset, const void *Src, pi_uint32 NumEventsInWaitList,                                \
     const pi_event *EventsWaitList, pi_event *Event))                                             \
  X(piPluginGetLastError, pi_result, (char **Message))                                             \
  X(piTearDown, pi_result, (void *PluginParameter))                                                \
  /* PI 1.1 */                                                                                     \
  X(piMemBufferPartition, pi_result,                                                               \
    (pi_mem Buffer, pi_mem_flags Flags, pi_buffer_create_type Type, void *CreateInfo,              \
     pi_mem *RetMem))                                                                              \
  X(piEnqueueMemBufferCopy, pi_result,                                                             \
    (pi_queue Queue, pi_mem SrcBuffer, pi_mem DstBuffer, size_t SrcOffset, size_t DstOffset,       \
     size_t Size, pi_uint32 NumEventsInWaitList, const pi_event *EventWaitList, pi_event *Event))  \
  X(piEnqueueMemBufferFill, pi_result,                                                             \
    (pi_queue Queue, pi_mem Buffer, const void *Pattern, size_t PatternSize, size_t Offset,        \
     size_t Size, pi_uint32 NumEventsInWaitList, const pi_event *EventWaitList, pi_event *Event))  \
  X(piEnqueueMemBufferReadRect, pi_result,                                                         \
    (pi_queue Queue, pi_mem Buffer, pi_bool BlockingRead, pi_buff_rect_offset BufferOffset,        \
     pi_buff_rect_offset HostOffset, pi_buff_rect_region Region, size_t BufferRowPitch,            \
     size_t BufferSlicePitch, size_t HostRowPitch, size_t HostSlicePitch, void *Ptr,               \
     pi_uint32 NumEventsInWaitList, const pi_event *EventWaitList, pi_event *Event))               \
  X(piEnqueueMemBufferWriteRect, pi_result,                                                        \
    (pi_queue Queue, pi_mem Buffer, pi_bool BlockingWrite, pi_buff_rect_offset BufferOffset,       \
     pi_buff_rect_offset HostOffset, pi_buff_rect_region Region, size_t BufferRowPitch,            \
     size_t BufferSlicePitch, size_t HostRowPitch, size_t HostSlicePitch, const void *Ptr,         \
     pi_uint32 NumEventsInWaitList, const pi_event *EventWaitList, pi_event *Event))               \
  X(piEnqueueMemBufferCopyRect, pi_result,                                                         \
    (pi_queue Queue, pi_mem SrcBuffer, pi_mem DstBuffer, pi_buff_rect_offset SrcOrigin,            \
     pi_buff_rect_offset DstOrigin, pi_buff_rect_region Region, size_t SrcRowPitch,                \
     size_t SrcSlicePitch, size_t DstRowPitch, size_t DstSlicePitch,                               \
     pi_uint32 NumEventsInWaitList, const pi_event *EventWaitList, pi_event *Event))               \
  X(piEventGetProfilingInfo, pi_result,                                                            \
    (pi_event Event, pi_profiling_info ParamName, size_t ParamValueSize, void *ParamValue,         \
     size_t *ParamValueSizeRet))                                                                   \
  X(piEventSetCallback, pi_result,                                                                 \
    (pi_event Event, pi_int32 CommandExecCallbackType,                                             \
     void (*PfnNotify)(pi_event Event, pi_int32 EventCommandStatus, void *UserData),               \
     void *UserData))                                                                              \
  /* PI 1.2 */                                                                                     \
  X(piextUSMGetMemAllocInfo, pi_result,                                                            \
    (pi_context Context, const void *Ptr, pi_mem_alloc_info ParamName, size_t ParamValueSize,      \
     void *ParamValue, size_t *ParamValueSizeRet))                                                 \
  X(piEnqueueMemBufferMap, pi_result,                                                              \
    (pi_queue Queue, pi_mem Buffer, pi_bool BlockingMap, pi_map_flags MapFlags, size_t Offset,     \
     size_t Size, pi_uint32 NumEventsInWaitList, const pi_event *EventWaitList, pi_event *Event,   \
     void **RetMap))                                                                               \
  X(piEnqueueMemUnmap, pi_result,                                                                  \
    (pi_queue Queue, pi_mem Buffer, void *MappedPtr, pi_uint32 NumEventsInWaitList,                \
     const pi_event *EventWaitList, pi_event *Event))

/* The function table an adapter fills in piPluginInit. */
struct _pi_plugin_functions {
#define PI_DECLARE_TABLE_ENTRY(Name, Ret, Params) Ret(PI_CALL *Name) Params;
  PI_ENTRY_POINTS(PI_DECLARE_TABLE_ENTRY)
#undef PI_DECLARE_TABLE_ENTRY
};
typedef struct _pi_plugin_functions pi_plugin_functions;

typedef struct _pi_plugin {
  /* In: the ABI version the caller speaks ("MAJOR.MINOR"). Out: unchanged. */
  char PiVersion[20];
  /* Out: the adapter's own ABI version. */
  char PluginVersion[20];
  /* Out: the adapter's name, a static string ("opencl", "cuda", ...). */
  const char *Targets;
  pi_plugin_functions PiFunctionTable;
} pi_plugin;

/* Every adapter (and the dispatch layer) exports these, plus every entry point
 * under its own name. */
#define PI_DECLARE_EXPORT(Name, Ret, Params) PI_API_EXPORT Ret PI_CALL Name Params;
PI_ENTRY_POINTS(PI_DECLARE_EXPORT)
#undef PI_DECLARE_EXPORT
PI_API_EXPORT pi_result PI_CALL piPluginInit(pi_plugin *PluginInfo);

#ifdef __cplusplus
}
#endif

#endif /* DGLINK_PI_H */
