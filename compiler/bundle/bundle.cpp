// The bundle file format: writer, validating reader, and the pi_device_binaries view.
#include <dglink/compiler/bundle.h>
#include <dglink/support/error.h>
#include <dglink/support/image.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <set>

namespace dglink {

// Layout (all integers little-endian, every offset from the start of the file):
//   header           48 bytes, at 0
//   image records    64 bytes each, right after the header
//   entry tables     uint32 string references, one table per image
//   set records      16 bytes each, one table per image
//   property records 24 bytes each, one table per set
//   data             binaries and property values, each aligned to 8
//   string table     NUL-terminated strings; a string reference is an offset into it
namespace {

constexpr size_t HeaderSize = 48;
constexpr size_t ImageRecordSize = 64;
constexpr size_t EntryRecordSize = 4;
constexpr size_t SetRecordSize = 16;
constexpr size_t PropertyRecordSize = 24;
// pi_device_binaries_struct counts its images in 16 bits.
constexpr uint64_t MaxImages = std::numeric_limits<uint16_t>::max();

void putLittleEndian(std::vector<uint8_t> &Out, size_t At, uint64_t Value, size_t Count) {
  for (size_t I = 0; I < Count; ++I)
    Out[At + I] = static_cast<uint8_t>(Value >> (8 * I));
}

uint64_t getLittleEndian(const uint8_t *Bytes, size_t Count) {
  uint64_t Value = 0;
  for (size_t I = 0; I < Count; ++I)
    Value |= static_cast<uint64_t>(Bytes[I]) << (8 * I);
  return Value;
}

size_t alignTo8(size_t Value) { return (Value + 7) & ~size_t(7); }

// Collects the string table, one copy per distinct string.
class StringTableBuilder {
public:
  uint32_t add(const std::string &Text) {
    auto [It, Inserted] = Offsets.emplace(Text, static_cast<uint32_t>(Table.size()));
    if (Inserted) {
      Table.insert(Table.end(), Text.begin(), Text.end());
      Table.push_back('\0');
    }
    return It->second;
  }
  const std::vector<uint8_t> &bytes() const { return Table; }

private:
  std::map<std::string, uint32_t> Offsets;
  std::vector<uint8_t> Table;
};

bool knownFormat(uint64_t Format) {
  return Format == PI_DEVICE_BINARY_TYPE_NONE || Format == PI_DEVICE_BINARY_TYPE_NATIVE ||
         Format == PI_DEVICE_BINARY_TYPE_SPIRV || Format == PI_DEVICE_BINARY_TYPE_LLVMIR_BITCODE;
}

// Reads a bundle whose bytes are untrusted: every access goes through a checked range.
class BundleReader {
public:
  BundleReader(const uint8_t *Bytes, size_t Length) : Data(Bytes), Size(Length) {}

  pi_result read(Bundle &Out) {
    if (Data == nullptr && Size != 0)
      return fail(PI_ERROR_INVALID_VALUE, "bundle: {} bytes but the data pointer is null", Size);
    if (Size < HeaderSize)
      return fail(PI_ERROR_INVALID_BINARY, "bundle: {} bytes is shorter than the {}-byte header",
                  Size, HeaderSize);
    if (std::memcmp(Data, BundleMagic, sizeof(BundleMagic)) != 0)
      return fail(PI_ERROR_INVALID_BINARY, "bundle: wrong magic (not a dglink bundle)");
    const uint64_t Version = u32(8);
    if (Version != BundleVersion)
      return fail(PI_ERROR_INVALID_BINARY,
                  "bundle: version {} is not supported (this reader "
                  "reads version {})",
                  Version, BundleVersion);
    if (u32(12) != 0 || u32(20) != 0)
      return fail(PI_ERROR_INVALID_BINARY, "bundle header: reserved fields are not zero");
    const uint64_t ImageCount = u32(16);
    const uint64_t StringsOffset = u64(24);
    const uint64_t StringsSize = u64(32);
    const uint64_t FileSize = u64(40);
    if (FileSize != Size)
      return fail(PI_ERROR_INVALID_BINARY,
                  "bundle header: file size field says {} bytes but {} were given (truncated?)",
                  FileSize, Size);
    DGLINK_TRY(checkRange("bundle header: string table", StringsOffset, StringsSize));
    if (StringsSize > std::numeric_limits<uint32_t>::max())
      return fail(PI_ERROR_INVALID_BINARY, "bundle header: string table of {} bytes is too large",
                  StringsSize);
    Strings = Data + StringsOffset;
    StringsLength = StringsSize;
    if (ImageCount > MaxImages)
      return fail(PI_ERROR_INVALID_BINARY, "bundle header: {} images, at most {} are allowed",
                  ImageCount, MaxImages);
    DGLINK_TRY(checkTable("bundle header: image table", HeaderSize, ImageCount, ImageRecordSize));

    Bundle Result;
    Result.Images.resize(ImageCount);
    for (uint64_t I = 0; I < ImageCount; ++I)
      DGLINK_TRY(readImage(I, HeaderSize + I * ImageRecordSize, Result.Images[I]));
    Out = std::move(Result);
    return PI_SUCCESS;
  }

private:
  uint64_t u32(uint64_t At) const { return getLittleEndian(Data + At, 4); }
  uint64_t u64(uint64_t At) const { return getLittleEndian(Data + At, 8); }

  pi_result checkRange(const std::string &What, uint64_t Offset, uint64_t Length) const {
    if (Offset > Size || Length > Size - Offset)
      return fail(PI_ERROR_INVALID_BINARY,
                  "{}: {} bytes at offset {} run past the end of the {}-byte bundle", What, Length,
                  Offset, Size);
    return PI_SUCCESS;
  }

  // Counts are checked against the bytes left before anything is allocated for them.
  pi_result checkTable(const std::string &What, uint64_t Offset, uint64_t Count,
                       uint64_t RecordSize) const {
    if (Offset > Size || Count > (Size - Offset) / RecordSize)
      return fail(PI_ERROR_INVALID_BINARY,
                  "{}: {} records of {} bytes at offset {} do not fit in the {}-byte bundle", What,
                  Count, RecordSize, Offset, Size);
    return PI_SUCCESS;
  }

  pi_result readString(const std::string &What, uint64_t Reference, std::string &Out) const {
    if (Reference >= StringsLength)
      return fail(PI_ERROR_INVALID_BINARY,
                  "{}: string reference {} is outside the {}-byte string table", What, Reference,
                  StringsLength);
    const auto *Begin = reinterpret_cast<const char *>(Strings + Reference);
    const void *Nul = std::memchr(Begin, '\0', StringsLength - Reference);
    if (Nul == nullptr)
      return fail(PI_ERROR_INVALID_BINARY,
                  "{}: string at {} is not NUL-terminated within the string table", What,
                  Reference);
    Out.assign(Begin, static_cast<const char *>(Nul));
    return PI_SUCCESS;
  }

  pi_result readImage(uint64_t Index, uint64_t At, BundleImage &Image) const {
    const std::string Where = formatText("image {}", Index);
    DGLINK_TRY(readString(Where + ": name", u32(At), Image.Name));
    const std::string Named = formatText("image {} ('{}')", Index, Image.Name);
    DGLINK_TRY(readString(Named + ": target", u32(At + 4), Image.Target));
    DGLINK_TRY(readString(Named + ": compile options", u32(At + 8), Image.CompileOptions));
    DGLINK_TRY(readString(Named + ": link options", u32(At + 12), Image.LinkOptions));
    if (Image.Target.empty())
      return fail(PI_ERROR_INVALID_BINARY, "{}: empty target", Named);
    const uint64_t Format = u32(At + 16);
    if (!knownFormat(Format))
      return fail(PI_ERROR_INVALID_BINARY, "{}: unknown format {}", Named, Format);
    Image.Format = static_cast<pi_device_binary_format>(Format);
    const uint64_t EntryCount = u32(At + 20);
    const uint64_t BinaryOffset = u64(At + 24);
    const uint64_t BinarySize = u64(At + 32);
    const uint64_t EntriesOffset = u64(At + 40);
    const uint64_t SetsOffset = u64(At + 48);
    const uint64_t SetCount = u32(At + 56);
    if (u32(At + 60) != 0)
      return fail(PI_ERROR_INVALID_BINARY, "{}: reserved field is not zero", Named);

    DGLINK_TRY(checkRange(Named + ": binary", BinaryOffset, BinarySize));
    Image.Binary.assign(Data + BinaryOffset, Data + BinaryOffset + BinarySize);

    DGLINK_TRY(checkTable(Named + ": entry table", EntriesOffset, EntryCount, EntryRecordSize));
    Image.Entries.resize(EntryCount);
    for (uint64_t E = 0; E < EntryCount; ++E) {
      DGLINK_TRY(readString(formatText("{}: entry {}", Named, E),
                            u32(EntriesOffset + E * EntryRecordSize), Image.Entries[E]));
      if (Image.Entries[E].empty())
        return fail(PI_ERROR_INVALID_BINARY, "{}: entry {} has an empty name", Named, E);
    }

    DGLINK_TRY(checkTable(Named + ": property set table", SetsOffset, SetCount, SetRecordSize));
    Image.PropertySets.resize(SetCount);
    std::set<std::string> SetNames;
    for (uint64_t S = 0; S < SetCount; ++S) {
      DGLINK_TRY(readSet(Named, S, SetsOffset + S * SetRecordSize, Image.PropertySets[S]));
      if (!SetNames.insert(Image.PropertySets[S].Name).second)
        return fail(PI_ERROR_INVALID_BINARY, "{}: property set '{}' appears twice", Named,
                    Image.PropertySets[S].Name);
    }
    return PI_SUCCESS;
  }

  pi_result readSet(const std::string &Image, uint64_t Index, uint64_t At,
                    BundlePropertySet &Set) const {
    DGLINK_TRY(readString(formatText("{}: property set {}", Image, Index), u32(At), Set.Name));
    if (Set.Name.empty())
      return fail(PI_ERROR_INVALID_BINARY, "{}: property set {} has an empty name", Image, Index);
    const std::string Named = formatText("{}, property set '{}'", Image, Set.Name);
    const uint64_t Count = u32(At + 4);
    const uint64_t PropertiesOffset = u64(At + 8);
    DGLINK_TRY(checkTable(Named + ": property table", PropertiesOffset, Count, PropertyRecordSize));
    Set.Properties.resize(Count);
    std::set<std::string> Names;
    for (uint64_t P = 0; P < Count; ++P) {
      BundleProperty &Property = Set.Properties[P];
      const uint64_t Record = PropertiesOffset + P * PropertyRecordSize;
      DGLINK_TRY(readString(formatText("{}: property {}", Named, P), u32(Record), Property.Name));
      const std::string Where = formatText("{}, property '{}'", Named, Property.Name);
      if (Property.Name.empty() || !Names.insert(Property.Name).second)
        return fail(PI_ERROR_INVALID_BINARY, "{}: empty or repeated property name", Where);
      const uint64_t Type = u32(Record + 4);
      const uint64_t ValueOffset = u64(Record + 8);
      const uint64_t ValueSize = u64(Record + 16);
      switch (Type) {
      case PI_PROPERTY_TYPE_UINT32:
        if (ValueOffset != 0 || ValueSize > std::numeric_limits<uint32_t>::max())
          return fail(PI_ERROR_INVALID_BINARY,
                      "{}: UINT32 value {} (offset {}) is not a 32-bit value kept in the size",
                      Where, ValueSize, ValueOffset);
        break;
      case PI_PROPERTY_TYPE_BYTE_ARRAY:
      case PI_PROPERTY_TYPE_STRING:
        DGLINK_TRY(checkRange(Where + ": value", ValueOffset, ValueSize));
        Property.Value.assign(Data + ValueOffset, Data + ValueOffset + ValueSize);
        break;
      default:
        return fail(PI_ERROR_INVALID_BINARY, "{}: unknown type {}", Where, Type);
      }
      Property.Type = static_cast<pi_property_type>(Type);
      Property.ValSize = ValueSize;
    }
    return PI_SUCCESS;
  }

  const uint8_t *Data;
  size_t Size;
  const uint8_t *Strings = nullptr;
  uint64_t StringsLength = 0;
};

} // namespace

BundleProperty BundleProperty::uint32(std::string Name, uint32_t Value) {
  BundleProperty Property;
  Property.Name = std::move(Name);
  Property.Type = PI_PROPERTY_TYPE_UINT32;
  Property.ValSize = Value;
  return Property;
}

BundleProperty BundleProperty::string(std::string Name, const std::string &Value) {
  BundleProperty Property;
  Property.Name = std::move(Name);
  Property.Type = PI_PROPERTY_TYPE_STRING;
  Property.Value.assign(Value.begin(), Value.end());
  Property.Value.push_back('\0');
  Property.ValSize = Property.Value.size();
  return Property;
}

BundleProperty BundleProperty::byteArray(std::string Name, const std::vector<uint8_t> &Payload) {
  BundleProperty Property;
  Property.Name = std::move(Name);
  Property.Type = PI_PROPERTY_TYPE_BYTE_ARRAY;
  Property.Value.resize(8);
  putLittleEndian(Property.Value, 0, uint64_t(Payload.size()) * 8, 8);
  Property.Value.insert(Property.Value.end(), Payload.begin(), Payload.end());
  Property.ValSize = Property.Value.size();
  return Property;
}

BundleProperty BundleProperty::deviceGlobal(const DeviceGlobalInfo &Info) {
  BundleProperty Property;
  Property.Name = Info.UniqueId;
  Property.Type = PI_PROPERTY_TYPE_BYTE_ARRAY;
  Property.Value = encodeDeviceGlobalValue(Info);
  Property.ValSize = Property.Value.size();
  return Property;
}

const BundlePropertySet *BundleImage::findSet(const std::string &SetName) const {
  for (const BundlePropertySet &Set : PropertySets)
    if (Set.Name == SetName)
      return &Set;
  return nullptr;
}

std::vector<uint8_t> writeBundle(const Bundle &Input) {
  // First the size of every table, so that data offsets are known while filling them.
  size_t TablesSize = HeaderSize + Input.Images.size() * ImageRecordSize;
  for (const BundleImage &Image : Input.Images) {
    TablesSize +=
        Image.Entries.size() * EntryRecordSize + Image.PropertySets.size() * SetRecordSize;
    for (const BundlePropertySet &Set : Image.PropertySets)
      TablesSize += Set.Properties.size() * PropertyRecordSize;
  }
  std::vector<uint8_t> Out(alignTo8(TablesSize), 0);
  StringTableBuilder Strings;
  size_t Table = HeaderSize + Input.Images.size() * ImageRecordSize;
  auto AppendData = [&Out](const std::vector<uint8_t> &Bytes) {
    Out.resize(alignTo8(Out.size()), 0);
    const size_t At = Out.size();
    Out.insert(Out.end(), Bytes.begin(), Bytes.end());
    return At;
  };

  for (size_t I = 0; I < Input.Images.size(); ++I) {
    const BundleImage &Image = Input.Images[I];
    const size_t Record = HeaderSize + I * ImageRecordSize;
    putLittleEndian(Out, Record, Strings.add(Image.Name), 4);
    putLittleEndian(Out, Record + 4, Strings.add(Image.Target), 4);
    putLittleEndian(Out, Record + 8, Strings.add(Image.CompileOptions), 4);
    putLittleEndian(Out, Record + 12, Strings.add(Image.LinkOptions), 4);
    putLittleEndian(Out, Record + 16, Image.Format, 4);
    putLittleEndian(Out, Record + 20, Image.Entries.size(), 4);
    putLittleEndian(Out, Record + 32, Image.Binary.size(), 8);
    putLittleEndian(Out, Record + 24, AppendData(Image.Binary), 8);

    putLittleEndian(Out, Record + 40, Table, 8);
    for (const std::string &Entry : Image.Entries) {
      putLittleEndian(Out, Table, Strings.add(Entry), 4);
      Table += EntryRecordSize;
    }
    putLittleEndian(Out, Record + 48, Table, 8);
    putLittleEndian(Out, Record + 56, Image.PropertySets.size(), 4);
    size_t SetRecord = Table;
    Table += Image.PropertySets.size() * SetRecordSize;
    for (const BundlePropertySet &Set : Image.PropertySets) {
      putLittleEndian(Out, SetRecord, Strings.add(Set.Name), 4);
      putLittleEndian(Out, SetRecord + 4, Set.Properties.size(), 4);
      putLittleEndian(Out, SetRecord + 8, Table, 8);
      SetRecord += SetRecordSize;
      for (const BundleProperty &Property : Set.Properties) {
        putLittleEndian(Out, Table, Strings.add(Property.Name), 4);
        putLittleEndian(Out, Table + 4, Property.Type, 4);
        if (Property.Type == PI_PROPERTY_TYPE_UINT32) {
          putLittleEndian(Out, Table + 16, Property.ValSize, 8);
        } else {
          putLittleEndian(Out, Table + 16, Property.Value.size(), 8);
          putLittleEndian(Out, Table + 8, AppendData(Property.Value), 8);
        }
        Table += PropertyRecordSize;
      }
    }
  }

  Out.resize(alignTo8(Out.size()), 0);
  const size_t StringsOffset = Out.size();
  Out.insert(Out.end(), Strings.bytes().begin(), Strings.bytes().end());
  std::memcpy(Out.data(), BundleMagic, sizeof(BundleMagic));
  putLittleEndian(Out, 8, BundleVersion, 4);
  putLittleEndian(Out, 16, Input.Images.size(), 4);
  putLittleEndian(Out, 24, StringsOffset, 8);
  putLittleEndian(Out, 32, Strings.bytes().size(), 8);
  putLittleEndian(Out, 40, Out.size(), 8);
  return Out;
}

pi_result readBundle(const uint8_t *Data, size_t Size, Bundle &Out) {
  Bundle Result;
  DGLINK_TRY(BundleReader(Data, Size).read(Result));
  // The sets the adapters decode must decode here too: a bundle that the reader
  // accepts never fails later in an adapter.
  DeviceBinaries View(Result);
  for (size_t I = 0; I < View.size(); ++I) {
    ImageMetadata Metadata;
    if (readImageMetadata(View.image(I), Metadata) != PI_SUCCESS)
      return fail(PI_ERROR_INVALID_BINARY, "image {} ('{}'): {}", I, Result.Images[I].Name,
                  lastErrorMessage());
  }
  Out = std::move(Result);
  return PI_SUCCESS;
}

pi_result readBundleFile(const std::string &Path, Bundle &Out) {
  std::ifstream File(Path, std::ios::binary);
  if (!File)
    return fail(PI_ERROR_INVALID_VALUE, "cannot open bundle '{}'", Path);
  const std::vector<uint8_t> Bytes((std::istreambuf_iterator<char>(File)),
                                   std::istreambuf_iterator<char>());
  if (File.bad())
    return fail(PI_ERROR_INVALID_VALUE, "cannot read bundle '{}'", Path);
  if (readBundle(Bytes.data(), Bytes.size(), Out) != PI_SUCCESS)
    return fail(lastErrorCode(), "{}: {}", Path, lastErrorMessage());
  return PI_SUCCESS;
}

pi_result writeBundleFile(const std::string &Path, const Bundle &Input) {
  const std::vector<uint8_t> Bytes = writeBundle(Input);
  std::ofstream File(Path, std::ios::binary | std::ios::trunc);
  File.write(reinterpret_cast<const char *>(Bytes.data()),
             static_cast<std::streamsize>(Bytes.size()));
  File.close();
  if (!File)
    return fail(PI_ERROR_INVALID_VALUE, "cannot write bundle '{}'", Path);
  return PI_SUCCESS;
}

DeviceBinaries::DeviceBinaries(const Bundle &Input) : Storage(Input) {
  // Every vector is sized before pointers into it are taken.
  const size_t Count = Storage.Images.size();
  Entries.resize(Count);
  Properties.resize(Count);
  Sets.resize(Count);
  Images.resize(Count);
  auto Text = [](const std::string &S) { return const_cast<char *>(S.c_str()); };
  for (size_t I = 0; I < Count; ++I) {
    BundleImage &Image = Storage.Images[I];
    for (std::string &Entry : Image.Entries)
      Entries[I].push_back({nullptr, Text(Entry), 0, 0, 0});
    size_t PropertyCount = 0;
    for (const BundlePropertySet &Set : Image.PropertySets)
      PropertyCount += Set.Properties.size();
    Properties[I].reserve(PropertyCount);
    for (BundlePropertySet &Set : Image.PropertySets) {
      _pi_device_binary_property_struct *Begin = Properties[I].data() + Properties[I].size();
      for (BundleProperty &Property : Set.Properties)
        Properties[I].push_back({Text(Property.Name),
                                 Property.Value.empty() ? nullptr : Property.Value.data(),
                                 static_cast<pi_uint32>(Property.Type), Property.ValSize});
      Sets[I].push_back({Text(Set.Name), Begin, Begin + Set.Properties.size()});
    }
    _pi_device_binary_struct &Binary = Images[I];
    Binary.Version = PI_DEVICE_BINARY_VERSION;
    Binary.Kind = PI_DEVICE_BINARY_OFFLOAD_KIND_SYCL;
    Binary.Format = static_cast<uint8_t>(Image.Format);
    Binary.DeviceTargetSpec = Image.Target.c_str();
    Binary.CompileOptions = Image.CompileOptions.c_str();
    Binary.LinkOptions = Image.LinkOptions.c_str();
    Binary.ManifestStart = nullptr;
    Binary.ManifestEnd = nullptr;
    Binary.BinaryStart = Image.Binary.data();
    Binary.BinaryEnd = Image.Binary.data() + Image.Binary.size();
    Binary.EntriesBegin = Entries[I].data();
    Binary.EntriesEnd = Entries[I].data() + Entries[I].size();
    Binary.PropertySetsBegin = Sets[I].data();
    Binary.PropertySetsEnd = Sets[I].data() + Sets[I].size();
  }
  Descriptor.Version = PI_DEVICE_BINARIES_VERSION;
  Descriptor.NumDeviceBinaries = static_cast<uint16_t>(Count);
  Descriptor.DeviceBinaries = Images.data();
  Descriptor.HostEntriesBegin = nullptr;
  Descriptor.HostEntriesEnd = nullptr;
}

const char *binaryFormatName(pi_device_binary_format Format) {
  switch (Format) {
  case PI_DEVICE_BINARY_TYPE_NATIVE:
    return "native";
  case PI_DEVICE_BINARY_TYPE_SPIRV:
    return "SPIR-V";
  case PI_DEVICE_BINARY_TYPE_LLVMIR_BITCODE:
    return "LLVM bitcode";
  case PI_DEVICE_BINARY_TYPE_NONE:
    break;
  }
  return "none";
}

} // namespace dglink
