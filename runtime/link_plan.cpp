// Device-image collection: which images a kernel needs on a device.
#include "link_plan.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <sstream>
#include <utility>

namespace dglink::runtime::detail {

namespace {

std::vector<std::string> words(const std::string &Text) {
  std::istringstream Stream(Text);
  std::vector<std::string> Result;
  for (std::string Word; Stream >> Word;)
    Result.push_back(Word);
  return Result;
}

std::string join(const std::vector<std::string> &Items, const char *Separator) {
  std::string Text;
  for (const std::string &Item : Items)
    Text += (Text.empty() ? "" : Separator) + Item;
  return Text;
}

std::string lastError(const pi_plugin_functions &Table) {
  char *Message = nullptr;
  if (Table.piPluginGetLastError != nullptr && Table.piPluginGetLastError(&Message) >= 0 &&
      Message != nullptr)
    return Message;
  return "";
}

Status queryString(const pi_plugin_functions &Table, pi_device Device, pi_device_info Name,
                   const char *What, std::string &Out) {
  size_t Size = 0;
  pi_result Result = Table.piDeviceGetInfo(Device, Name, 0, nullptr, &Size);
  std::string Value(Size, '\0');
  if (Result == PI_SUCCESS && Size != 0)
    Result = Table.piDeviceGetInfo(Device, Name, Size, Value.data(), nullptr);
  if (Result != PI_SUCCESS)
    return {Result, std::string("piDeviceGetInfo(") + What + ") failed: " + lastError(Table)};
  Value.resize(std::min(Value.size(), Value.find('\0')));
  Out = std::move(Value);
  return {};
}

// The first image of Candidates in Format that Traits allows (lowered ones first on a
// device that takes them), skipping those already chosen; Preferred's images first.
const RegisteredImage *pick(const std::vector<const RegisteredImage *> &Candidates,
                            const std::string &Format, const DeviceTraits &Traits,
                            const std::vector<const RegisteredImage *> &Chosen,
                            ModuleId Preferred = 0) {
  const bool LoweredPasses[] = {true, false};
  for (const bool Lowered : LoweredPasses) {
    if (Lowered && !Traits.TakesLoweredImages)
      continue;
    for (const bool InPreferred : {true, false}) {
      if (InPreferred && Preferred == 0)
        continue;
      for (const RegisteredImage *Image : Candidates)
        if (Image->Info.LinkFormat == Format && Image->Info.Lowered == Lowered &&
            (!InPreferred || Image->Info.Module == Preferred) &&
            std::find(Chosen.begin(), Chosen.end(), Image) == Chosen.end())
          return Image;
    }
  }
  return nullptr;
}

} // namespace

Expected<DeviceTraits> queryDeviceTraits(const pi_plugin_functions &Table, pi_device Device) {
  DeviceTraits Traits;
  std::string Links;
  std::string Images;
  for (const Status &Queried :
       {queryString(Table, Device, PI_EXT_DEVICE_INFO_BACKEND_NAME,
                    "PI_EXT_DEVICE_INFO_BACKEND_NAME", Traits.Backend),
        queryString(Table, Device, PI_DEVICE_INFO_NAME, "PI_DEVICE_INFO_NAME", Traits.Name),
        queryString(Table, Device, PI_DEVICE_INFO_DRIVER_VERSION, "PI_DEVICE_INFO_DRIVER_VERSION",
                    Traits.DriverVersion),
        queryString(Table, Device, PI_EXT_DEVICE_INFO_LINK_FORMATS,
                    "PI_EXT_DEVICE_INFO_LINK_FORMATS", Links),
        queryString(Table, Device, PI_EXT_DEVICE_INFO_IMAGE_FORMATS,
                    "PI_EXT_DEVICE_INFO_IMAGE_FORMATS", Images)})
    if (!Queried.ok())
      return Queried;
  Traits.LinkFormats = words(Links);
  for (const std::string &Format : words(Images))
    if (std::find(Traits.LinkFormats.begin(), Traits.LinkFormats.end(), Format) ==
        Traits.LinkFormats.end())
      Traits.ImageFormats.push_back(Format);
  pi_device_global_mechanism Mechanism = PI_DEVICE_GLOBAL_MECHANISM_NONE;
  if (const pi_result Result =
          Table.piDeviceGetInfo(Device, PI_EXT_DEVICE_INFO_DEVICE_GLOBAL_MECHANISM,
                                sizeof(Mechanism), &Mechanism, nullptr);
      Result != PI_SUCCESS)
    return Status{Result, "piDeviceGetInfo(PI_EXT_DEVICE_INFO_DEVICE_GLOBAL_MECHANISM) failed: " +
                              lastError(Table)};
  Traits.TakesLoweredImages = Mechanism == PI_DEVICE_GLOBAL_MECHANISM_LOWERED;
  if (const pi_result Result = Table.piDeviceGetInfo(Device, PI_EXT_DEVICE_INFO_USM_MECHANISM,
                                                     sizeof(Traits.Usm), &Traits.Usm, nullptr);
      Result != PI_SUCCESS)
    return Status{Result,
                  "piDeviceGetInfo(PI_EXT_DEVICE_INFO_USM_MECHANISM) failed: " + lastError(Table)};
  return Traits;
}

Expected<KernelImage> findKernelImage(const RegistrySnapshot &Registry, const DeviceTraits &Traits,
                                      const std::string &Kernel, ModuleId Preferred) {
  static const std::vector<const RegisteredImage *> None;
  auto Holders = Registry.ByEntry.find(Kernel);
  const std::vector<const RegisteredImage *> &WithKernel =
      Holders == Registry.ByEntry.end() ? None : Holders->second;
  std::vector<std::string> NotLinkable;
  const size_t Count = Traits.LinkFormats.size() + Traits.ImageFormats.size();
  for (size_t I = 0; I < Count; ++I) {
    const bool Linkable = I < Traits.LinkFormats.size();
    const std::string &Format =
        Linkable ? Traits.LinkFormats[I] : Traits.ImageFormats[I - Traits.LinkFormats.size()];
    const RegisteredImage *Candidate = pick(WithKernel, Format, Traits, {}, Preferred);
    if (Candidate == nullptr)
      continue;
    if (!Linkable && !Candidate->Info.Imports.empty()) {
      NotLinkable.push_back(Candidate->Info.Name + " imports symbols, and the device builds " +
                            Format + " but does not link it");
      continue;
    }
    return KernelImage{Candidate, Format, Linkable};
  }
  return Status{PI_ERROR_INVALID_KERNEL_NAME,
                "no registered image has kernel '" + Kernel + "' in a format device '" +
                    Traits.Name + "' takes (links: " + join(Traits.LinkFormats, " ") +
                    "; builds only: " + join(Traits.ImageFormats, " ") + ")" +
                    (NotLinkable.empty() ? "" : "; " + join(NotLinkable, "; "))};
}

Expected<CollectedImages> collectImages(const RegistrySnapshot &Registry,
                                        const DeviceTraits &Traits, const std::string &Kernel,
                                        ModuleId Preferred) {
  Expected<KernelImage> Holder = findKernelImage(Registry, Traits, Kernel, Preferred);
  if (!Holder)
    return Holder.status();
  const RegisteredImage *Main = Holder->Image;
  CollectedImages Result;
  Result.LinkFormat = Holder->LinkFormat;
  Result.Linkable = Holder->Linkable;

  // Resolution: each unresolved import, in the order met, by the first registered image
  // of the same format that exports it; that image's exports resolve what they can and
  // its imports join the queue.
  Result.Images.push_back(Main);
  std::set<std::string> Defined(Main->Info.Exports.begin(), Main->Info.Exports.end());
  std::deque<std::pair<std::string, const RegisteredImage *>> Pending;
  for (const std::string &Import : Main->Info.Imports)
    Pending.emplace_back(Import, Main);
  std::map<std::string, std::vector<std::string>> Missing; // symbol -> importers
  while (!Pending.empty()) {
    auto [Symbol, Importer] = std::move(Pending.front());
    Pending.pop_front();
    if (Defined.count(Symbol) != 0)
      continue;
    auto MissingIt = Missing.find(Symbol);
    if (MissingIt != Missing.end()) {
      MissingIt->second.push_back(Importer->Info.Name);
      continue;
    }
    auto Exporters = Registry.ByExport.find(Symbol);
    const RegisteredImage *Found =
        Exporters == Registry.ByExport.end()
            ? nullptr
            : pick(Exporters->second, Result.LinkFormat, Traits, Result.Images);
    if (Found == nullptr) {
      Missing[Symbol].push_back(Importer->Info.Name);
      continue;
    }
    Result.Images.push_back(Found);
    Defined.insert(Found->Info.Exports.begin(), Found->Info.Exports.end());
    for (const std::string &Import : Found->Info.Imports)
      if (Defined.count(Import) == 0)
        Pending.emplace_back(Import, Found);
  }
  if (!Missing.empty()) {
    std::string List;
    for (const auto &[Symbol, Importers] : Missing)
      List += (List.empty() ? "" : ", ") + Symbol + " (imported by " + join(Importers, ", ") + ")";
    return Status{PI_ERROR_LINK_PROGRAM_FAILURE,
                  "kernel '" + Kernel + "' on device '" + Traits.Name + "' (" + Result.LinkFormat +
                      "): " + std::to_string(Missing.size()) + " unresolved symbol" +
                      (Missing.size() == 1 ? "" : "s") +
                      " no registered image of that format exports, nothing was built: " + List};
  }
  return Result;
}

} // namespace dglink::runtime::detail
