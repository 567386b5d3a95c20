// The image registry: modules from bundles or borrowed images, their index, and the
// snapshots lookups read.
#include "registry.h"

#include <dglink/support/device_code.h>
#include <dglink/support/error.h>
#include <dglink/support/image.h>

#include <algorithm>
#include <cstring>
#include <utility>

namespace dglink::runtime::detail {

namespace {

bool hasSet(const _pi_device_binary_struct &Binary, const char *Name) {
  for (auto *Set = Binary.PropertySetsBegin; Set != Binary.PropertySetsEnd; ++Set)
    if (Set->Name != nullptr && std::strcmp(Set->Name, Name) == 0)
      return true;
  return false;
}

// A list of uint32 aspect values (SYCL/device requirements "aspects", DGLINK/kernel
// aspects); "" or what is wrong with it.
std::string decodeAspects(const std::vector<uint8_t> &Bytes, std::vector<uint32_t> &Out) {
  if (Bytes.size() % 4 != 0)
    return "is " + std::to_string(Bytes.size()) + " bytes, not a list of uint32 aspects";
  for (size_t I = 0; I < Bytes.size(); I += 4)
    Out.push_back(uint32_t(Bytes[I]) | uint32_t(Bytes[I + 1]) << 8 | uint32_t(Bytes[I + 2]) << 16 |
                  uint32_t(Bytes[I + 3]) << 24);
  return "";
}

// The virtual-function sets and aspects of an image into Info; "" or what is wrong.
std::string readVirtualFunctions(const ImageMetadata &Metadata, ImageInfo &Info) {
  auto text = [](const std::vector<uint8_t> &Bytes) {
    return std::string(Bytes.begin(), Bytes.end());
  };
  if (auto Set = Metadata.RawSets.find(PI_PROPERTY_SET_VIRTUAL_FUNCTIONS);
      Set != Metadata.RawSets.end()) {
    for (const auto &[Name, Value] : Set->second) {
      if (Name == "virtual-functions-set") {
        Info.VirtualFunctionSet = text(Value);
        if (Info.VirtualFunctionSet.empty())
          return "property set '" PI_PROPERTY_SET_VIRTUAL_FUNCTIONS
                 "', property 'virtual-functions-set' is empty";
        if (Info.VirtualFunctionSet.find(',') != std::string::npos)
          return std::string("property set '" PI_PROPERTY_SET_VIRTUAL_FUNCTIONS
                             "', property 'virtual-functions-set' ('")
              .append(Info.VirtualFunctionSet)
              .append("') names more than one set: an image provides one");
      } else if (Name == "dummy-image") {
        Info.DummyImage = std::any_of(Value.begin(), Value.end(), [](uint8_t B) { return B != 0; });
      } else if (Name == "uses-virtual-functions-set") {
        const std::string Sets = text(Value);
        size_t Start = 0;
        while (Start <= Sets.size()) {
          const size_t Comma = std::min(Sets.find(',', Start), Sets.size());
          if (Comma == Start)
            return std::string("property set '" PI_PROPERTY_SET_VIRTUAL_FUNCTIONS
                               "', property 'uses-virtual-functions-set' ('")
                .append(Sets)
                .append("') lists an empty set name");
          Info.UsesVirtualFunctionSets.push_back(Sets.substr(Start, Comma - Start));
          Start = Comma + 1;
        }
      }
    }
    if (Info.DummyImage && Info.VirtualFunctionSet.empty())
      return "property set '" PI_PROPERTY_SET_VIRTUAL_FUNCTIONS
             "' has 'dummy-image' without 'virtual-functions-set'";
  }
  if (auto Set = Metadata.RawSets.find("SYCL/device requirements"); Set != Metadata.RawSets.end())
    if (auto Aspects = Set->second.find("aspects"); Aspects != Set->second.end())
      if (std::string Problem = decodeAspects(Aspects->second, Info.Aspects); !Problem.empty())
        return "property set 'SYCL/device requirements', property 'aspects' " + Problem;
  if (auto Set = Metadata.RawSets.find("DGLINK/kernel aspects"); Set != Metadata.RawSets.end())
    for (const auto &[Kernel, Value] : Set->second)
      if (std::string Problem = decodeAspects(Value, Info.KernelAspects[Kernel]); !Problem.empty())
        return std::string("property set 'DGLINK/kernel aspects', property '")
            .append(Kernel)
            .append("' ")
            .append(Problem);
  return "";
}

// Indexes one validated image. ImageName is what the bundle calls it ("" if nothing).
RegisteredImage indexImage(const _pi_device_binary_struct &Binary, ImageMetadata &&Metadata,
                           const std::string &ModuleName, size_t Index,
                           const std::string &ImageName, std::string &Problem) {
  RegisteredImage Image;
  Image.Binary = &Binary;
  ImageInfo &Info = Image.Info;
  Info.Index = Index;
  Info.Name = ModuleName + "#" + std::to_string(Index);
  if (!ImageName.empty())
    Info.Name += " (" + ImageName + ")";
  Info.Target = Binary.DeviceTargetSpec;
  Info.Format = static_cast<pi_device_binary_format>(Binary.Format);
  Info.LinkFormat = linkFormatOf(Info.Target, Info.Format);
  Info.Lowered = hasSet(Binary, PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_STORAGE);
  for (auto *Entry = Binary.EntriesBegin; Entry != Binary.EntriesEnd; ++Entry)
    Info.Entries.emplace_back(Entry->name);
  Info.Exports = std::move(Metadata.Exported);
  Info.Imports = std::move(Metadata.Imported);
  for (const auto &Global : Metadata.DeviceGlobals)
    Info.DeviceGlobals.push_back(Global.first);
  Problem = readVirtualFunctions(Metadata, Info);
  Image.Globals = std::move(Metadata.DeviceGlobals);
  std::vector<std::string> Defined = Info.Entries;
  Defined.insert(Defined.end(), Info.Exports.begin(), Info.Exports.end());
  std::sort(Defined.begin(), Defined.end());
  for (const std::string &Symbol : Defined)
    Image.DefinedSymbols += Symbol + '\n';
  return Image;
}

// What makes a borrowed image unusable before its properties are read, or "".
std::string checkBinary(const _pi_device_binary_struct &Binary) {
  if (Binary.DeviceTargetSpec == nullptr)
    return "its target (DeviceTargetSpec) is null";
  if (Binary.BinaryStart == nullptr || Binary.BinaryEnd <= Binary.BinaryStart)
    return "its binary range is empty or invalid";
  if ((Binary.EntriesBegin == nullptr) != (Binary.EntriesEnd == nullptr) ||
      Binary.EntriesEnd < Binary.EntriesBegin)
    return "its entry range is invalid";
  for (auto *Entry = Binary.EntriesBegin; Entry != Binary.EntriesEnd; ++Entry)
    if (Entry->name == nullptr)
      return "entry " + std::to_string(Entry - Binary.EntriesBegin) + " has no name";
  if ((Binary.PropertySetsBegin == nullptr) != (Binary.PropertySetsEnd == nullptr) ||
      Binary.PropertySetsEnd < Binary.PropertySetsBegin)
    return "its property-set range is invalid";
  return "";
}

std::string imageProblem(const std::string &Module, size_t Index, const std::string &Problem) {
  std::string Message = "registerDeviceBinaries: ";
  Message += Module;
  Message += " image ";
  Message += std::to_string(Index);
  Message += ": ";
  Message += Problem;
  return Message;
}

} // namespace

std::string linkFormatOf(const std::string &Target, pi_device_binary_format Format) {
  // An image of a kind no device takes keeps its target as its name, which no device lists.
  const DeviceCode Code = deviceCodeOf(Target, Format);
  return Code == DeviceCode::Unknown ? Target : deviceCodeName(Code);
}

const Module *RegistrySnapshot::find(ModuleId Id) const {
  for (const auto &Candidate : Modules)
    if (Candidate->Id == Id)
      return Candidate.get();
  return nullptr;
}

ImageRegistry::ImageRegistry() : Current(std::make_shared<RegistrySnapshot>()) {}

ModuleId ImageRegistry::add(std::shared_ptr<Module> Image) {
  std::lock_guard<std::mutex> Lock(WriterMutex);
  const ModuleId Id = NextId++;
  Image->Id = Id;
  for (RegisteredImage &Registered : Image->Images)
    Registered.Info.Module = Id;
  std::vector<std::shared_ptr<const Module>> Modules = snapshot()->Modules;
  Modules.push_back(std::move(Image));
  publish(std::move(Modules));
  return Id;
}

std::shared_ptr<const Module> ImageRegistry::remove(ModuleId Id) {
  std::lock_guard<std::mutex> Lock(WriterMutex);
  std::vector<std::shared_ptr<const Module>> Modules = snapshot()->Modules;
  auto It = std::find_if(Modules.begin(), Modules.end(),
                         [Id](const std::shared_ptr<const Module> &M) { return M->Id == Id; });
  if (It == Modules.end())
    return nullptr;
  std::shared_ptr<const Module> Removed = *It;
  Removed->Registered.store(false);
  Modules.erase(It);
  publish(std::move(Modules));
  return Removed;
}

std::shared_ptr<const RegistrySnapshot> ImageRegistry::snapshot() const {
  std::lock_guard<std::mutex> Lock(Mutex);
  return Current;
}

void ImageRegistry::publish(std::vector<std::shared_ptr<const Module>> Modules) {
  auto Next = std::make_shared<RegistrySnapshot>();
  Next->Modules = std::move(Modules);
  for (const auto &M : Next->Modules)
    for (const RegisteredImage &Image : M->Images) {
      for (const std::string &Entry : Image.Info.Entries)
        Next->ByEntry[Entry].push_back(&Image);
      for (const std::string &Export : Image.Info.Exports)
        Next->ByExport[Export].push_back(&Image);
      if (!Image.Info.VirtualFunctionSet.empty())
        Next->BySet[Image.Info.VirtualFunctionSet].push_back(&Image);
      for (const std::string &Set : Image.Info.UsesVirtualFunctionSets)
        Next->ByUsedSet[Set].push_back(&Image);
    }
  // Readers wait only for this swap, not for the indexing above.
  std::shared_ptr<const RegistrySnapshot> Old;
  std::lock_guard<std::mutex> Lock(Mutex);
  Old = std::exchange(Current, std::move(Next));
}

Expected<std::shared_ptr<Module>> moduleFromBundle(const Bundle &Input, const std::string &Name) {
  auto Result = std::make_shared<Module>();
  Result->Name = Name;
  Result->Owned = std::make_unique<DeviceBinaries>(Input);
  for (size_t I = 0; I < Result->Owned->size(); ++I) {
    const _pi_device_binary_struct &Binary = Result->Owned->image(I);
    ImageMetadata Metadata;
    readImageMetadata(Binary, Metadata); // the bundle reader decoded these sets already
    std::string Problem;
    Result->Images.push_back(
        indexImage(Binary, std::move(Metadata), Name, I, Input.Images[I].Name, Problem));
    if (!Problem.empty()) {
      std::string Message = Name;
      Message += ": image ";
      Message += std::to_string(I);
      Message += " ('";
      Message += Input.Images[I].Name;
      Message += "'): ";
      Message += Problem;
      return Status{PI_ERROR_INVALID_BINARY, std::move(Message)};
    }
  }
  return Result;
}

Expected<std::shared_ptr<Module>> moduleFromBinaries(pi_device_binaries Binaries,
                                                     const std::string &Name) {
  if (Binaries == nullptr)
    return Status{PI_ERROR_INVALID_VALUE, "registerDeviceBinaries: argument 'Binaries' is null"};
  if (Binaries->NumDeviceBinaries != 0 && Binaries->DeviceBinaries == nullptr)
    return Status{PI_ERROR_INVALID_BINARY, "registerDeviceBinaries: " + Name + ": " +
                                               std::to_string(Binaries->NumDeviceBinaries) +
                                               " images but DeviceBinaries is null"};
  auto Result = std::make_shared<Module>();
  Result->Name = Name;
  for (size_t I = 0; I < Binaries->NumDeviceBinaries; ++I) {
    const _pi_device_binary_struct &Binary = Binaries->DeviceBinaries[I];
    std::string Problem = checkBinary(Binary);
    ImageMetadata Metadata;
    if (Problem.empty() && readImageMetadata(Binary, Metadata) != PI_SUCCESS)
      Problem = lastErrorMessage();
    if (!Problem.empty())
      return Status{PI_ERROR_INVALID_BINARY, imageProblem(Name, I, Problem)};
    Result->Images.push_back(indexImage(Binary, std::move(Metadata), Name, I, "", Problem));
    if (!Problem.empty())
      return Status{PI_ERROR_INVALID_BINARY, imageProblem(Name, I, Problem)};
  }
  return Result;
}

} // namespace dglink::runtime::detail
