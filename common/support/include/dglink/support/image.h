// Device images as adapters see them: the format of a binary, and the metadata a
// dglink image carries in its property sets (symbols, device globals), read with
// every size checked because images are untrusted input.
#pragma once

#include <dglink/pi.h>
#include <dglink/support/api.h>

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dglink {

enum class ImageFormat { Unknown, SpirV, LlvmBitcode, Ptx, Elf };

DGLINK_SUPPORT_API const char *formatName(ImageFormat Format);

// Recognises a binary by its first bytes (SPIR-V magic, LLVM bitcode magic or
// wrapper, ELF, PTX text).
DGLINK_SUPPORT_API ImageFormat detectFormat(const void *Data, size_t Size);

// host_access of a device global (the values of DPC++'s sycl-host-access).
enum class HostAccess : uint32_t { Read = 0, Write = 1, ReadWrite = 2, None = 3 };
DGLINK_SUPPORT_API const char *hostAccessName(HostAccess Access);

// The device instance of a device global without device_image_scope that holds a
// pointer to its value (DPC++'s usmptr): its declared size is the value's, sizeof(T).
inline constexpr uint64_t UsmptrBytes = 8;

struct DeviceGlobalInfo {
  std::string UniqueId;
  uint32_t Size = 0;
  bool DeviceImageScope = false;
  HostAccess Access = HostAccess::ReadWrite;
};

// Where an image lowered for OpenCL (the DGLINK/ property sets, docs/opencl-lowering.md)
// keeps a device global in the storage the adapter owns.
struct LoweredVariable {
  uint64_t Offset = 0;
  uint64_t Size = 0;
  std::vector<uint8_t> Initializer; // empty: zero
  // The variable's module symbol where the lowering knew it (the adapter's own lowering of
  // SPIR-V; an image's property sets name unique ids only), for UR's
  // "<id>@global_id_mapping", which names the symbol.
  std::string Symbol;
};

struct LoweredStorage {
  uint64_t Size = 0;                                // bytes the storage needs
  std::map<std::string, LoweredVariable> Variables; // by unique id
  // The storage's first contents: zeros and each variable's initializer.
  DGLINK_SUPPORT_API std::vector<uint8_t> initialContents() const;
};

// What linking and device-global lookup need from an image's property sets.
struct ImageMetadata {
  std::vector<std::string> Exported;
  std::vector<std::string> Imported;
  std::map<std::string, DeviceGlobalInfo> DeviceGlobals;
  // Every property set of the image, kept by name for adapter-specific metadata.
  std::map<std::string, std::map<std::string, std::vector<uint8_t>>> RawSets;
  bool HasSymbolTables = false; // the image said what it exports and imports
  // Set for an image whose device globals were lowered into adapter-owned storage: each
  // of its kernels takes a pointer to the storage as its last argument.
  std::optional<LoweredStorage> Lowered;
  // Unified Runtime's program metadata ("SYCL/program metadata" properties, as DPC++ and
  // UR's CTS pass them): "<unique id>@global_id_mapping" gives the module symbol of a
  // device global, "<kernel>@reqd_work_group_size" the group size a kernel requires
  // (missing dimensions 1; 0: no requirement in that dimension, as UR's CUDA adapter).
  std::map<std::string, std::string> GlobalIdMapping;
  std::map<std::string, std::array<uint32_t, 3>> RequiredGroupSizes;
};

// The tags of that metadata (UR's source/ur/ur.hpp): a property named "<prefix><tag>".
inline constexpr const char *GlobalIdMappingTag = "@global_id_mapping";
inline constexpr const char *RequiredGroupSizeTag = "@reqd_work_group_size";

// Adapters whose devices find device globals by name (CUDA, HIP, Level Zero) refuse an
// image lowered for OpenCL: its kernels expect a storage argument no launch would pass.
// PI_ERROR_INVALID_OPERATION with a message naming Function, or PI_SUCCESS.
DGLINK_SUPPORT_API pi_result refuseLoweredImage(const char *Function,
                                                const ImageMetadata &Metadata);

// The storage of a program linked from Inputs: one variable keeps one place, and two
// variables never overlap (images of different `dglink compile` runs may); a lowered
// input with an input whose device globals were not lowered cannot link either.
// Failures are PI_ERROR_LINK_PROGRAM_FAILURE (layouts disagree) or
// PI_ERROR_INVALID_OPERATION (lowered with not lowered), with a message naming the
// variables; Out is then untouched. Out stays empty when no input is lowered.
DGLINK_SUPPORT_API pi_result mergeLoweredStorage(const std::vector<const ImageMetadata *> &Inputs,
                                                 std::optional<LoweredStorage> &Out);

// Reads the property sets of Image. A malformed set, property or value gives
// PI_ERROR_INVALID_BINARY with a message naming it, and Out is left untouched.
DGLINK_SUPPORT_API pi_result readImageMetadata(const _pi_device_binary_struct &Image,
                                               ImageMetadata &Out);

// The same from a flat metadata list (piProgramCreateWithBinary); property names
// may be qualified as "<set name>/<property>" with the set names of pi.h.
DGLINK_SUPPORT_API pi_result readFlatMetadata(size_t NumEntries,
                                              const pi_device_binary_property *Entries,
                                              ImageMetadata &Out);

// Value encoding of a "SYCL/device globals" property: 8 bytes
// {uint32 size; uint32 device_image_scope}, optionally followed by uint32
// host_access (12 bytes); all little-endian; see docs/property-sets.md.
DGLINK_SUPPORT_API std::vector<uint8_t> encodeDeviceGlobalValue(const DeviceGlobalInfo &Info);

} // namespace dglink
