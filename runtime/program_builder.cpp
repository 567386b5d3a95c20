// Building collected images: compile + link, or a plain build.
#include "program_builder.h"

#include <algorithm>
#include <cstring>
#include <deque>
#include <string>

namespace dglink::runtime::detail {

namespace {

std::string lastError(const pi_plugin_functions &Table) {
  char *Message = nullptr;
  if (Table.piPluginGetLastError(&Message) >= 0 && Message != nullptr)
    return Message;
  return "";
}

std::string buildLog(const pi_plugin_functions &Table, pi_program Program, pi_device Device) {
  size_t Size = 0;
  if (Program == nullptr ||
      Table.piProgramGetBuildInfo(Program, Device, PI_PROGRAM_BUILD_INFO_LOG, 0, nullptr, &Size) !=
          PI_SUCCESS ||
      Size == 0)
    return "";
  std::string Log(Size, '\0');
  if (Table.piProgramGetBuildInfo(Program, Device, PI_PROGRAM_BUILD_INFO_LOG, Size, Log.data(),
                                  nullptr) != PI_SUCCESS)
    return "";
  Log.resize(std::min(Log.size(), Log.find('\0')));
  return Log;
}

// Releases every program it holds when it goes.
struct Programs {
  const pi_plugin_functions &Table;
  std::vector<pi_program> Handles;
  ~Programs() {
    for (pi_program Program : Handles)
      Table.piProgramRelease(Program);
  }
};

Status failure(const pi_plugin_functions &Table, pi_result Code, const std::string &What,
               pi_program Program, pi_device Device) {
  std::string Message = What + " failed (" + std::to_string(Code) + "): " + lastError(Table);
  const std::string Log = buildLog(Table, Program, Device);
  if (!Log.empty())
    Message += "\nbuild log:\n" + Log;
  return {Code, Message};
}

} // namespace

Expected<BuiltHandle> buildProgram(const pi_plugin_functions &Table, pi_context Context,
                                   pi_device Device, const CollectedImages &Images,
                                   const std::string &Options) {
  Programs Inputs{Table, {}};
  const bool Link = Images.Images.size() > 1 || !Images.Images.front()->Info.Imports.empty();
  for (const RegisteredImage *Image : Images.Images) {
    pi_program Program = nullptr;
    if (const pi_result Result =
            Table.piextProgramCreateWithImage(Context, 1, &Device, Image->Binary, &Program);
        Result != PI_SUCCESS)
      return failure(Table, Result, "piextProgramCreateWithImage of " + Image->Info.Name, nullptr,
                     Device);
    Inputs.Handles.push_back(Program);
    if (!Link)
      break;
    if (const pi_result Result = Table.piProgramCompile(Program, 1, &Device, Options.c_str(), 0,
                                                        nullptr, nullptr, nullptr, nullptr);
        Result != PI_SUCCESS)
      return failure(Table, Result, "piProgramCompile of " + Image->Info.Name, Program, Device);
  }
  BuiltHandle Built;
  if (!Link) {
    pi_program Program = Inputs.Handles.front();
    if (const pi_result Result =
            Table.piProgramBuild(Program, 1, &Device, Options.c_str(), nullptr, nullptr);
        Result != PI_SUCCESS)
      return failure(Table, Result, "piProgramBuild of " + Images.Images.front()->Info.Name,
                     Program, Device);
    Inputs.Handles.clear();
    Built.Program = Program;
    return Built;
  }
  pi_program Linked = nullptr;
  const pi_result Result = Table.piProgramLink(Context, 1, &Device, Options.c_str(),
                                               static_cast<pi_uint32>(Inputs.Handles.size()),
                                               Inputs.Handles.data(), nullptr, nullptr, &Linked);
  if (Result != PI_SUCCESS) {
    Status Failed = failure(Table, Result,
                            "piProgramLink of " + std::to_string(Inputs.Handles.size()) + " images",
                            Linked, Device);
    if (Linked != nullptr)
      Table.piProgramRelease(Linked);
    return Failed;
  }
  Built.Program = Linked;
  Built.Linked = true;
  return Built;
}

std::vector<uint8_t> programBinary(const pi_plugin_functions &Table, pi_program Program) {
  size_t Size = 0;
  size_t Returned = 0;
  if (Table.piProgramGetInfo(Program, PI_PROGRAM_INFO_BINARY_SIZES, sizeof(Size), &Size,
                             &Returned) != PI_SUCCESS ||
      Returned != sizeof(Size) || Size == 0)
    return {};
  std::vector<uint8_t> Binary(Size);
  unsigned char *Destination = Binary.data();
  if (Table.piProgramGetInfo(Program, PI_PROGRAM_INFO_BINARIES, sizeof(Destination), &Destination,
                             nullptr) != PI_SUCCESS)
    return {};
  return Binary;
}

namespace {

// One image standing for the images a cached binary was built from: the binary as a
// native image of their target, every kernel that takes the lowered storage as an
// entry, and the union of their property sets (imports left out: the binary has them
// resolved). It borrows the registered images' properties; the one value it makes is
// the storage size, the largest of the lowered images (docs/runtime.md).
class MergedImage {
public:
  MergedImage(const std::vector<uint8_t> &Binary, const CollectedImages &Images) {
    const _pi_device_binary_struct &First = *Images.Images.front()->Binary;
    uint64_t StorageSize = 0;
    for (const RegisteredImage *Image : Images.Images) {
      const bool Lowered = Image->Info.Lowered;
      if (Lowered)
        for (const std::string &Entry : Image->Info.Entries)
          addEntry(Entry);
      for (auto *Set = Image->Binary->PropertySetsBegin; Set != Image->Binary->PropertySetsEnd;
           ++Set) {
        if (Set->Name == nullptr || std::string(Set->Name) == PI_PROPERTY_SET_IMPORTED_SYMBOLS)
          continue;
        std::vector<_pi_device_binary_property_struct> &Kept = setNamed(Set->Name);
        for (auto *Property = Set->PropertiesBegin; Property != Set->PropertiesEnd; ++Property) {
          if (Property->Name == nullptr)
            continue;
          auto Same = std::find_if(Kept.begin(), Kept.end(), [&](const auto &Known) {
            return std::strcmp(Known.Name, Property->Name) == 0;
          });
          if (Same == Kept.end()) {
            Kept.push_back(*Property);
            Same = Kept.end() - 1;
          }
          // The storage of the linked program is as large as the largest lowered image's.
          if (std::strcmp(Set->Name, PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_STORAGE) == 0 &&
              std::strcmp(Property->Name, "size") == 0) {
            const uint64_t Size = storageSize(*Property);
            if (Size > StorageSize) {
              StorageSize = Size;
              *Same = *Property;
            }
          }
        }
      }
    }
    for (auto &[Name, Properties] : Sets) {
      _pi_device_binary_property_set_struct Set{};
      Set.Name = const_cast<char *>(Name.c_str());
      Set.PropertiesBegin = Properties.data();
      Set.PropertiesEnd = Properties.data() + Properties.size();
      SetList.push_back(Set);
    }
    Merged.Version = PI_DEVICE_BINARY_VERSION;
    Merged.Kind = PI_DEVICE_BINARY_OFFLOAD_KIND_SYCL;
    Merged.Format = PI_DEVICE_BINARY_TYPE_NATIVE;
    Merged.DeviceTargetSpec = First.DeviceTargetSpec;
    Merged.BinaryStart = Binary.data();
    Merged.BinaryEnd = Binary.data() + Binary.size();
    Merged.EntriesBegin = Entries.data();
    Merged.EntriesEnd = Entries.data() + Entries.size();
    Merged.PropertySetsBegin = SetList.data();
    Merged.PropertySetsEnd = SetList.data() + SetList.size();
  }
  MergedImage(const MergedImage &) = delete;
  MergedImage &operator=(const MergedImage &) = delete;

  const _pi_device_binary_struct *get() const { return &Merged; }

private:
  // A byte-array property's value after its 8-byte size header, as a little-endian
  // uint64; 0 when it is not one.
  static uint64_t storageSize(const _pi_device_binary_property_struct &Property) {
    if (Property.ValAddr == nullptr || Property.ValSize != 16)
      return 0;
    const auto *Bytes = static_cast<const uint8_t *>(Property.ValAddr) + 8;
    uint64_t Value = 0;
    for (int I = 7; I >= 0; --I)
      Value = (Value << 8) | Bytes[I];
    return Value;
  }

  std::vector<_pi_device_binary_property_struct> &setNamed(const char *Name) {
    for (auto &[Kept, Properties] : Sets)
      if (Kept == Name)
        return Properties;
    Sets.emplace_back(Name, std::vector<_pi_device_binary_property_struct>{});
    return Sets.back().second;
  }

  void addEntry(const std::string &Name) {
    for (const std::string &Kept : EntryNames)
      if (Kept == Name)
        return;
    EntryNames.push_back(Name);
    _pi_offload_entry_struct Entry{};
    Entry.name = const_cast<char *>(EntryNames.back().c_str());
    Entries.push_back(Entry);
  }

  std::deque<std::pair<std::string, std::vector<_pi_device_binary_property_struct>>> Sets;
  std::vector<_pi_device_binary_property_set_struct> SetList;
  std::deque<std::string> EntryNames;
  std::vector<_pi_offload_entry_struct> Entries;
  _pi_device_binary_struct Merged{};
};

} // namespace

Expected<BuiltHandle> buildFromBinary(const pi_plugin_functions &Table, pi_context Context,
                                      pi_device Device, const std::vector<uint8_t> &Binary,
                                      const CollectedImages &Images, const std::string &Options) {
  const MergedImage Merged(Binary, Images);
  pi_program Program = nullptr;
  if (const pi_result Result =
          Table.piextProgramCreateWithImage(Context, 1, &Device, Merged.get(), &Program);
      Result != PI_SUCCESS)
    return failure(Table, Result, "piextProgramCreateWithImage of a cached binary", nullptr,
                   Device);
  Programs Owned{Table, {Program}};
  if (const pi_result Result =
          Table.piProgramBuild(Program, 1, &Device, Options.c_str(), nullptr, nullptr);
      Result != PI_SUCCESS)
    return failure(Table, Result, "piProgramBuild of a cached binary", Program, Device);
  Owned.Handles.clear();
  BuiltHandle Built;
  Built.Program = Program;
  return Built;
}

} // namespace dglink::runtime::detail
