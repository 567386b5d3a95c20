// Device-image collection, exactly as the dynamic-linking seed describes it: the image
// with the kernel in a format the device takes, then, import by import, the first
// registered image of the same format that exports the symbol, transitively.
#pragma once

#include "registry.h"

#include <set>
#include <string>
#include <vector>

namespace dglink::runtime::detail {

// What the collection needs to know about a device, from its PI info queries.
struct DeviceTraits {
  std::string Backend; // PI_EXT_DEVICE_INFO_BACKEND_NAME: two adapters may serve one device
  std::string Name;
  std::string DriverVersion;
  std::vector<std::string> LinkFormats;  // PI_EXT_DEVICE_INFO_LINK_FORMATS: it links these
  std::vector<std::string> ImageFormats; // PI_EXT_DEVICE_INFO_IMAGE_FORMATS: it builds these
  // PI_DEVICE_GLOBAL_MECHANISM_LOWERED: images lowered for OpenCL are preferred; any
  // other mechanism never gets them (the adapters refuse them).
  bool TakesLoweredImages = false;
  // PI_EXT_DEVICE_INFO_USM_MECHANISM: where shared device globals can live.
  pi_usm_mechanism Usm = PI_USM_MECHANISM_NONE;
  // The aspects (sycl::aspect values) the device has, less those DGLINK_FORCE_ASPECTS_OFF
  // turns off (ForcedOff: only those the device really has): fp64 and fp16 from
  // PI_DEVICE_INFO_DOUBLE_FP_CONFIG / HALF_FP_CONFIG (not zero), atomic64 from
  // cl_khr_int64_base_atomics in PI_DEVICE_INFO_EXTENSIONS (OpenCL's own list, Level
  // Zero's module flags) or a CUDA or HIP backend.
  std::set<uint32_t> Aspects;
  std::set<uint32_t> ForcedOff;
};

// DGLINK_FORCE_ASPECTS_OFF (comma-separated names: fp16, fp64, atomic64): the test hook
// that makes the runtime treat every device as lacking those aspects. An unknown name is
// PI_ERROR_INVALID_VALUE naming it (then every device query fails).
Expected<std::set<uint32_t>> forcedOffAspects();

// The aspects Kernel of Image requires, and whether a device with Traits has them all (a
// program is cached only under the kernels that may run on its device).
const std::vector<uint32_t> &kernelAspects(const ImageInfo &Image, const std::string &Kernel);
bool kernelRunsOn(const ImageInfo &Image, const std::string &Kernel, const DeviceTraits &Traits);

// Asks Device through Table; a failing query is an error naming the device.
Expected<DeviceTraits> queryDeviceTraits(const pi_plugin_functions &Table, pi_device Device);

struct CollectedImages {
  std::string LinkFormat;
  bool Linkable = false; // the device links this format (else: one image, no imports)
  std::vector<const RegisteredImage *> Images; // the kernel's image first
};

// The image that holds Kernel: in the first format the device links, else the first it
// only builds (then without imports), the first registered such image (Preferred's
// first, lowered ones first where the device takes them). PI_ERROR_INVALID_KERNEL_NAME
// when there is none.
struct KernelImage {
  const RegisteredImage *Image = nullptr;
  std::string LinkFormat;
  bool Linkable = false;
};
Expected<KernelImage> findKernelImage(const RegistrySnapshot &Registry, const DeviceTraits &Traits,
                                      const std::string &Kernel, ModuleId Preferred);

// The images Kernel needs on a device with Traits. Preferred (0: none) is searched first
// for the kernel's image. Errors: PI_ERROR_INVALID_KERNEL_NAME (no image has the kernel
// in a format the device takes), PI_ERROR_LINK_PROGRAM_FAILURE (unresolved imports: every
// symbol with the images that import it).
Expected<CollectedImages> collectImages(const RegistrySnapshot &Registry,
                                        const DeviceTraits &Traits, const std::string &Kernel,
                                        ModuleId Preferred);

} // namespace dglink::runtime::detail
