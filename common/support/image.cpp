// Image format detection and validated reading of property sets.
#include <dglink/support/error.h>
#include <dglink/support/image.h>

#include <algorithm>
#include <cstring>

namespace dglink {

const char *formatName(ImageFormat Format) {
  switch (Format) {
  case ImageFormat::SpirV:
    return "SPIR-V";
  case ImageFormat::LlvmBitcode:
    return "LLVM bitcode (SPIR)";
  case ImageFormat::Ptx:
    return "PTX";
  case ImageFormat::Elf:
    return "ELF (native)";
  case ImageFormat::Unknown:
    break;
  }
  return "unknown";
}

const char *hostAccessName(HostAccess Access) {
  switch (Access) {
  case HostAccess::Read:
    return "read";
  case HostAccess::Write:
    return "write";
  case HostAccess::ReadWrite:
    return "read_write";
  case HostAccess::None:
    return "none";
  }
  return "invalid";
}

ImageFormat detectFormat(const void *Data, size_t Size) {
  if (Data == nullptr || Size < 4)
    return ImageFormat::Unknown;
  const auto *Bytes = static_cast<const unsigned char *>(Data);
  uint32_t Word;
  std::memcpy(&Word, Bytes, 4);
  if (Word == 0x07230203u || Word == 0x03022307u)
    return ImageFormat::SpirV;
  if ((Bytes[0] == 'B' && Bytes[1] == 'C' && Bytes[2] == 0xC0 && Bytes[3] == 0xDE) ||
      Word == 0x0B17C0DEu)
    return ImageFormat::LlvmBitcode;
  if (Bytes[0] == 0x7F && Bytes[1] == 'E' && Bytes[2] == 'L' && Bytes[3] == 'F')
    return ImageFormat::Elf;
  // PTX is text: look for its mandatory directives near the start.
  const size_t Window = Size < 4096 ? Size : 4096;
  const std::string Head(reinterpret_cast<const char *>(Bytes), Window);
  if (Head.find(".version") != std::string::npos && Head.find(".target") != std::string::npos)
    return ImageFormat::Ptx;
  return ImageFormat::Unknown;
}

namespace {

uint64_t readLittleEndian(const unsigned char *Bytes, size_t Count) {
  uint64_t Value = 0;
  for (size_t I = 0; I < Count; ++I)
    Value |= static_cast<uint64_t>(Bytes[I]) << (8 * I);
  return Value;
}

// The bytes of one validated property value (UINT32 as 4 little-endian bytes,
// a byte array without its size header, a string without its NUL).
pi_result readValue(const char *SetName, const _pi_device_binary_property_struct &Property,
                    std::vector<uint8_t> &Value) {
  if (Property.Name == nullptr)
    return fail(PI_ERROR_INVALID_BINARY, "property set '{}': a property has no name", SetName);
  const char *Name = Property.Name;
  switch (Property.Type) {
  case PI_PROPERTY_TYPE_UINT32: {
    if (Property.ValSize > 0xFFFFFFFFull)
      return fail(PI_ERROR_INVALID_BINARY,
                  "property set '{}', property '{}': UINT32 value {} does not fit 32 bits", SetName,
                  Name, Property.ValSize);
    Value.resize(4);
    for (int I = 0; I < 4; ++I)
      Value[I] = static_cast<uint8_t>(Property.ValSize >> (8 * I));
    return PI_SUCCESS;
  }
  case PI_PROPERTY_TYPE_BYTE_ARRAY: {
    if (Property.ValAddr == nullptr || Property.ValSize < 8)
      return fail(PI_ERROR_INVALID_BINARY,
                  "property set '{}', property '{}': byte array of {} bytes has no 8-byte "
                  "size header",
                  SetName, Name, Property.ValSize);
    const auto *Bytes = static_cast<const unsigned char *>(Property.ValAddr);
    const uint64_t Bits = readLittleEndian(Bytes, 8);
    const uint64_t Payload = Property.ValSize - 8;
    if (Bits % 8 != 0 || Bits / 8 != Payload)
      return fail(PI_ERROR_INVALID_BINARY,
                  "property set '{}', property '{}': byte array header says {} bits but {} "
                  "bytes follow",
                  SetName, Name, Bits, Payload);
    Value.assign(Bytes + 8, Bytes + 8 + Payload);
    return PI_SUCCESS;
  }
  case PI_PROPERTY_TYPE_STRING: {
    const auto *Chars = static_cast<const char *>(Property.ValAddr);
    if (Chars == nullptr || Property.ValSize == 0 || Chars[Property.ValSize - 1] != '\0')
      return fail(PI_ERROR_INVALID_BINARY,
                  "property set '{}', property '{}': string value is not NUL-terminated "
                  "within its {} bytes",
                  SetName, Name, Property.ValSize);
    Value.assign(Chars, Chars + Property.ValSize - 1);
    return PI_SUCCESS;
  }
  default:
    return fail(PI_ERROR_INVALID_BINARY, "property set '{}', property '{}': unknown type {}",
                SetName, Name, Property.Type);
  }
}

pi_result decodeDeviceGlobal(const std::string &Id, const std::vector<uint8_t> &Value,
                             DeviceGlobalInfo &Info) {
  if (Value.size() != 8 && Value.size() != 12)
    return fail(PI_ERROR_INVALID_BINARY,
                "property set '" PI_PROPERTY_SET_DEVICE_GLOBALS
                "', property '{}': value has {} bytes, expected 8 or 12",
                Id, Value.size());
  Info.UniqueId = Id;
  Info.Size = static_cast<uint32_t>(readLittleEndian(Value.data(), 4));
  const uint64_t Scope = readLittleEndian(Value.data() + 4, 4);
  uint64_t Access = static_cast<uint64_t>(HostAccess::ReadWrite);
  if (Value.size() == 12)
    Access = readLittleEndian(Value.data() + 8, 4);
  if (Scope > 1 || Access > 3)
    return fail(PI_ERROR_INVALID_BINARY,
                "property set '" PI_PROPERTY_SET_DEVICE_GLOBALS
                "', property '{}': device_image_scope {} / host_access {} out of range",
                Id, Scope, Access);
  Info.DeviceImageScope = Scope == 1;
  Info.Access = static_cast<HostAccess>(Access);
  return PI_SUCCESS;
}

bool endsWith(const std::string &Text, const char *Suffix) {
  const size_t Length = std::strlen(Suffix);
  return Text.size() >= Length && Text.compare(Text.size() - Length, Length, Suffix) == 0;
}

// One of Unified Runtime's tagged program-metadata properties ("<prefix>@<tag>"), read as
// UR's CUDA and HIP adapters read it (source/adapters/cuda/program.cpp, setMetadata): a
// byte array whose first 8 bytes are a size prefix they skip unread (zero in UR's CTS,
// the size in bits where DPC++ writes it), then the value. Returns false for a property
// that is not one.
bool isTaggedMetadata(const std::string &SetName, const std::string &PropertyName) {
  return SetName == PI_PROPERTY_SET_PROGRAM_METADATA &&
         (endsWith(PropertyName, GlobalIdMappingTag) ||
          endsWith(PropertyName, RequiredGroupSizeTag));
}

pi_result addTaggedMetadata(const std::string &SetName,
                            const _pi_device_binary_property_struct &Property,
                            const std::string &PropertyName, ImageMetadata &Out) {
  const bool IsMapping = endsWith(PropertyName, GlobalIdMappingTag);
  const std::string Prefix = PropertyName.substr(
      0, PropertyName.size() - std::strlen(IsMapping ? GlobalIdMappingTag : RequiredGroupSizeTag));
  if (Property.Type != PI_PROPERTY_TYPE_BYTE_ARRAY)
    return fail(PI_ERROR_INVALID_BINARY,
                "program metadata '{}': expected a byte array (8-byte size prefix, then the "
                "value), got type {}",
                clip(PropertyName), Property.Type);
  if (Property.ValAddr == nullptr || Property.ValSize < 8)
    return fail(PI_ERROR_INVALID_BINARY,
                "program metadata '{}': {} bytes, less than its 8-byte size prefix",
                clip(PropertyName), Property.ValSize);
  if (Prefix.empty())
    return fail(PI_ERROR_INVALID_BINARY, "program metadata '{}': no {} before the tag",
                clip(PropertyName), IsMapping ? "unique id" : "kernel name");
  const auto *Bytes = static_cast<const unsigned char *>(Property.ValAddr) + 8;
  const size_t Size = static_cast<size_t>(Property.ValSize) - 8;
  if (IsMapping) {
    // UR hands the bytes to cuModuleGetGlobal as a C string: a NUL ends the symbol.
    const std::string Symbol(reinterpret_cast<const char *>(Bytes),
                             std::find(Bytes, Bytes + Size, '\0') - Bytes);
    if (Symbol.empty())
      return fail(PI_ERROR_INVALID_BINARY,
                  "program metadata '{}': the device global's symbol is empty", clip(PropertyName));
    Out.GlobalIdMapping[Prefix] = Symbol;
  } else {
    // 1 to 3 32-bit sizes; UR answers UR_RESULT_ERROR_INVALID_WORK_GROUP_SIZE otherwise.
    if (Size < 4 || Size > 12 || Size % 4 != 0)
      return fail(PI_ERROR_INVALID_WORK_GROUP_SIZE,
                  "program metadata '{}': {} bytes after the size prefix, expected 1 to 3 "
                  "32-bit sizes",
                  clip(PropertyName), Size);
    std::array<uint32_t, 3> Sizes = {1, 1, 1};
    for (size_t D = 0; D < Size / 4; ++D)
      Sizes[D] = static_cast<uint32_t>(readLittleEndian(Bytes + 4 * D, 4));
    Out.RequiredGroupSizes[Prefix] = Sizes;
  }
  Out.RawSets[SetName][PropertyName].assign(Bytes, Bytes + Size);
  return PI_SUCCESS;
}

// Adds one property of set SetName to Out, interpreting the sets dglink knows.
pi_result addProperty(const std::string &SetName, const _pi_device_binary_property_struct &Property,
                      const std::string &PropertyName, ImageMetadata &Out) {
  if (isTaggedMetadata(SetName, PropertyName))
    return addTaggedMetadata(SetName, Property, PropertyName, Out);
  std::vector<uint8_t> Value;
  DGLINK_TRY(readValue(SetName.c_str(), Property, Value));
  if (PropertyName.empty())
    return fail(PI_ERROR_INVALID_BINARY, "property set '{}': a property has an empty name",
                SetName);
  if (SetName == PI_PROPERTY_SET_EXPORTED_SYMBOLS) {
    Out.Exported.push_back(PropertyName);
    Out.HasSymbolTables = true;
  } else if (SetName == PI_PROPERTY_SET_IMPORTED_SYMBOLS) {
    Out.Imported.push_back(PropertyName);
    Out.HasSymbolTables = true;
  } else if (SetName == PI_PROPERTY_SET_DEVICE_GLOBALS) {
    if (Property.Type != PI_PROPERTY_TYPE_BYTE_ARRAY)
      return fail(PI_ERROR_INVALID_BINARY,
                  "property set '{}', property '{}': expected a byte array, got type {}", SetName,
                  PropertyName, Property.Type);
    DeviceGlobalInfo Info;
    DGLINK_TRY(decodeDeviceGlobal(PropertyName, Value, Info));
    Out.DeviceGlobals[PropertyName] = Info;
  }
  Out.RawSets[SetName][PropertyName] = std::move(Value);
  return PI_SUCCESS;
}

uint64_t addSaturated(uint64_t A, uint64_t B) { return A > UINT64_MAX - B ? UINT64_MAX : A + B; }

// Storage beyond this is not a plausible device-global block, but a corrupt size.
constexpr uint64_t MaxLoweredStorage = uint64_t(1) << 36;

// The DGLINK/ sets of a lowered image, checked against each other and SYCL/device globals.
pi_result decodeLoweredStorage(ImageMetadata &Metadata) {
  const auto &Sets = Metadata.RawSets;
  const auto Storage = Sets.find(PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_STORAGE);
  const auto Offsets = Sets.find(PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_OFFSETS);
  const auto Initializers = Sets.find(PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_INITIALIZERS);
  if (Storage == Sets.end()) {
    if (Offsets != Sets.end() || Initializers != Sets.end())
      return fail(PI_ERROR_INVALID_BINARY,
                  "property set '" PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_OFFSETS
                  "' or '" PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_INITIALIZERS
                  "' without '" PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_STORAGE "'");
    return PI_SUCCESS;
  }
  LoweredStorage Result;
  const auto Size = Storage->second.find("size");
  if (Size == Storage->second.end() || Size->second.size() != 8)
    return fail(PI_ERROR_INVALID_BINARY,
                "property set '" PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_STORAGE
                "': property 'size' {}",
                Size == Storage->second.end() ? "is missing" : "is not 8 bytes");
  Result.Size = readLittleEndian(Size->second.data(), 8);
  if (Result.Size > MaxLoweredStorage)
    return fail(PI_ERROR_INVALID_BINARY,
                "property set '" PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_STORAGE
                "': size {} bytes is not plausible",
                Result.Size);
  const auto Argument = Storage->second.find("argument");
  const std::vector<uint8_t> Last = {'l', 'a', 's', 't'};
  if (Argument == Storage->second.end() || Argument->second != Last)
    return fail(PI_ERROR_INVALID_BINARY,
                "property set '" PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_STORAGE
                "': property 'argument' must be \"last\" (the storage is each kernel's last "
                "argument)");
  if (Offsets != Sets.end())
    for (const auto &[Id, Value] : Offsets->second) {
      if (Value.size() != 16)
        return fail(PI_ERROR_INVALID_BINARY,
                    "property set '" PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_OFFSETS
                    "', property '{}': value has {} bytes, expected 16",
                    Id, Value.size());
      LoweredVariable Variable;
      Variable.Offset = readLittleEndian(Value.data(), 8);
      Variable.Size = readLittleEndian(Value.data() + 8, 8);
      if (addSaturated(Variable.Offset, Variable.Size) > Result.Size)
        return fail(PI_ERROR_INVALID_BINARY,
                    "property set '" PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_OFFSETS
                    "', property '{}': offset {} + size {} is past the storage's {} bytes",
                    Id, Variable.Offset, Variable.Size, Result.Size);
      // A variable without device_image_scope may hold a pointer to its value (usmptr):
      // its place is the pointer, its declared size the value's.
      const auto Declared = Metadata.DeviceGlobals.find(Id);
      if (Declared != Metadata.DeviceGlobals.end() && Declared->second.Size != Variable.Size &&
          (Declared->second.DeviceImageScope || Variable.Size != UsmptrBytes))
        return fail(PI_ERROR_INVALID_BINARY,
                    "property set '" PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_OFFSETS
                    "', property '{}': size {} but '" PI_PROPERTY_SET_DEVICE_GLOBALS "' says {}",
                    Id, Variable.Size, Declared->second.Size);
      Result.Variables[Id] = Variable;
    }
  for (const auto &[Id, Info] : Metadata.DeviceGlobals)
    if (Result.Variables.count(Id) == 0)
      return fail(PI_ERROR_INVALID_BINARY,
                  "device global '{}' of a lowered image has no place in "
                  "'" PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_OFFSETS "'",
                  Id);
  if (Initializers != Sets.end())
    for (const auto &[Id, Value] : Initializers->second) {
      const auto Variable = Result.Variables.find(Id);
      if (Variable == Result.Variables.end() || Variable->second.Size != Value.size())
        return fail(
            PI_ERROR_INVALID_BINARY,
            "property set '" PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_INITIALIZERS
            "', property '{}': {}",
            Id,
            Variable == Result.Variables.end()
                ? std::string("no such variable in '" PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_OFFSETS
                              "'")
                : fmt::format("{} bytes for a variable of {}", Value.size(),
                              Variable->second.Size));
      Variable->second.Initializer = Value;
    }
  Metadata.Lowered = std::move(Result);
  return PI_SUCCESS;
}

} // namespace

std::vector<uint8_t> LoweredStorage::initialContents() const {
  std::vector<uint8_t> Contents(Size, 0);
  for (const auto &[Id, Variable] : Variables)
    std::copy(Variable.Initializer.begin(), Variable.Initializer.end(),
              Contents.begin() + static_cast<std::ptrdiff_t>(Variable.Offset));
  return Contents;
}

pi_result refuseLoweredImage(const char *Function, const ImageMetadata &Metadata) {
  if (!Metadata.Lowered)
    return PI_SUCCESS;
  return fail(PI_ERROR_INVALID_OPERATION,
              "{}: the image's device globals were lowered for OpenCL (property set "
              "'" PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_STORAGE
              "'); this adapter finds device globals by name: give it the image that was not "
              "lowered",
              Function);
}

pi_result mergeLoweredStorage(const std::vector<const ImageMetadata *> &Inputs,
                              std::optional<LoweredStorage> &Out) {
  std::optional<LoweredStorage> Merged;
  const ImageMetadata *NotLowered = nullptr;
  for (const ImageMetadata *Input : Inputs) {
    if (!Input->Lowered) {
      if (!Input->DeviceGlobals.empty())
        NotLowered = Input;
      continue;
    }
    if (!Merged)
      Merged.emplace();
    Merged->Size = std::max(Merged->Size, Input->Lowered->Size);
    for (const auto &[Id, Variable] : Input->Lowered->Variables) {
      auto [It, Inserted] = Merged->Variables.emplace(Id, Variable);
      if (Inserted)
        continue;
      if (It->second.Offset != Variable.Offset || It->second.Size != Variable.Size)
        return fail(PI_ERROR_LINK_PROGRAM_FAILURE,
                    "device global '{}' has two places in the lowered storage (offset {} size {}, "
                    "offset {} size {}): the images come from different lowerings",
                    Id, It->second.Offset, It->second.Size, Variable.Offset, Variable.Size);
      if (It->second.Initializer.empty())
        It->second.Initializer = Variable.Initializer;
    }
  }
  if (!Merged) {
    Out.reset();
    return PI_SUCCESS;
  }
  if (NotLowered != nullptr)
    return fail(PI_ERROR_INVALID_OPERATION,
                "an image with lowered device globals cannot link with one whose device globals "
                "(e.g. '{}') were not lowered; compile both with --lower-device-globals",
                NotLowered->DeviceGlobals.begin()->first);
  // Different variables must not share bytes: sort by offset and compare neighbours.
  std::vector<std::pair<const std::string *, const LoweredVariable *>> ByOffset;
  for (const auto &[Id, Variable] : Merged->Variables)
    ByOffset.emplace_back(&Id, &Variable);
  std::sort(ByOffset.begin(), ByOffset.end(),
            [](const auto &A, const auto &B) { return A.second->Offset < B.second->Offset; });
  for (size_t I = 1; I < ByOffset.size(); ++I) {
    const LoweredVariable &Previous = *ByOffset[I - 1].second;
    if (Previous.Size != 0 &&
        addSaturated(Previous.Offset, Previous.Size) > ByOffset[I].second->Offset)
      return fail(PI_ERROR_LINK_PROGRAM_FAILURE,
                  "device globals '{}' and '{}' overlap in the lowered storage: the images come "
                  "from different `dglink compile` runs; compile them together",
                  *ByOffset[I - 1].first, *ByOffset[I].first);
  }
  Out = std::move(Merged);
  return PI_SUCCESS;
}

pi_result readImageMetadata(const _pi_device_binary_struct &Image, ImageMetadata &Out) {
  ImageMetadata Result;
  const auto *Begin = Image.PropertySetsBegin;
  const auto *End = Image.PropertySetsEnd;
  if ((Begin == nullptr) != (End == nullptr) || End < Begin)
    return fail(PI_ERROR_INVALID_BINARY, "device image: property set range is invalid");
  for (const auto *Set = Begin; Set != End; ++Set) {
    if (Set->Name == nullptr)
      return fail(PI_ERROR_INVALID_BINARY, "device image: property set {} has no name",
                  Set - Begin);
    const std::string SetName = Set->Name;
    if ((Set->PropertiesBegin == nullptr) != (Set->PropertiesEnd == nullptr) ||
        Set->PropertiesEnd < Set->PropertiesBegin)
      return fail(PI_ERROR_INVALID_BINARY, "property set '{}': property range is invalid", SetName);
    Result.RawSets[SetName]; // an empty set is still present
    if (SetName == PI_PROPERTY_SET_EXPORTED_SYMBOLS || SetName == PI_PROPERTY_SET_IMPORTED_SYMBOLS)
      Result.HasSymbolTables = true;
    for (const auto *Property = Set->PropertiesBegin; Property != Set->PropertiesEnd; ++Property)
      DGLINK_TRY(addProperty(SetName, *Property, Property->Name ? Property->Name : "", Result));
  }
  DGLINK_TRY(decodeLoweredStorage(Result));
  Out = std::move(Result);
  return PI_SUCCESS;
}

pi_result readFlatMetadata(size_t NumEntries, const pi_device_binary_property *Entries,
                           ImageMetadata &Out) {
  if (NumEntries != 0 && Entries == nullptr)
    return fail(PI_ERROR_INVALID_VALUE, "program metadata: {} entries but the list is null",
                NumEntries);
  static const char *const KnownSets[] = {PI_PROPERTY_SET_DEVICE_GLOBALS,
                                          PI_PROPERTY_SET_EXPORTED_SYMBOLS,
                                          PI_PROPERTY_SET_IMPORTED_SYMBOLS,
                                          PI_PROPERTY_SET_VIRTUAL_FUNCTIONS,
                                          PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_STORAGE,
                                          PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_OFFSETS,
                                          PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_INITIALIZERS};
  ImageMetadata Result;
  for (size_t I = 0; I < NumEntries; ++I) {
    if (Entries[I] == nullptr || Entries[I]->Name == nullptr)
      return fail(PI_ERROR_INVALID_BINARY, "program metadata: entry {} is null or unnamed", I);
    const std::string Qualified = Entries[I]->Name;
    std::string SetName = PI_PROPERTY_SET_PROGRAM_METADATA;
    std::string Name = Qualified;
    for (const char *Known : KnownSets) {
      const std::string Prefix = std::string(Known) + "/";
      if (Qualified.compare(0, Prefix.size(), Prefix) == 0) {
        SetName = Known;
        Name = Qualified.substr(Prefix.size());
        break;
      }
    }
    DGLINK_TRY(addProperty(SetName, *Entries[I], Name, Result));
  }
  DGLINK_TRY(decodeLoweredStorage(Result));
  Out = std::move(Result);
  return PI_SUCCESS;
}

std::vector<uint8_t> encodeDeviceGlobalValue(const DeviceGlobalInfo &Info) {
  std::vector<uint8_t> Bytes;
  auto Put = [&Bytes](uint64_t Value, int Count) {
    for (int I = 0; I < Count; ++I)
      Bytes.push_back(static_cast<uint8_t>(Value >> (8 * I)));
  };
  Put(12 * 8, 8); // size header, in bits
  Put(Info.Size, 4);
  Put(Info.DeviceImageScope ? 1 : 0, 4);
  Put(static_cast<uint32_t>(Info.Access), 4);
  return Bytes;
}

} // namespace dglink
