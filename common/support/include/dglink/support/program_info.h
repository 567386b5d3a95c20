// piProgramGetInfo / piProgramGetBuildInfo answers of the adapters whose programs
// are their own structs for one device (CUDA, HIP; build info also Level Zero). The
// templates read only members those programs have (RefCount, Context, Binary,
// KernelNames, Mutex, BuildStatus, Options, Log, BinaryType).
#pragma once

#include <dglink/support/info.h>

#include <cstring>
#include <mutex>
#include <string>

namespace dglink {

// The program info of a checked program holding one native binary.
template <typename Program>
pi_result answerProgramInfo(Program P, pi_program_info ParamName, size_t ParamValueSize,
                            void *ParamValue, size_t *ParamValueSizeRet) {
  auto Value = [&](auto V) {
    return returnInfo(V, ParamValueSize, ParamValue, ParamValueSizeRet);
  };
  std::lock_guard<std::mutex> Lock(P->Mutex);
  switch (ParamName) {
  case PI_PROGRAM_INFO_REFERENCE_COUNT:
    return Value(P->RefCount.load());
  case PI_PROGRAM_INFO_CONTEXT:
    return Value(static_cast<pi_context>(P->Context));
  case PI_PROGRAM_INFO_NUM_DEVICES:
    return Value(pi_uint32{1});
  case PI_PROGRAM_INFO_DEVICES:
    return Value(static_cast<pi_device>(P->Context->Device));
  case PI_PROGRAM_INFO_BINARY_SIZES:
    return Value(P->Binary.size());
  case PI_PROGRAM_INFO_BINARIES: {
    // ParamValue is an array of one pointer to memory of BINARY_SIZES bytes.
    unsigned char *Target = nullptr;
    if (ParamValue != nullptr && ParamValueSize >= sizeof(Target))
      std::memcpy(&Target, ParamValue, sizeof(Target));
    if (ParamValue != nullptr && ParamValueSize < sizeof(Target))
      return fail(PI_ERROR_INVALID_VALUE,
                  "piProgramGetInfo: room for one binary pointer is needed");
    if (Target != nullptr && !P->Binary.empty())
      std::memcpy(Target, P->Binary.data(), P->Binary.size());
    if (ParamValueSizeRet != nullptr)
      *ParamValueSizeRet = sizeof(Target);
    return PI_SUCCESS;
  }
  case PI_PROGRAM_INFO_NUM_KERNELS:
    return Value(P->KernelNames.size());
  case PI_PROGRAM_INFO_KERNEL_NAMES: {
    std::string Names;
    for (const std::string &Name : P->KernelNames)
      Names += (Names.empty() ? "" : ";") + Name;
    return returnInfoString(Names, ParamValueSize, ParamValue, ParamValueSizeRet);
  }
  case PI_EXT_PROGRAM_INFO_FORMAT:
    return Value(PI_DEVICE_BINARY_TYPE_NATIVE);
  }
  return fail(PI_ERROR_INVALID_VALUE, "piProgramGetInfo: unknown parameter {:#x}",
              static_cast<unsigned>(ParamName));
}

// The build info of a checked program for a checked device, which must be the
// program's.
template <typename Program, typename Device>
pi_result answerProgramBuildInfo(Program P, Device D, pi_program_build_info ParamName,
                                 size_t ParamValueSize, void *ParamValue,
                                 size_t *ParamValueSizeRet) {
  if (D != P->Context->Device)
    return fail(PI_ERROR_INVALID_DEVICE,
                "piProgramGetBuildInfo: device '{}' is not the program's device", D->Name);
  std::lock_guard<std::mutex> Lock(P->Mutex);
  switch (ParamName) {
  case PI_PROGRAM_BUILD_INFO_STATUS:
    return returnInfo(P->BuildStatus, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_PROGRAM_BUILD_INFO_OPTIONS:
    return returnInfoString(P->Options, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_PROGRAM_BUILD_INFO_LOG:
    return returnInfoString(P->Log, ParamValueSize, ParamValue, ParamValueSizeRet);
  case PI_PROGRAM_BUILD_INFO_BINARY_TYPE:
    return returnInfo(P->BinaryType, ParamValueSize, ParamValue, ParamValueSizeRet);
  }
  return fail(PI_ERROR_INVALID_VALUE, "piProgramGetBuildInfo: unknown parameter {:#x}",
              static_cast<unsigned>(ParamName));
}

} // namespace dglink
