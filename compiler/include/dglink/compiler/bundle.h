// Bundles: many device images with their targets, formats, options, entries and
// property sets in one versioned file, a writer, a reader that treats the file as
// untrusted input, and the in-memory pi_device_binaries layout a runtime consumes.
#pragma once

#include <dglink/pi.h>
#include <dglink/support/image.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace dglink {

// One property, with its value in the ABI encoding of _pi_device_binary_property_struct:
// UINT32 keeps the value in ValSize and has no bytes; BYTE_ARRAY bytes start with the
// 8-byte little-endian size in bits; STRING bytes end with their NUL.
struct BundleProperty {
  std::string Name;
  pi_property_type Type = PI_PROPERTY_TYPE_UNKNOWN;
  uint64_t ValSize = 0;
  std::vector<uint8_t> Value;

  static BundleProperty uint32(std::string Name, uint32_t Value);
  static BundleProperty string(std::string Name, const std::string &Value);
  // Payload without the size header: the header is added here.
  static BundleProperty byteArray(std::string Name, const std::vector<uint8_t> &Payload);
  // A "SYCL/device globals" property named by the unique id (docs/property-sets.md).
  static BundleProperty deviceGlobal(const DeviceGlobalInfo &Info);
};

struct BundlePropertySet {
  std::string Name;
  std::vector<BundleProperty> Properties;
};

struct BundleImage {
  std::string Name;   // where it came from: an input, a kernel, "all"
  std::string Target; // DeviceTargetSpec: spir64, nvptx64, amdgcn, ...
  pi_device_binary_format Format = PI_DEVICE_BINARY_TYPE_NONE;
  std::string CompileOptions;
  std::string LinkOptions;
  std::vector<uint8_t> Binary;
  std::vector<std::string> Entries; // kernel names
  std::vector<BundlePropertySet> PropertySets;

  const BundlePropertySet *findSet(const std::string &SetName) const;
};

struct Bundle {
  std::vector<BundleImage> Images;
};

// The file format's identification; see docs/shim.md for the layout.
constexpr char BundleMagic[8] = {'D', 'G', 'L', 'B', 'N', 'D', 'L', '\n'};
constexpr uint32_t BundleVersion = 1;

// The bytes of a bundle file.
std::vector<uint8_t> writeBundle(const Bundle &Input);

// Parses and validates a bundle: every offset, size, count and string is checked
// before it is used, and the sets dglink knows are decoded as the adapters would
// (readImageMetadata). A malformed bundle is PI_ERROR_INVALID_BINARY with a last-error
// message naming what and where; Out is then left untouched.
pi_result readBundle(const uint8_t *Data, size_t Size, Bundle &Out);

// Reads a bundle file; a missing or unreadable file is PI_ERROR_INVALID_VALUE.
pi_result readBundleFile(const std::string &Path, Bundle &Out);
pi_result writeBundleFile(const std::string &Path, const Bundle &Input);

// A bundle in the layout of DPC++'s pi_device_binaries_struct, owning every byte
// the structures point at; what a runtime registers at start-up.
class DeviceBinaries {
public:
  explicit DeviceBinaries(const Bundle &Input);
  DeviceBinaries(const DeviceBinaries &) = delete;
  DeviceBinaries &operator=(const DeviceBinaries &) = delete;

  pi_device_binaries get() { return &Descriptor; }
  const _pi_device_binary_struct &image(size_t Index) const { return Images[Index]; }
  size_t size() const { return Images.size(); }

private:
  Bundle Storage; // the strings and bytes the structures point into
  std::vector<std::vector<_pi_offload_entry_struct>> Entries;
  std::vector<std::vector<_pi_device_binary_property_struct>> Properties;
  std::vector<std::vector<_pi_device_binary_property_set_struct>> Sets;
  std::vector<_pi_device_binary_struct> Images;
  _pi_device_binaries_struct Descriptor{};
};

// The embeddable form: C++ source that holds the bundle as static data laid out like
// DPC++'s pi_device_binaries_struct, defines `extern "C" pi_device_binaries
// <Symbol>(void)`, and at start-up passes it to __sycl_register_lib (and at exit to
// __sycl_unregister_lib) where the program defines them (weak references otherwise).
std::string writeEmbeddedSource(const Bundle &Input, const std::string &Symbol);

// The readable name of a pi_device_binary_format ("SPIR-V", "LLVM bitcode", "native").
const char *binaryFormatName(pi_device_binary_format Format);

} // namespace dglink
