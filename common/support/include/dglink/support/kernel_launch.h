// Kernel arguments and launch grids of the adapters that launch with explicit
// blocks and grids and pass arguments by value (CUDA, HIP): the same checks and
// messages on each.
#pragma once

#include <dglink/support/error.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace dglink {

// One argument as set: its value, 8-byte aligned and zero-padded.
struct KernelArgument {
  bool Set = false;
  std::vector<uint64_t> Storage;
};

// The checks every by-value argument passes: an index and a size within what a
// launch can pass (MaxParameterBytes), a value (no local-memory arguments).
inline pi_result checkKernelArgument(const char *Function, const std::string &Kernel,
                                     pi_uint32 Index, size_t Size, const void *Value,
                                     size_t MaxParameterBytes, const char *Adapter) {
  if (Index >= MaxParameterBytes)
    return fail(PI_ERROR_INVALID_ARG_INDEX,
                "{}: argument index {} of kernel '{}' is beyond what a {} launch can pass",
                Function, Index, Kernel, Adapter);
  if (Value == nullptr)
    return fail(PI_ERROR_INVALID_ARG_VALUE,
                "{}: argument {} of kernel '{}': the value is null (local-memory arguments are "
                "not supported by the {} adapter)",
                Function, Index, Kernel, Adapter);
  if (Size == 0 || Size > MaxParameterBytes)
    return fail(PI_ERROR_INVALID_ARG_SIZE,
                "{}: argument {} of kernel '{}' has size {} (1..{} bytes)", Function, Index,
                Kernel, Size, MaxParameterBytes);
  return PI_SUCCESS;
}

// Stores Size bytes of Value as argument Index, zero-padded to Room bytes.
inline void storeKernelArgument(std::vector<KernelArgument> &Arguments, pi_uint32 Index,
                                size_t Size, size_t Room, const void *Value) {
  if (Index >= Arguments.size())
    Arguments.resize(Index + 1);
  KernelArgument &Argument = Arguments[Index];
  Argument.Storage.assign((Room + 7) / 8, 0);
  std::memcpy(Argument.Storage.data(), Value, Size);
  Argument.Set = true;
}

// Params: pointers to the values of the first NumArgs arguments, each of which must
// be set.
inline pi_result collectKernelArguments(std::vector<KernelArgument> &Arguments,
                                        size_t NumArgs, const std::string &Kernel,
                                        std::vector<void *> &Params) {
  Params.assign(NumArgs, nullptr);
  for (size_t I = 0; I < NumArgs; ++I) {
    if (I >= Arguments.size() || !Arguments[I].Set)
      return fail(PI_ERROR_INVALID_KERNEL_ARGS,
                  "piEnqueueKernelLaunch: argument {} of kernel '{}' is not set", I, Kernel);
    Params[I] = Arguments[I].Storage.data();
  }
  return PI_SUCCESS;
}

// The largest divisor of Global not above Limit (at least 1).
inline size_t blockSizeFor(size_t Global, size_t Limit) {
  for (size_t Block = std::min(Global, Limit); Block > 1; --Block)
    if (Global % Block == 0)
      return Block;
  return 1;
}

// Blocks and grid of a launch whose shape checkLaunchShape accepted: the local size
// when given (dividing the global size, within the device's and the kernel's
// limits), else the largest blocks that divide the global size (OpenCL's uniform
// groups), filling dimension 0 first; the grid within the device's limits.
inline pi_result computeLaunchGrid(pi_uint32 WorkDim, const size_t *GlobalWorkSize,
                                   const size_t *LocalWorkSize, int MaxThreadsPerBlock,
                                   const std::string &Kernel, const int MaxBlockDim[3],
                                   const int MaxGridDim[3], size_t Block[3], unsigned Grid[3]) {
  size_t Global[3] = {1, 1, 1};
  for (int D = 0; D < 3; ++D)
    Block[D] = 1;
  for (pi_uint32 D = 0; D < WorkDim; ++D) {
    Global[D] = GlobalWorkSize[D];
    if (Global[D] == 0)
      return fail(PI_ERROR_INVALID_GLOBAL_WORK_SIZE,
                  "piEnqueueKernelLaunch: global size 0 in dimension {}", D);
  }
  if (LocalWorkSize != nullptr) {
    size_t Threads = 1;
    for (pi_uint32 D = 0; D < WorkDim; ++D) {
      Block[D] = LocalWorkSize[D];
      if (Block[D] == 0 || Global[D] % Block[D] != 0)
        return fail(PI_ERROR_INVALID_WORK_GROUP_SIZE,
                    "piEnqueueKernelLaunch: local size {} does not divide global size "
                    "{} in dimension {}",
                    Block[D], Global[D], D);
      if (Block[D] > static_cast<size_t>(MaxBlockDim[D]))
        return fail(PI_ERROR_INVALID_WORK_ITEM_SIZE,
                    "piEnqueueKernelLaunch: local size {} exceeds {} in dimension {}", Block[D],
                    MaxBlockDim[D], D);
      Threads *= Block[D];
    }
    if (Threads > static_cast<size_t>(MaxThreadsPerBlock))
      return fail(PI_ERROR_INVALID_WORK_GROUP_SIZE,
                  "piEnqueueKernelLaunch: {} work-items per group, kernel '{}' allows {}",
                  Threads, Kernel, MaxThreadsPerBlock);
  } else {
    size_t Budget = static_cast<size_t>(MaxThreadsPerBlock);
    for (pi_uint32 D = 0; D < WorkDim; ++D) {
      Block[D] = blockSizeFor(Global[D], std::min(Budget, static_cast<size_t>(MaxBlockDim[D])));
      Budget /= Block[D];
    }
  }
  for (int D = 0; D < 3; ++D) {
    const size_t Blocks = Global[D] / Block[D];
    if (Blocks > static_cast<size_t>(MaxGridDim[D]))
      return fail(PI_ERROR_INVALID_GLOBAL_WORK_SIZE,
                  "piEnqueueKernelLaunch: {} groups in dimension {} exceed the device's {}",
                  Blocks, D, MaxGridDim[D]);
    Grid[D] = static_cast<unsigned>(Blocks);
  }
  return PI_SUCCESS;
}

} // namespace dglink
