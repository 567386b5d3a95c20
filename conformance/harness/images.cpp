// Embedded-image lookup and device-image assembly for the conformance suite.
#include "images.h"

#include "devices.h"

namespace dglink::conformance {

const std::vector<LinkFormat> &knownLinkFormats() {
  // SPIR-V and SPIR bitcode share the spir64 target and differ in format.
  static const std::vector<LinkFormat> Formats = {
      {"spir64",
       PI_DEVICE_BINARY_TYPE_LLVMIR_BITCODE,
       PI_DEVICE_BINARY_TARGET_SPIRV64,
       {"spir64", "SPIR"}},
      {"spirv64",
       PI_DEVICE_BINARY_TYPE_SPIRV,
       PI_DEVICE_BINARY_TARGET_SPIRV64,
       {"spirv64", "SPIR-V"}},
      {"nvptx64",
       PI_DEVICE_BINARY_TYPE_NATIVE,
       PI_DEVICE_BINARY_TARGET_NVPTX64,
       {"nvptx64", "PTX"}},
      {"amdgcn",
       PI_DEVICE_BINARY_TYPE_NATIVE,
       PI_DEVICE_BINARY_TARGET_AMDGCN,
       {"amdgcn", "code object"}},
  };
  return Formats;
}

const LinkFormat *findLinkFormat(const std::string &Name) {
  for (const LinkFormat &Format : knownLinkFormats())
    if (Name == Format.Name)
      return &Format;
  return nullptr;
}

const EmbeddedImage *findImage(const std::string &Name, const std::string &Format) {
  for (size_t I = 0; I < NumEmbeddedImages; ++I)
    if (Name == EmbeddedImages[I].Name && Format == EmbeddedImages[I].LinkFormat)
      return &EmbeddedImages[I];
  return nullptr;
}

bool hasImages(const std::string &Format) {
  for (size_t I = 0; I < NumEmbeddedImages; ++I)
    if (Format == EmbeddedImages[I].LinkFormat)
      return true;
  return false;
}

std::string missingImagesReason(const std::string &Format) {
  for (size_t I = 0; I < NumDisabledImageTargets; ++I)
    if (Format == DisabledImageTargets[I].LinkFormat)
      return "no image built for target " + Format + " (" + DisabledImageTargets[I].Reason + ")";
  return "no image built for target " + Format + " (the suite has no device code for it)";
}

DeviceImage::DeviceImage(const EmbeddedImage &Image, const LinkFormat &Format) : Source(Image) {
  for (const std::string &Kernel : splitWords(Image.Kernels)) {
    _pi_offload_entry_struct Entry{};
    Entry.name = keep(Kernel);
    Entries.push_back(Entry);
  }
  addSymbols(Image.Exports, Exported);
  addSymbols(Image.Imports, Imported);
  // Both sets are always present: an empty set says "nothing", a missing one
  // would say "unknown" and leave the check to the driver.
  Sets.push_back(
      {keep(PI_PROPERTY_SET_EXPORTED_SYMBOLS), Exported.data(), Exported.data() + Exported.size()});
  Sets.push_back(
      {keep(PI_PROPERTY_SET_IMPORTED_SYMBOLS), Imported.data(), Imported.data() + Imported.size()});
  addDeviceGlobals(Image);

  Binary.Version = PI_DEVICE_BINARY_VERSION;
  Binary.Kind = PI_DEVICE_BINARY_OFFLOAD_KIND_SYCL;
  Binary.Format = static_cast<uint8_t>(Format.Format);
  Binary.DeviceTargetSpec = Format.TargetSpec;
  Binary.CompileOptions = "";
  Binary.LinkOptions = "";
  Binary.BinaryStart = Image.Bytes;
  Binary.BinaryEnd = Image.Bytes + Image.Size;
  Binary.EntriesBegin = Entries.data();
  Binary.EntriesEnd = Entries.data() + Entries.size();
  Binary.PropertySetsBegin = Sets.data();
  Binary.PropertySetsEnd = Sets.data() + Sets.size();
}

char *DeviceImage::keep(const std::string &Text) {
  Strings.push_back(Text);
  return Strings.back().data();
}

void DeviceImage::addDeviceGlobals(const EmbeddedImage &Image) {
  if (Image.NumDeviceGlobals == 0)
    return; // as a compiler does: no variables, no set
  // Little-endian, written out here rather than with dglink's own encoder so that
  // the suite checks the adapters against the documented layout.
  auto PutLittleEndian = [](std::string &Bytes, uint64_t Value, int Count) {
    for (int I = 0; I < Count; ++I)
      Bytes.push_back(static_cast<char>((Value >> (8 * I)) & 0xFF));
  };
  for (size_t I = 0; I < Image.NumDeviceGlobals; ++I) {
    const EmbeddedDeviceGlobal &Global = Image.DeviceGlobals[I];
    std::string Value;
    PutLittleEndian(Value, 12 * 8, 8); // byte-array header: the size in bits
    PutLittleEndian(Value, Global.Size, 4);
    PutLittleEndian(Value, Global.DeviceImageScope, 4);
    PutLittleEndian(Value, Global.HostAccess, 4);
    DeviceGlobals.push_back(
        {keep(Global.UniqueId), keep(Value), PI_PROPERTY_TYPE_BYTE_ARRAY, Value.size()});
    if (std::string(Global.UniqueId) != Global.Symbol)
      DeviceGlobalSymbols.push_back({keep(Global.UniqueId), keep(Global.Symbol),
                                     PI_PROPERTY_TYPE_STRING,
                                     std::string(Global.Symbol).size() + 1});
  }
  Sets.push_back({keep(PI_PROPERTY_SET_DEVICE_GLOBALS), DeviceGlobals.data(),
                  DeviceGlobals.data() + DeviceGlobals.size()});
  if (!DeviceGlobalSymbols.empty())
    Sets.push_back({keep(DeviceGlobalSymbolsSet), DeviceGlobalSymbols.data(),
                    DeviceGlobalSymbols.data() + DeviceGlobalSymbols.size()});
}

void DeviceImage::addSymbols(const char *Symbols,
                             std::vector<_pi_device_binary_property_struct> &Set) {
  for (const std::string &Symbol : splitWords(Symbols))
    Set.push_back({keep(Symbol), nullptr, PI_PROPERTY_TYPE_UINT32, 1});
}

} // namespace dglink::conformance
