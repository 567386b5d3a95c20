// Device-image collection: which images a kernel needs on a device.
#include "link_plan.h"

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <map>
#include <set>
#include <sstream>
#include <utility>

namespace dglink::runtime {

std::string aspectName(uint32_t Aspect) {
  switch (Aspect) {
  case 5:
    return "fp16";
  case 6:
    return "fp64";
  case 28:
    return "atomic64";
  default:
    return std::to_string(Aspect);
  }
}

} // namespace dglink::runtime

namespace dglink::runtime::detail {

namespace {

constexpr uint32_t AspectFp16 = 5;
constexpr uint32_t AspectFp64 = 6;
constexpr uint32_t AspectAtomic64 = 28;

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
            Image->Info.VirtualFunctionSet.empty() && // chosen by the set rules only
            (!InPreferred || Image->Info.Module == Preferred) &&
            std::find(Chosen.begin(), Chosen.end(), Image) == Chosen.end())
          return Image;
    }
  }
  return nullptr;
}

// The aspects of Required that Traits lacks.
std::vector<uint32_t> lacking(const std::vector<uint32_t> &Required, const DeviceTraits &Traits) {
  std::vector<uint32_t> Result;
  for (uint32_t Aspect : Required)
    if (Traits.Aspects.count(Aspect) == 0)
      Result.push_back(Aspect);
  return Result;
}

std::string describeLacking(const std::vector<uint32_t> &Aspects, const DeviceTraits &Traits) {
  std::string Text;
  for (uint32_t Aspect : Aspects)
    Text += (Text.empty() ? "" : ", ") + aspectName(Aspect) +
            (Traits.ForcedOff.count(Aspect) != 0 ? " (forced off by DGLINK_FORCE_ASPECTS_OFF)"
             : Aspect != AspectFp16 && Aspect != AspectFp64 && Aspect != AspectAtomic64
                 ? " (a sycl::aspect dglink does not know, so no device has it)"
                 : "");
  return Text;
}

} // namespace

const std::vector<uint32_t> &kernelAspects(const ImageInfo &Image, const std::string &Kernel) {
  // Without per-kernel aspects (an image not from dglink's shim), the image's own.
  static const std::vector<uint32_t> NoAspects;
  const auto Own = Image.KernelAspects.find(Kernel);
  if (Own != Image.KernelAspects.end())
    return Own->second;
  return Image.KernelAspects.empty() ? Image.Aspects : NoAspects;
}

bool kernelRunsOn(const ImageInfo &Image, const std::string &Kernel, const DeviceTraits &Traits) {
  return lacking(kernelAspects(Image, Kernel), Traits).empty();
}

Expected<std::set<uint32_t>> forcedOffAspects() {
  std::set<uint32_t> Result;
  const char *Value = std::getenv("DGLINK_FORCE_ASPECTS_OFF");
  if (Value == nullptr)
    return Result;
  std::string Text(Value);
  for (char &C : Text)
    if (C == ',')
      C = ' ';
  for (const std::string &Name : words(Text)) {
    if (Name == "fp16")
      Result.insert(AspectFp16);
    else if (Name == "fp64")
      Result.insert(AspectFp64);
    else if (Name == "atomic64")
      Result.insert(AspectAtomic64);
    else // a typo must not leave the aspect on unnoticed
      return Status{PI_ERROR_INVALID_VALUE, "DGLINK_FORCE_ASPECTS_OFF='" + std::string(Value) +
                                                "': unknown aspect '" + Name +
                                                "' (known: fp16, fp64, atomic64)"};
  }
  return Result;
}

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
  // Aspects: what the device says, less what the test hook turns off. A precision is
  // there where its fp config is not zero (every adapter answers both configs: OpenCL's
  // half one only with cl_khr_fp16, Level Zero's from its module flags).
  auto fpConfig = [&](pi_device_info Name) {
    pi_bitfield Config = 0;
    return Table.piDeviceGetInfo(Device, Name, sizeof(Config), &Config, nullptr) == PI_SUCCESS
               ? Config
               : pi_bitfield{0};
  };
  if (fpConfig(PI_DEVICE_INFO_DOUBLE_FP_CONFIG) != 0)
    Traits.Aspects.insert(AspectFp64);
  if (fpConfig(PI_DEVICE_INFO_HALF_FP_CONFIG) != 0)
    Traits.Aspects.insert(AspectFp16);
  std::string Extensions;
  if (!queryString(Table, Device, PI_DEVICE_INFO_EXTENSIONS, "PI_DEVICE_INFO_EXTENSIONS",
                   Extensions)
           .ok())
    Extensions.clear();
  const std::vector<std::string> Names = words(Extensions);
  auto has = [&Names](const char *Name) {
    return std::find(Names.begin(), Names.end(), Name) != Names.end();
  };
  // CUDA and HIP devices (sm_60+, every AMD GPU HIP runs on) have 64-bit atomics; their
  // adapters list no OpenCL extensions.
  const bool StreamBackend =
      Traits.Backend.rfind("cuda", 0) == 0 || Traits.Backend.rfind("hip", 0) == 0;
  if (StreamBackend || has("cl_khr_int64_base_atomics"))
    Traits.Aspects.insert(AspectAtomic64);
  Expected<std::set<uint32_t>> Off = forcedOffAspects();
  if (!Off)
    return Off.status();
  for (uint32_t Aspect : *Off)
    if (Traits.Aspects.erase(Aspect) != 0)
      Traits.ForcedOff.insert(Aspect);
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

  // A kernel that itself needs an aspect the device lacks (its own code, or a set it
  // calls into) is refused before anything is built. Kernels that only construct
  // objects do not need their vtables' aspects.
  if (const std::vector<uint32_t> Missing = lacking(kernelAspects(Main->Info, Kernel), Traits);
      !Missing.empty())
    return Status{PI_ERROR_INVALID_OPERATION,
                  "kernel '" + Kernel + "' requires aspect" + (Missing.size() == 1 ? " " : "s ") +
                      describeLacking(Missing, Traits) + ", which device '" + Traits.Name +
                      "' does not have; nothing was built"};

  Result.Images.push_back(Main);
  std::set<std::string> Defined;
  std::deque<std::pair<std::string, const RegisteredImage *>> Pending;
  std::deque<std::pair<std::string, const RegisteredImage *>> PendingSets;
  std::set<std::string> SetsSeen;
  auto take = [&](const RegisteredImage *Image) {
    if (Image != Main)
      Result.Images.push_back(Image);
    Defined.insert(Image->Info.Exports.begin(), Image->Info.Exports.end());
    for (const std::string &Import : Image->Info.Imports)
      Pending.emplace_back(Import, Image);
    for (const std::string &Set : Image->Info.UsesVirtualFunctionSets)
      PendingSets.emplace_back(Set, Image);
  };
  auto chosen = [&Result](const RegisteredImage *Image) {
    return std::find(Result.Images.begin(), Result.Images.end(), Image) != Result.Images.end();
  };
  take(Main);
  std::map<std::string, std::vector<std::string>> Missing; // symbol -> importers
  std::string SetProblem;
  while (!Pending.empty() || !PendingSets.empty()) {
    // Virtual-function sets first (the seed's rules): every image that provides the set,
    // the real one where the device has all its aspects, else its dummy twin; then the
    // other kernel images that use the set and that the device can run, so that kernels
    // constructing and calling one set's objects share one program.
    while (!PendingSets.empty()) {
      auto [Set, User] = std::move(PendingSets.front());
      PendingSets.pop_front();
      if (!SetsSeen.insert(Set).second)
        continue;
      const auto Providers = Registry.BySet.find(Set);
      bool Provided = false;
      if (Providers != Registry.BySet.end()) {
        for (const RegisteredImage *Real : Providers->second) {
          if (Real->Info.DummyImage || Real->Info.LinkFormat != Result.LinkFormat ||
              Real->Info.Lowered != Main->Info.Lowered || chosen(Real))
            continue;
          Provided = true;
          const std::vector<uint32_t> Lacks = lacking(Real->Info.Aspects, Traits);
          if (Lacks.empty()) {
            take(Real);
            continue;
          }
          const RegisteredImage *Dummy = nullptr;
          for (const RegisteredImage *Candidate : Providers->second)
            if (Candidate->Info.DummyImage && Candidate->Info.Module == Real->Info.Module &&
                Candidate->Info.LinkFormat == Real->Info.LinkFormat &&
                Candidate->Info.Lowered == Real->Info.Lowered && !chosen(Candidate)) {
              Dummy = Candidate;
              break;
            }
          if (Dummy == nullptr) {
            SetProblem += (SetProblem.empty() ? "" : "; ") + Real->Info.Name + " (set '" + Set +
                          "') needs " + describeLacking(Lacks, Traits) +
                          " and its module has no dummy image for the set";
            continue;
          }
          take(Dummy);
        }
      }
      if (!Provided) {
        SetProblem += (SetProblem.empty() ? "" : "; ") + std::string("no registered ") +
                      Result.LinkFormat + " image provides virtual-function set '" + Set +
                      "' that " + User->Info.Name + " uses";
        continue;
      }
      if (const auto Users = Registry.ByUsedSet.find(Set); Users != Registry.ByUsedSet.end())
        for (const RegisteredImage *Other : Users->second)
          if (Other->Info.LinkFormat == Result.LinkFormat &&
              Other->Info.Lowered == Main->Info.Lowered && !chosen(Other) &&
              lacking(Other->Info.Aspects, Traits).empty())
            take(Other);
    }
    // Resolution: each unresolved import, in the order met, by the first registered image
    // of the same format that exports it; that image's exports resolve what they can and
    // its imports join the queue.
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
      take(Found);
      if (!PendingSets.empty())
        break; // its sets before the next import
    }
  }
  if (!SetProblem.empty())
    return Status{PI_ERROR_LINK_PROGRAM_FAILURE, "kernel '" + Kernel + "' on device '" +
                                                     Traits.Name + "' (" + Result.LinkFormat +
                                                     "): nothing was built: " + SetProblem};
  // Imports a set image resolves only after its set was collected may have been listed
  // as missing before: drop those.
  for (auto It = Missing.begin(); It != Missing.end();)
    It = Defined.count(It->first) != 0 ? Missing.erase(It) : std::next(It);
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
