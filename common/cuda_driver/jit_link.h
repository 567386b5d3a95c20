// Linking PTX and cubin inputs into one cubin: nvJitLink (opened with dlopen:
// libnvJitLink.so.13, then libnvJitLink.so) or, where it is absent, the driver's
// own cuLink* functions.
#pragma once

#include <dglink/pi.h>

#include <cstddef>
#include <string>
#include <vector>

namespace dglink::cuda {

enum class NativeFormat { Ptx, Cubin, Fatbin };

const char *nativeFormatName(NativeFormat Format);

// Recognises PTX text, an ELF cubin or a fatbin; false for anything else.
bool detectNativeFormat(const void *Data, size_t Size, NativeFormat &Format);

struct LinkInput {
  NativeFormat Format = NativeFormat::Ptx;
  const void *Data = nullptr;
  size_t Size = 0; // PTX: including its terminating NUL
  std::string Name;
};

// True when libnvJitLink could be opened (DGLINK_CUDA_NVJITLINK=off disables it,
// DGLINK_CUDA_NVJITLINK=<path> names the library). Where says which file.
bool nvJitLinkAvailable(std::string *Where = nullptr);

// Links Inputs into a cubin for sm_<Major><Minor> with nvJitLink (no device or
// context needed). On failure: PI_ERROR_LINK_PROGRAM_FAILURE, Log holds the
// linker's error log (which names unresolved symbols).
pi_result linkWithNvJitLink(const std::vector<LinkInput> &Inputs, int Major, int Minor,
                            std::vector<char> &Cubin, std::string &Log);

// The same with the driver's cuLink* for the device of the current context.
pi_result linkWithDriver(const std::vector<LinkInput> &Inputs, std::vector<char> &Cubin,
                         std::string &Log);

} // namespace dglink::cuda
