// Native handles through the Unified Runtime face (urXGetNativeHandle, docs/ur.md): a
// scenario of dglink_conformance_ur only (PI has no such entry points), on the same
// fixtures as the others. Every handle a dglink UR adapter gives is checked with the
// backend's own API, called directly: the OpenCL ICD loader, the Level Zero loader,
// the CUDA driver (CUDA, and HIP's NVIDIA build, whose streams, modules, functions and
// events are CUDA's). Through the bridge, a pi_* handle is the UR handle.
#include "fixtures.h"

#include <unified-runtime/ur_api.h>

#ifdef DGLINK_NATIVE_OPENCL
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#endif
#ifdef DGLINK_NATIVE_LEVEL_ZERO
#include <dlfcn.h>
#include <level_zero/ze_api.h>
#endif
#ifdef DGLINK_NATIVE_CUDA
#include "cuda_driver.h"
#endif

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

namespace dglink::conformance {
namespace {

template <typename Pi> auto asUr(Pi Handle) {
  if constexpr (std::is_same_v<Pi, pi_platform>)
    return reinterpret_cast<ur_platform_handle_t>(Handle);
  else if constexpr (std::is_same_v<Pi, pi_device>)
    return reinterpret_cast<ur_device_handle_t>(Handle);
  else if constexpr (std::is_same_v<Pi, pi_context>)
    return reinterpret_cast<ur_context_handle_t>(Handle);
  else if constexpr (std::is_same_v<Pi, pi_queue>)
    return reinterpret_cast<ur_queue_handle_t>(Handle);
  else if constexpr (std::is_same_v<Pi, pi_mem>)
    return reinterpret_cast<ur_mem_handle_t>(Handle);
  else if constexpr (std::is_same_v<Pi, pi_program>)
    return reinterpret_cast<ur_program_handle_t>(Handle);
  else if constexpr (std::is_same_v<Pi, pi_kernel>)
    return reinterpret_cast<ur_kernel_handle_t>(Handle);
  else
    return reinterpret_cast<ur_event_handle_t>(Handle);
}

// The native handles of one set of objects; Has* false where the adapter answered
// UR_RESULT_ERROR_UNSUPPORTED_FEATURE.
struct Natives {
  ur_native_handle_t Platform = 0, Device = 0, Context = 0, Queue = 0, Mem = 0, Program = 0,
                     Kernel = 0, Event = 0;
  bool HasPlatform = false, HasContext = false;
};

class NativeHandles : public BuiltProgramTest {
protected:
  static constexpr const char *KernelName = "dg_read_counter";
  static constexpr size_t BufferBytes = 64;

  // Builds the objects and asks for every native handle.
  void collect(Natives &Out) {
    ASSERT_NO_FATAL_FAILURE(buildProgram("device_globals", Program));
    ASSERT_NO_FATAL_FAILURE(createKernel(Program.get(), KernelName, Kernel));
    ASSERT_PI_SUCCESS(piMemBufferCreate(Context.get(), PI_MEM_FLAGS_ACCESS_RW, BufferBytes, nullptr,
                                        Buffer.out()));
    const std::vector<char> Bytes(BufferBytes, 7);
    ASSERT_PI_SUCCESS(piEnqueueMemBufferWrite(Queue.get(), Buffer.get(), PI_TRUE, 0, BufferBytes,
                                              Bytes.data(), 0, nullptr, Event.out()));

    const ur_result_t PlatformResult = urPlatformGetNativeHandle(asUr(Platform), &Out.Platform);
    ASSERT_TRUE(PlatformResult == UR_RESULT_SUCCESS ||
                PlatformResult == UR_RESULT_ERROR_UNSUPPORTED_FEATURE)
        << "urPlatformGetNativeHandle answered " << PlatformResult;
    Out.HasPlatform = PlatformResult == UR_RESULT_SUCCESS;
    const ur_result_t ContextResult = urContextGetNativeHandle(asUr(Context.get()), &Out.Context);
    ASSERT_TRUE(ContextResult == UR_RESULT_SUCCESS ||
                ContextResult == UR_RESULT_ERROR_UNSUPPORTED_FEATURE)
        << "urContextGetNativeHandle answered " << ContextResult;
    Out.HasContext = ContextResult == UR_RESULT_SUCCESS;
    ASSERT_EQ(urDeviceGetNativeHandle(asUr(Device), &Out.Device), UR_RESULT_SUCCESS);
    ASSERT_EQ(urQueueGetNativeHandle(asUr(Queue.get()), nullptr, &Out.Queue), UR_RESULT_SUCCESS);
    ASSERT_EQ(urMemGetNativeHandle(asUr(Buffer.get()), asUr(Device), &Out.Mem), UR_RESULT_SUCCESS);
    ASSERT_EQ(urProgramGetNativeHandle(asUr(Program.get()), &Out.Program), UR_RESULT_SUCCESS);
    ASSERT_EQ(urKernelGetNativeHandle(asUr(Kernel.get()), &Out.Kernel), UR_RESULT_SUCCESS);
    ASSERT_EQ(urEventGetNativeHandle(asUr(Event.get()), &Out.Event), UR_RESULT_SUCCESS);
    // (A device may be 0: CUDA's and HIP's first device is CUdevice / hipDevice_t 0.)
    for (ur_native_handle_t Handle : {Out.Queue, Out.Mem, Out.Program, Out.Kernel, Out.Event})
      EXPECT_NE(Handle, 0U);
  }

  ProgramHandle Program;
  KernelHandle Kernel;
  MemHandle Buffer;
  EventHandle Event;
};

#ifdef DGLINK_NATIVE_OPENCL
template <typename T, typename Query, typename Object, typename Name>
T clInfo(Query Function, Object Handle, Name Param) {
  T Value{};
  // T is often a handle (a pointer): its size is what the query writes.
  EXPECT_EQ(
      Function(Handle, Param, sizeof(T), &Value, nullptr), // NOLINT(bugprone-sizeof-expression)
      CL_SUCCESS);
  return Value;
}

void checkOpenCl(const Natives &N, const std::string &DeviceName) {
  const auto Device = reinterpret_cast<cl_device_id>(N.Device);
  const auto Context = reinterpret_cast<cl_context>(N.Context);
  ASSERT_TRUE(N.HasPlatform && N.HasContext) << "OpenCL has platform and context handles";
  EXPECT_EQ(clInfo<cl_platform_id>(clGetDeviceInfo, Device, CL_DEVICE_PLATFORM),
            reinterpret_cast<cl_platform_id>(N.Platform));
  char Name[256] = {};
  ASSERT_EQ(clGetDeviceInfo(Device, CL_DEVICE_NAME, sizeof(Name) - 1, Name, nullptr), CL_SUCCESS);
  EXPECT_EQ(DeviceName, Name);
  cl_device_id ContextDevice = nullptr;
  const size_t DeviceBytes = sizeof(ContextDevice); // NOLINT(bugprone-sizeof-expression)
  ASSERT_EQ(clGetContextInfo(Context, CL_CONTEXT_DEVICES, DeviceBytes, &ContextDevice, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(ContextDevice, Device);
  const auto Queue = reinterpret_cast<cl_command_queue>(N.Queue);
  EXPECT_EQ(clInfo<cl_context>(clGetCommandQueueInfo, Queue, CL_QUEUE_CONTEXT), Context);
  EXPECT_EQ(clInfo<cl_device_id>(clGetCommandQueueInfo, Queue, CL_QUEUE_DEVICE), Device);
  const auto Mem = reinterpret_cast<cl_mem>(N.Mem);
  EXPECT_EQ(clInfo<size_t>(clGetMemObjectInfo, Mem, CL_MEM_SIZE), 64U);
  EXPECT_EQ(clInfo<cl_context>(clGetMemObjectInfo, Mem, CL_MEM_CONTEXT), Context);
  // The buffer's bytes, read with OpenCL itself.
  char Bytes[64] = {};
  ASSERT_EQ(clEnqueueReadBuffer(Queue, Mem, CL_TRUE, 0, sizeof(Bytes), Bytes, 0, nullptr, nullptr),
            CL_SUCCESS);
  EXPECT_EQ(Bytes[0], 7);
  EXPECT_EQ(Bytes[63], 7);
  const auto Program = reinterpret_cast<cl_program>(N.Program);
  EXPECT_EQ(clInfo<cl_context>(clGetProgramInfo, Program, CL_PROGRAM_CONTEXT), Context);
  const auto Kernel = reinterpret_cast<cl_kernel>(N.Kernel);
  EXPECT_EQ(clInfo<cl_program>(clGetKernelInfo, Kernel, CL_KERNEL_PROGRAM), Program);
  char KernelName[64] = {};
  ASSERT_EQ(
      clGetKernelInfo(Kernel, CL_KERNEL_FUNCTION_NAME, sizeof(KernelName) - 1, KernelName, nullptr),
      CL_SUCCESS);
  EXPECT_STREQ(KernelName, "dg_read_counter");
  const auto Event = reinterpret_cast<cl_event>(N.Event);
  EXPECT_EQ(clInfo<cl_context>(clGetEventInfo, Event, CL_EVENT_CONTEXT), Context);
  EXPECT_EQ(clInfo<cl_int>(clGetEventInfo, Event, CL_EVENT_COMMAND_EXECUTION_STATUS), CL_COMPLETE);
}
#endif

#ifdef DGLINK_NATIVE_LEVEL_ZERO
// The Level Zero loader the adapter uses, opened as the adapter opens it (at run time),
// so that this program runs where there is none.
struct ZeFunctions {
  decltype(&zeDeviceGet) DeviceGet = nullptr;
  decltype(&zeDeviceGetProperties) DeviceGetProperties = nullptr;
  decltype(&zeMemGetAllocProperties) MemGetAllocProperties = nullptr;
  decltype(&zeModuleGetKernelNames) ModuleGetKernelNames = nullptr;
  decltype(&zeKernelGetProperties) KernelGetProperties = nullptr;
  decltype(&zeEventQueryStatus) EventQueryStatus = nullptr;
  decltype(&zeCommandListAppendBarrier) CommandListAppendBarrier = nullptr;

  bool open(std::string &Why) {
    void *Library = dlopen("libze_loader.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (Library == nullptr) {
      Why = "libze_loader.so.1 cannot be opened";
      return false;
    }
    bool All = true;
    auto Find = [&](auto &Slot, const char *Name) {
      Slot = reinterpret_cast<std::remove_reference_t<decltype(Slot)>>(dlsym(Library, Name));
      if (Slot == nullptr) {
        Why = std::string("the Level Zero loader has no ") + Name;
        All = false;
      }
    };
    Find(DeviceGet, "zeDeviceGet");
    Find(DeviceGetProperties, "zeDeviceGetProperties");
    Find(MemGetAllocProperties, "zeMemGetAllocProperties");
    Find(ModuleGetKernelNames, "zeModuleGetKernelNames");
    Find(KernelGetProperties, "zeKernelGetProperties");
    Find(EventQueryStatus, "zeEventQueryStatus");
    Find(CommandListAppendBarrier, "zeCommandListAppendBarrier");
    return All;
  }
};

void checkLevelZero(const Natives &N, const std::string &DeviceName) {
  ZeFunctions Ze;
  std::string Why;
  ASSERT_TRUE(Ze.open(Why)) << Why;
  ASSERT_TRUE(N.HasPlatform && N.HasContext) << "Level Zero has driver and context handles";
  const auto Driver = reinterpret_cast<ze_driver_handle_t>(N.Platform);
  const auto Device = reinterpret_cast<ze_device_handle_t>(N.Device);
  uint32_t Count = 0;
  ASSERT_EQ(Ze.DeviceGet(Driver, &Count, nullptr), ZE_RESULT_SUCCESS);
  std::vector<ze_device_handle_t> Devices(Count);
  ASSERT_EQ(Ze.DeviceGet(Driver, &Count, Devices.data()), ZE_RESULT_SUCCESS);
  EXPECT_NE(std::find(Devices.begin(), Devices.end(), Device), Devices.end())
      << "the device is not one of its driver's";
  ze_device_properties_t Properties{};
  Properties.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
  ASSERT_EQ(Ze.DeviceGetProperties(Device, &Properties), ZE_RESULT_SUCCESS);
  EXPECT_EQ(DeviceName, Properties.name);
  // The buffer is a device allocation of the context, on the device.
  ze_memory_allocation_properties_t Allocation{};
  Allocation.stype = ZE_STRUCTURE_TYPE_MEMORY_ALLOCATION_PROPERTIES;
  ze_device_handle_t Owner = nullptr;
  ASSERT_EQ(Ze.MemGetAllocProperties(reinterpret_cast<ze_context_handle_t>(N.Context),
                                     reinterpret_cast<void *>(N.Mem), &Allocation, &Owner),
            ZE_RESULT_SUCCESS);
  EXPECT_EQ(Allocation.type, ZE_MEMORY_TYPE_DEVICE);
  EXPECT_EQ(Owner, Device);
  uint32_t Kernels = 0;
  ASSERT_EQ(
      Ze.ModuleGetKernelNames(reinterpret_cast<ze_module_handle_t>(N.Program), &Kernels, nullptr),
      ZE_RESULT_SUCCESS);
  EXPECT_GE(Kernels, 1U);
  ze_kernel_properties_t KernelProperties{};
  KernelProperties.stype = ZE_STRUCTURE_TYPE_KERNEL_PROPERTIES;
  ASSERT_EQ(
      Ze.KernelGetProperties(reinterpret_cast<ze_kernel_handle_t>(N.Kernel), &KernelProperties),
      ZE_RESULT_SUCCESS);
  EXPECT_EQ(KernelProperties.numKernelArgs, 1U);
  EXPECT_EQ(Ze.EventQueryStatus(reinterpret_cast<ze_event_handle_t>(N.Event)), ZE_RESULT_SUCCESS);
  // The queue is an immediate command list: a barrier appended to it is taken.
  EXPECT_EQ(Ze.CommandListAppendBarrier(reinterpret_cast<ze_command_list_handle_t>(N.Queue),
                                        nullptr, 0, nullptr),
            ZE_RESULT_SUCCESS);
}
#endif

#ifdef DGLINK_NATIVE_CUDA
// CUDA's objects; HIP's NVIDIA build hands out the same kinds (its device is the
// ordinal, and it has no context handle).
void checkCuda(const Natives &N, const std::string &DeviceName, bool Hip, int Ordinal) {
  using dglink::cuda::cu;
  std::string Why;
  ASSERT_TRUE(dglink::cuda::loadCudaDriver(&Why)) << Why;
  EXPECT_FALSE(N.HasPlatform) << "CUDA has no platform handle";
  CUdevice Device = 0;
  ASSERT_EQ(cu().cuDeviceGet(&Device, Ordinal), CUDA_SUCCESS);
  if (Hip) {
    EXPECT_EQ(N.Device, static_cast<ur_native_handle_t>(Ordinal)) << "hipDevice_t is the ordinal";
    EXPECT_FALSE(N.HasContext) << "HIP hands out no context";
  } else {
    EXPECT_EQ(N.Device, static_cast<ur_native_handle_t>(Device));
    char Name[256] = {};
    ASSERT_EQ(cu().cuDeviceGetName(Name, sizeof(Name) - 1, Device), CUDA_SUCCESS);
    EXPECT_EQ(DeviceName, Name);
    ASSERT_TRUE(N.HasContext);
  }
  // The buffer's context (the device's primary context) and bytes.
  CUcontext Owner = nullptr;
  ASSERT_EQ(cu().cuPointerGetAttribute(&Owner, CU_POINTER_ATTRIBUTE_CONTEXT,
                                       static_cast<CUdeviceptr>(N.Mem)),
            CUDA_SUCCESS);
  ASSERT_NE(Owner, nullptr);
  if (!Hip) {
    EXPECT_EQ(reinterpret_cast<ur_native_handle_t>(Owner), N.Context);
  }
  ASSERT_EQ(cu().cuCtxSetCurrent(Owner), CUDA_SUCCESS);
  char Bytes[64] = {};
  const auto Stream = reinterpret_cast<CUstream>(N.Queue);
  ASSERT_EQ(cu().cuMemcpyDtoHAsync(Bytes, static_cast<CUdeviceptr>(N.Mem), sizeof(Bytes), Stream),
            CUDA_SUCCESS);
  ASSERT_EQ(cu().cuStreamSynchronize(Stream), CUDA_SUCCESS);
  EXPECT_EQ(Bytes[0], 7);
  EXPECT_EQ(Bytes[63], 7);
  EXPECT_EQ(cu().cuEventQuery(reinterpret_cast<CUevent>(N.Event)), CUDA_SUCCESS);
  CUfunction Function = nullptr;
  ASSERT_EQ(
      cu().cuModuleGetFunction(&Function, reinterpret_cast<CUmodule>(N.Program), "dg_read_counter"),
      CUDA_SUCCESS);
  int Threads = 0;
  EXPECT_EQ(cu().cuFuncGetAttribute(&Threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                    reinterpret_cast<CUfunction>(N.Kernel)),
            CUDA_SUCCESS);
  EXPECT_GT(Threads, 0);
}
#endif

TEST_P(NativeHandles, EveryHandleIsTheDriversOwn) {
  Natives N;
  ASSERT_NO_FATAL_FAILURE(collect(N));
  const std::string &Backend = GetParam().Backend;
  const std::string &Name = GetParam().Name;
  if (Backend == "opencl") {
#ifdef DGLINK_NATIVE_OPENCL
    checkOpenCl(N, Name);
    return;
#endif
  } else if (Backend == "level_zero") {
#ifdef DGLINK_NATIVE_LEVEL_ZERO
    checkLevelZero(N, Name);
    return;
#endif
  } else if (Backend == "cuda" || Backend == "hip_nvidia") {
#ifdef DGLINK_NATIVE_CUDA
    // The device's ordinal: its place among its platform's devices.
    pi_uint32 Count = 0;
    ASSERT_PI_SUCCESS(piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 0, nullptr, &Count));
    std::vector<pi_device> Devices(Count);
    ASSERT_PI_SUCCESS(piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, Count, Devices.data(), nullptr));
    const auto At = std::find(Devices.begin(), Devices.end(), Device);
    ASSERT_NE(At, Devices.end());
    // (Root devices: not released, as PI has it.)
    checkCuda(N, Name, Backend == "hip_nvidia", static_cast<int>(At - Devices.begin()));
    return;
#endif
  }
  GTEST_SKIP() << "handles obtained; this build cannot call the " << Backend
               << " driver to check them";
}

TEST_P(NativeHandles, BadArgumentsGetUrCodes) {
  // (A null handle never reaches the adapter: the loader reads the handle's table first.)
  ur_native_handle_t Out = 0;
  EXPECT_EQ(urDeviceGetNativeHandle(asUr(Device), nullptr), UR_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(urContextGetNativeHandle(asUr(Context.get()), nullptr),
            UR_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(urQueueGetNativeHandle(asUr(Queue.get()), nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(Out, 0U) << "a refused call wrote its output";
  // A program that is not built yet has no module on a driver of modules.
  ProgramHandle Unbuilt;
  ASSERT_NO_FATAL_FAILURE(createProgram("device_globals", Format, Unbuilt));
  const ur_result_t Result = urProgramGetNativeHandle(asUr(Unbuilt.get()), &Out);
  if (GetParam().Backend == "opencl") {
    EXPECT_EQ(Result, UR_RESULT_SUCCESS) << "a cl_program exists before its build";
  } else {
    EXPECT_EQ(Result, UR_RESULT_ERROR_UNSUPPORTED_FEATURE);
    EXPECT_EQ(Out, 0U);
    const char *Message = nullptr;
    int32_t Code = 0;
    ur_adapter_handle_t Adapter = nullptr;
    const size_t AdapterBytes = sizeof(Adapter); // NOLINT(bugprone-sizeof-expression)
    ASSERT_EQ(urPlatformGetInfo(asUr(Platform), UR_PLATFORM_INFO_ADAPTER, AdapterBytes, &Adapter,
                                nullptr),
              UR_RESULT_SUCCESS);
    ASSERT_EQ(urAdapterGetLastError(Adapter, &Message, &Code), UR_RESULT_SUCCESS);
    ASSERT_NE(Message, nullptr);
    EXPECT_NE(std::strstr(Message, "urProgramGetNativeHandle"), nullptr) << Message;
  }
}

// The adapter of the fixture's platform (urContextCreateWithNativeHandle takes it).
ur_adapter_handle_t adapterOf(pi_platform Platform) {
  ur_adapter_handle_t Adapter = nullptr;
  const size_t AdapterBytes = sizeof(Adapter); // NOLINT(bugprone-sizeof-expression)
  EXPECT_EQ(
      urPlatformGetInfo(asUr(Platform), UR_PLATFORM_INFO_ADAPTER, AdapterBytes, &Adapter, nullptr),
      UR_RESULT_SUCCESS);
  return Adapter;
}

template <typename T, typename Query, typename Object, typename Name>
T urInfo(Query Function, Object Handle, Name Param) {
  T Value{};
  EXPECT_EQ(
      Function(Handle, Param, sizeof(T), &Value, nullptr), // NOLINT(bugprone-sizeof-expression)
      UR_RESULT_SUCCESS);
  return Value;
}

// Every object made from its native handle (not owned) is the object the handle came
// from: the buffer's bytes, the program's kernels and device globals, the kernel's
// launches, the context's devices; and releasing it leaves the original working.
TEST_P(NativeHandles, ObjectsFromTheirHandlesAreTheOriginals) {
  Natives N;
  ASSERT_NO_FATAL_FAILURE(collect(N));
  const ur_context_handle_t UrContext = asUr(Context.get());
  // OpenCL counts references: every adopted object (not owned) takes one of its own and
  // gives it back at its release, no more and no fewer.
  const auto driverCounts = [&]() {
    std::vector<uint64_t> Counts;
#ifdef DGLINK_NATIVE_OPENCL
    if (GetParam().Backend == "opencl")
      // (The context's count also has the objects the adapter makes in it as it goes,
      // a program's device-global storage: compared around the context's adoption alone.)
      Counts = {clInfo<cl_uint>(clGetContextInfo, reinterpret_cast<cl_context>(N.Context),
                                CL_CONTEXT_REFERENCE_COUNT),
                clInfo<cl_uint>(clGetMemObjectInfo, reinterpret_cast<cl_mem>(N.Mem),
                                CL_MEM_REFERENCE_COUNT),
                clInfo<cl_uint>(clGetProgramInfo, reinterpret_cast<cl_program>(N.Program),
                                CL_PROGRAM_REFERENCE_COUNT),
                clInfo<cl_uint>(clGetKernelInfo, reinterpret_cast<cl_kernel>(N.Kernel),
                                CL_KERNEL_REFERENCE_COUNT)};
#endif
    return Counts;
  };
  const std::vector<uint64_t> CountsBefore = driverCounts();

  // The buffer: the same memory, both ways.
  ur_mem_native_properties_t MemProperties{UR_STRUCTURE_TYPE_MEM_NATIVE_PROPERTIES, nullptr, false};
  ur_mem_handle_t Mem = nullptr;
  ASSERT_EQ(urMemBufferCreateWithNativeHandle(N.Mem, UrContext, &MemProperties, &Mem),
            UR_RESULT_SUCCESS);
  EXPECT_GE(urInfo<size_t>(urMemGetInfo, Mem, UR_MEM_INFO_SIZE), BufferBytes);
  EXPECT_EQ(urInfo<ur_context_handle_t>(urMemGetInfo, Mem, UR_MEM_INFO_CONTEXT), UrContext);
  std::vector<char> Back(BufferBytes, 0);
  const auto Adopted = reinterpret_cast<pi_mem>(Mem);
  ASSERT_PI_SUCCESS(piEnqueueMemBufferRead(Queue.get(), Adopted, PI_TRUE, 0, BufferBytes,
                                           Back.data(), 0, nullptr, nullptr));
  EXPECT_EQ(Back, std::vector<char>(BufferBytes, 7)) << "the adopted buffer reads other bytes";
  const std::vector<char> Nines(BufferBytes, 9);
  ASSERT_PI_SUCCESS(piEnqueueMemBufferWrite(Queue.get(), Adopted, PI_TRUE, 0, BufferBytes,
                                            Nines.data(), 0, nullptr, nullptr));
  ASSERT_EQ(urMemRelease(Mem), UR_RESULT_SUCCESS);
  ASSERT_PI_SUCCESS(piEnqueueMemBufferRead(Queue.get(), Buffer.get(), PI_TRUE, 0, BufferBytes,
                                           Back.data(), 0, nullptr, nullptr));
  EXPECT_EQ(Back, Nines) << "a write through the adopted buffer did not reach the original";

  // The program: its kernels by name.
  ur_program_native_properties_t ProgramProperties{UR_STRUCTURE_TYPE_PROGRAM_NATIVE_PROPERTIES,
                                                   nullptr, false};
  ur_program_handle_t UrProgram = nullptr;
  ASSERT_EQ(urProgramCreateWithNativeHandle(N.Program, UrContext, &ProgramProperties, &UrProgram),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(urInfo<ur_context_handle_t>(urProgramGetInfo, UrProgram, UR_PROGRAM_INFO_CONTEXT),
            UrContext);
  size_t NamesBytes = 0;
  ASSERT_EQ(urProgramGetInfo(UrProgram, UR_PROGRAM_INFO_KERNEL_NAMES, 0, nullptr, &NamesBytes),
            UR_RESULT_SUCCESS);
  std::string Names(NamesBytes, '\0');
  ASSERT_EQ(
      urProgramGetInfo(UrProgram, UR_PROGRAM_INFO_KERNEL_NAMES, NamesBytes, Names.data(), nullptr),
      UR_RESULT_SUCCESS);
  // (HIP's driver cannot list a module's kernels: the list may be empty.)
  if (!Names.empty() && Names[0] != '\0') {
    EXPECT_NE(Names.find(KernelName), std::string::npos) << Names;
  }
  ur_kernel_handle_t ByName = nullptr;
  ASSERT_EQ(urKernelCreate(UrProgram, KernelName, &ByName), UR_RESULT_SUCCESS);
  ASSERT_EQ(urKernelRelease(ByName), UR_RESULT_SUCCESS);
  ASSERT_EQ(urProgramRelease(UrProgram), UR_RESULT_SUCCESS);

  // The kernel: its name, its program, and a launch that reads the program's device global.
  ur_kernel_native_properties_t KernelProperties{UR_STRUCTURE_TYPE_KERNEL_NATIVE_PROPERTIES,
                                                 nullptr, false};
  ur_kernel_handle_t UrKernel = nullptr;
  ASSERT_EQ(urKernelCreateWithNativeHandle(N.Kernel, UrContext, asUr(Program.get()),
                                           &KernelProperties, &UrKernel),
            UR_RESULT_SUCCESS);
  size_t NameBytes = 0;
  ASSERT_EQ(urKernelGetInfo(UrKernel, UR_KERNEL_INFO_FUNCTION_NAME, 0, nullptr, &NameBytes),
            UR_RESULT_SUCCESS);
  std::string Name(NameBytes, '\0');
  ASSERT_EQ(
      urKernelGetInfo(UrKernel, UR_KERNEL_INFO_FUNCTION_NAME, NameBytes, Name.data(), nullptr),
      UR_RESULT_SUCCESS);
  EXPECT_STREQ(Name.c_str(), KernelName);
  EXPECT_EQ(urInfo<ur_program_handle_t>(urKernelGetInfo, UrKernel, UR_KERNEL_INFO_PROGRAM),
            asUr(Program.get()));
  EXPECT_EQ(urInfo<uint32_t>(urKernelGetInfo, UrKernel, UR_KERNEL_INFO_NUM_ARGS), 1U);
  if (executesKernels()) {
    const int Value = 0x5151;
    ASSERT_PI_SUCCESS(
        piextEnqueueDeviceGlobalVariableWrite(Queue.get(), Program.get(), "dg_counter_uid", PI_TRUE,
                                              sizeof(Value), 0, &Value, 0, nullptr, nullptr));
    const auto Launched = reinterpret_cast<pi_kernel>(UrKernel);
    const pi_mem Out = Buffer.get();
    ASSERT_PI_SUCCESS(piextKernelSetArgMemObj(Launched, 0, &Out));
    const size_t Global = 1;
    ASSERT_PI_SUCCESS(piEnqueueKernelLaunch(Queue.get(), Launched, 1, nullptr, &Global, nullptr, 0,
                                            nullptr, nullptr));
    int Read = 0;
    ASSERT_PI_SUCCESS(piEnqueueMemBufferRead(Queue.get(), Buffer.get(), PI_TRUE, 0, sizeof(Read),
                                             &Read, 0, nullptr, nullptr));
    EXPECT_EQ(Read, Value) << "the adopted kernel did not read the program's device global";
    ASSERT_PI_SUCCESS(piEnqueueMemBufferWrite(Queue.get(), Buffer.get(), PI_TRUE, 0, BufferBytes,
                                              Nines.data(), 0, nullptr, nullptr));
  }
  ASSERT_EQ(urKernelRelease(UrKernel), UR_RESULT_SUCCESS);
  // The original kernel is the driver's still: its argument reaches the driver.
  const pi_mem Original = Buffer.get();
  EXPECT_PI_SUCCESS(piextKernelSetArgMemObj(Kernel.get(), 0, &Original));
  const std::vector<uint64_t> CountsAfter = driverCounts();
  for (size_t Object = 1; Object < CountsBefore.size(); ++Object)
    EXPECT_EQ(CountsAfter[Object], CountsBefore[Object])
        << "references of the driver's buffer, program, kernel (" << Object
        << ") taken or given back other than once each";

  // The context: its devices, and work in it.
  if (!N.HasContext)
    GTEST_SKIP() << "the adapter has no native handle of this context";
  ur_context_native_properties_t ContextProperties{UR_STRUCTURE_TYPE_CONTEXT_NATIVE_PROPERTIES,
                                                   nullptr, false};
  const ur_device_handle_t UrDevice = asUr(Device);
  const std::vector<uint64_t> CountsBeforeContext = driverCounts();
  ur_context_handle_t Made = nullptr;
  ASSERT_EQ(urContextCreateWithNativeHandle(N.Context, adapterOf(Platform), 1, &UrDevice,
                                            &ContextProperties, &Made),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(urInfo<uint32_t>(urContextGetInfo, Made, UR_CONTEXT_INFO_NUM_DEVICES), 1U);
  EXPECT_EQ(urInfo<ur_device_handle_t>(urContextGetInfo, Made, UR_CONTEXT_INFO_DEVICES), UrDevice);
  {
    QueueHandle MadeQueue;
    MemHandle MadeBuffer;
    ASSERT_PI_SUCCESS(
        piQueueCreate(reinterpret_cast<pi_context>(Made), Device, 0, MadeQueue.out()));
    ASSERT_PI_SUCCESS(piMemBufferCreate(reinterpret_cast<pi_context>(Made), PI_MEM_FLAGS_ACCESS_RW,
                                        BufferBytes, nullptr, MadeBuffer.out()));
    ASSERT_PI_SUCCESS(piEnqueueMemBufferWrite(MadeQueue.get(), MadeBuffer.get(), PI_TRUE, 0,
                                              BufferBytes, Nines.data(), 0, nullptr, nullptr));
    std::fill(Back.begin(), Back.end(), 0);
    ASSERT_PI_SUCCESS(piEnqueueMemBufferRead(MadeQueue.get(), MadeBuffer.get(), PI_TRUE, 0,
                                             BufferBytes, Back.data(), 0, nullptr, nullptr));
    EXPECT_EQ(Back, Nines);
  }
  ASSERT_EQ(urContextRelease(Made), UR_RESULT_SUCCESS);
  std::fill(Back.begin(), Back.end(), 0);
  ASSERT_PI_SUCCESS(piEnqueueMemBufferRead(Queue.get(), Buffer.get(), PI_TRUE, 0, BufferBytes,
                                           Back.data(), 0, nullptr, nullptr));
  EXPECT_EQ(Back, Nines) << "the original context stopped working with the adopted one's release";
  EXPECT_EQ(driverCounts(), CountsBeforeContext) << "the adopted context's references";
}

// What the driver's objects cannot be is refused with UR's codes, and nothing is made: a
// kernel of another program, an owned buffer over the adapter's own USM, a context whose
// devices the driver does not say (Level Zero), a device's primary context handed over
// (CUDA, HIP).
TEST_P(NativeHandles, WrongObjectsAreRefused) {
  Natives N;
  ASSERT_NO_FATAL_FAILURE(collect(N));
  const ur_context_handle_t UrContext = asUr(Context.get());
  const std::string &Backend = GetParam().Backend;
  ProgramHandle Other;
  ASSERT_NO_FATAL_FAILURE(buildProgram("pattern", Other));
  ur_kernel_handle_t Made = nullptr;
  EXPECT_EQ(urKernelCreateWithNativeHandle(N.Kernel, UrContext, asUr(Other.get()), nullptr, &Made),
            UR_RESULT_ERROR_INVALID_PROGRAM);
  EXPECT_EQ(Made, nullptr);
  // Another program of the same code has a kernel of that name, in another module.
  ProgramHandle Twin;
  ASSERT_NO_FATAL_FAILURE(buildProgram("device_globals", Twin));
  EXPECT_EQ(urKernelCreateWithNativeHandle(N.Kernel, UrContext, asUr(Twin.get()), nullptr, &Made),
            UR_RESULT_ERROR_INVALID_PROGRAM)
      << "a kernel of the same name in another module";
  EXPECT_EQ(Made, nullptr);
  // Without a program: OpenCL's kernel names its own, which becomes a program too.
  const ur_result_t NoProgram =
      urKernelCreateWithNativeHandle(N.Kernel, UrContext, nullptr, nullptr, &Made);
  if (Backend == "opencl") {
    ASSERT_EQ(NoProgram, UR_RESULT_SUCCESS);
    const auto Of = urInfo<ur_program_handle_t>(urKernelGetInfo, Made, UR_KERNEL_INFO_PROGRAM);
    // Made by the adapter, not by a call the validation layer records.
    std::fprintf(stderr, "dglink-ur-scenario: adopted program %p\n", static_cast<void *>(Of));
    ur_native_handle_t OfNative = 0;
    EXPECT_EQ(urProgramGetNativeHandle(Of, &OfNative), UR_RESULT_SUCCESS);
    EXPECT_EQ(OfNative, N.Program);
    EXPECT_EQ(urKernelRelease(Made), UR_RESULT_SUCCESS); // and with it the program
  } else {
    EXPECT_EQ(NoProgram, UR_RESULT_ERROR_INVALID_NULL_HANDLE) << "hProgram is needed";
    EXPECT_EQ(Made, nullptr);
  }
  ur_mem_native_properties_t Owned{UR_STRUCTURE_TYPE_MEM_NATIVE_PROPERTIES, nullptr, true};
  if (usmMechanism() != PI_USM_MECHANISM_NONE) {
    UsmPointer Memory;
    ASSERT_PI_SUCCESS(
        piextUSMDeviceAlloc(Memory.out(Context.get()), Context.get(), Device, nullptr, 256, 0));
    ur_mem_handle_t Mem = nullptr;
    const auto Native = reinterpret_cast<ur_native_handle_t>(Memory.get());
    EXPECT_EQ(urMemBufferCreateWithNativeHandle(Native, UrContext, &Owned, &Mem),
              UR_RESULT_ERROR_INVALID_VALUE)
        << "USM the adapter allocated was handed over";
    EXPECT_EQ(Mem, nullptr);
    // Not owned: a buffer over it where buffers are device addresses; OpenCL has no
    // cl_mem there.
    const ur_result_t Unowned = urMemBufferCreateWithNativeHandle(Native, UrContext, nullptr, &Mem);
    if (Backend == "opencl") {
      EXPECT_EQ(Unowned, UR_RESULT_ERROR_INVALID_MEM_OBJECT);
    } else {
      ASSERT_EQ(Unowned, UR_RESULT_SUCCESS);
      EXPECT_EQ(urInfo<size_t>(urMemGetInfo, Mem, UR_MEM_INFO_SIZE), 256U);
      const std::vector<char> Fives(256, 5);
      ASSERT_PI_SUCCESS(piEnqueueMemBufferWrite(Queue.get(), reinterpret_cast<pi_mem>(Mem), PI_TRUE,
                                                0, 256, Fives.data(), 0, nullptr, nullptr));
      std::vector<char> Back(256, 0);
      ASSERT_PI_SUCCESS(piextUSMEnqueueMemcpy(Queue.get(), PI_TRUE, Back.data(), Memory.get(), 256,
                                              0, nullptr, nullptr));
      EXPECT_EQ(Back, Fives) << "the buffer over the USM is other memory";
      EXPECT_EQ(urMemRelease(Mem), UR_RESULT_SUCCESS);
    }
  }
  ur_context_handle_t MadeContext = nullptr;
  ur_context_native_properties_t OwnedContext{UR_STRUCTURE_TYPE_CONTEXT_NATIVE_PROPERTIES, nullptr,
                                              true};
  if (Backend == "level_zero" && N.HasContext) {
    EXPECT_EQ(urContextCreateWithNativeHandle(N.Context, adapterOf(Platform), 0, nullptr, nullptr,
                                              &MadeContext),
              UR_RESULT_ERROR_INVALID_VALUE)
        << "a Level Zero context was adopted without its devices";
  } else if ((Backend == "cuda" || Backend == "hip_nvidia") && N.HasContext) {
    EXPECT_EQ(urContextCreateWithNativeHandle(N.Context, adapterOf(Platform), 0, nullptr,
                                              &OwnedContext, &MadeContext),
              UR_RESULT_ERROR_INVALID_VALUE)
        << "a primary context was handed over";
  } else if (Backend == "opencl") {
    // OpenCL's context says its devices.
    ASSERT_EQ(urContextCreateWithNativeHandle(N.Context, adapterOf(Platform), 0, nullptr, nullptr,
                                              &MadeContext),
              UR_RESULT_SUCCESS);
    EXPECT_EQ(urInfo<ur_device_handle_t>(urContextGetInfo, MadeContext, UR_CONTEXT_INFO_DEVICES),
              asUr(Device));
    EXPECT_EQ(urContextRelease(MadeContext), UR_RESULT_SUCCESS);
    MadeContext = nullptr;
  }
  EXPECT_EQ(MadeContext, nullptr);
}

#ifdef DGLINK_NATIVE_OPENCL
// Contexts the driver destroyed; static, since a driver may call back late, from its own
// thread.
std::atomic<int> DestroyedContexts{0};
void CL_CALLBACK countDestroyed(cl_context /*Context*/, void * /*Data*/) {
  DestroyedContexts.fetch_add(1);
}
#endif

// The driver's context goes with the last release of dglink's, after USM fills inside an
// allocation (every pattern size a driver fill takes, at an offset and up to the end; an
// 8-byte pattern at a pointer aligned to 4 only) and their checks. NVIDIA's OpenCL
// (580.159) never destroyed a context in which clEnqueueSVMMemFill ran, keeping about
// 500 MiB of the GPU each (docs/opencl.md): the OpenCL adapter fills SVM memory through a
// buffer over the allocation instead. Checked with the driver's own destructor callback
// (OpenCL 3.0).
TEST_P(NativeHandles, DriverContextGoesAfterUsmFills) {
  if (GetParam().Backend != "opencl")
    GTEST_SKIP() << "a check of the OpenCL driver's context (the driver's destructor callback)";
#ifdef DGLINK_NATIVE_OPENCL
  if (usmMechanism() == PI_USM_MECHANISM_NONE)
    GTEST_SKIP() << "the device has no USM path";
  const int Before = DestroyedContexts.load();
  {
    ContextHandle Own;
    ASSERT_PI_SUCCESS(piContextCreate(nullptr, 1, &Device, Own.out()));
    ur_native_handle_t Native = 0;
    ASSERT_EQ(urContextGetNativeHandle(asUr(Own.get()), &Native), UR_RESULT_SUCCESS);
    const cl_int Registered = clSetContextDestructorCallback(reinterpret_cast<cl_context>(Native),
                                                             countDestroyed, nullptr);
    if (Registered == CL_INVALID_OPERATION)
      GTEST_SKIP() << "the driver has no context destructor callback (an OpenCL before 3.0)";
    ASSERT_EQ(Registered, CL_SUCCESS) << "clSetContextDestructorCallback on the native context";
    QueueHandle OwnQueue;
    ASSERT_PI_SUCCESS(piQueueCreate(Own.get(), Device, 0, OwnQueue.out()));
    constexpr size_t Bytes = 4096;
    UsmPointer Memory;
    ASSERT_PI_SUCCESS(
        piextUSMDeviceAlloc(Memory.out(Own.get()), Own.get(), Device, nullptr, Bytes, 0));
    const uint8_t Zero = 0;
    struct Fill {
      size_t At, Span, PatternSize;
    };
    const Fill Fills[] = {{1024, 1024, 1},   {1024, 1024, 2},  {1024, 1024, 4},  {1024, 1024, 8},
                          {1024, 1024, 16},  {1024, 1024, 32}, {1024, 1024, 64}, {1024, 1024, 128},
                          {3072, 1024, 128}, {1028, 1024, 8}};
    for (const Fill &F : Fills) {
      SCOPED_TRACE("pattern of " + std::to_string(F.PatternSize) + " bytes at " +
                   std::to_string(F.At));
      ASSERT_PI_SUCCESS(
          piextUSMEnqueueFill(OwnQueue.get(), Memory.get(), &Zero, 1, Bytes, 0, nullptr, nullptr));
      std::vector<uint8_t> Pattern(F.PatternSize);
      for (size_t I = 0; I < F.PatternSize; ++I)
        Pattern[I] = static_cast<uint8_t>(I + F.PatternSize);
      EventHandle Filled;
      ASSERT_PI_SUCCESS(
          piextUSMEnqueueFill(OwnQueue.get(), static_cast<char *>(Memory.get()) + F.At,
                              Pattern.data(), F.PatternSize, F.Span, 0, nullptr, Filled.out()));
      std::vector<uint8_t> Back(Bytes, 0xEE);
      const pi_event Wait = Filled.get();
      ASSERT_PI_SUCCESS(piextUSMEnqueueMemcpy(OwnQueue.get(), PI_TRUE, Back.data(), Memory.get(),
                                              Bytes, 1, &Wait, nullptr));
      for (size_t I = 0; I < Bytes; ++I) {
        const bool Inside = I >= F.At && I < F.At + F.Span;
        ASSERT_EQ(Back[I], Inside ? Pattern[(I - F.At) % F.PatternSize] : 0) << "byte " << I;
      }
    }
  }
  // The callback may come late, from the driver's thread.
  for (int Waited = 0; DestroyedContexts.load() == Before && Waited < 200; ++Waited)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(DestroyedContexts.load(), Before + 1) << "the OpenCL context outlived its last release";
#else
  GTEST_SKIP() << "this build cannot call the OpenCL driver (no DGLINK_NATIVE_OPENCL)";
#endif
}

DGLINK_INSTANTIATE_FOR_DEVICES(NativeHandles);

} // namespace
} // namespace dglink::conformance
