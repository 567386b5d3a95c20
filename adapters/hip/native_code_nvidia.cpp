// Device code of the NVIDIA build: PTX, cubin and fatbin, as the CUDA adapter reads
// and links them (common/cuda_driver's cuda_code.h, linked, not copied).
#include "native_code.h"

#include "cuda_code.h"

namespace dglink::hip {

const char *imageTarget() { return PI_DEVICE_BINARY_TARGET_NVPTX64; }
const char *codeDescription() { return cuda::codeDescription(); }

bool detectCode(const void *Data, size_t Size, CodeKind &Kind) {
  return cuda::detectCode(Data, Size, Kind);
}

std::vector<std::string> kernelNames(CodeKind Kind, const std::vector<char> &Bytes) {
  return cuda::codeKernelNames(Kind, Bytes);
}

pi_result codeForLoad(CodeKind Kind, const std::vector<char> &Bytes, const std::string &,
                      std::vector<char> &Out, std::string &) {
  return cuda::codeForLoad(Kind, Bytes, Out);
}

bool linkerAvailable(std::string *Why) { return cuda::linkerAvailable(Why); }

// cuLink* (without nvJitLink) links for the device of the current context, which the
// adapter made the program's device.
pi_result linkCode(const std::vector<LinkSource> &Sources, const std::string &, int Major,
                   int Minor, std::vector<char> &Out, CodeKind &OutKind, std::string &Log) {
  return cuda::linkCode(Sources, Major, Minor, Out, OutKind, Log);
}

} // namespace dglink::hip
