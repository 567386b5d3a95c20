// The CUDA adapter: the adapter core with the stream backend on the CUDA driver API
// (common/cuda_driver). What is CUDA's own lives there: the driver wrapper, PTX repair
// and linking with nvJitLink or cuLink*.
#include "cuda_stream.h"

#include <dglink/stream/backend.h>

namespace dglink::core {

std::unique_ptr<Backend> makeBackend() {
  stream::Personality Cuda;
  Cuda.Name = DGLINK_ADAPTER_NAME;
  Cuda.Label = "CUDA";
  Cuda.PlatformName = "NVIDIA CUDA";
  Cuda.PlatformVersion = [](const std::string &Driver) { return "CUDA " + Driver; };
  return std::make_unique<stream::StreamBackend>(Cuda, cuda::makeCudaStreamDriver());
}

} // namespace dglink::core
