// The device-global helpers every driver-lookup adapter shares (device_global.h).
#include <dglink/support/device_global.h>

#include <dglink/support/error.h>
#include <dglink/support/log.h>

#include <algorithm>

namespace dglink {
namespace {

const std::vector<uint8_t> *findProperty(const ImageMetadata &Metadata, const std::string &Set,
                                         const std::string &Name) {
  auto Found = Metadata.RawSets.find(Set);
  if (Found == Metadata.RawSets.end())
    return nullptr;
  auto Property = Found->second.find(Name);
  if (Property == Found->second.end() || Property->second.empty())
    return nullptr;
  return &Property->second;
}

} // namespace

std::string deviceGlobalSymbol(const ImageMetadata &Metadata, const char *Name) {
  // UR's mapping first: DPC++'s native images (PTX) and UR's CTS name a variable by its
  // unique id and give the symbol only there.
  if (const auto Mapped = Metadata.GlobalIdMapping.find(Name);
      Mapped != Metadata.GlobalIdMapping.end())
    return Mapped->second;
  const std::vector<uint8_t> *Value = findProperty(Metadata, DeviceGlobalSymbolsSet, Name);
  if (Value == nullptr)
    Value = findProperty(Metadata, PI_PROPERTY_SET_PROGRAM_METADATA,
                         std::string(DeviceGlobalSymbolsSet) + "/" + Name);
  if (Value == nullptr)
    return Name;
  // STRING values carry their terminator.
  return std::string(Value->begin(), std::find(Value->begin(), Value->end(), '\0'));
}

pi_result checkDeclaredDeviceGlobal(const char *Function, const ImageMetadata &Metadata,
                                    const char *Name, const void *Program) {
  const auto &Declared = Metadata.DeviceGlobals;
  if (Declared.empty() || Declared.find(Name) != Declared.end())
    return PI_SUCCESS;
  return fail(PI_ERROR_INVALID_VALUE,
              "{}: device global '{}' is not in program {} (its image declares {} others)",
              Function, clip(Name), Program, Declared.size());
}

void applyDeclaredDeviceGlobal(const ImageMetadata &Metadata, const char *Name, size_t ModuleBytes,
                               size_t &Size, HostAccess &Access) {
  Size = ModuleBytes;
  Access = HostAccess::ReadWrite;
  auto Info = Metadata.DeviceGlobals.find(Name);
  if (Info == Metadata.DeviceGlobals.end())
    return;
  Access = Info->second.Access;
  // Without device_image_scope a pointer-sized instance whose declared size differs holds
  // a pointer to the value (usmptr; the size is sizeof(T), as DPC++ records it): the
  // instance is what the caller copies (DPC++ writes the USM pointer into it).
  if (!Info->second.DeviceImageScope && ModuleBytes == UsmptrBytes &&
      Info->second.Size != ModuleBytes)
    return;
  if (Info->second.Size != ModuleBytes)
    logger().warn("device global '{}': the image declares {} bytes, the module has {}", Name,
                  Info->second.Size, ModuleBytes);
  Size = std::min<size_t>(Info->second.Size, ModuleBytes);
  Access = Info->second.Access;
}

pi_result checkDeviceGlobalPointers(const char *Function, const char *Name, const void *HostPointer,
                                    const char *HostPointerName) {
  if (Name == nullptr)
    return fail(PI_ERROR_INVALID_VALUE, "{}: argument 'Name' is null", Function);
  if (HostPointer == nullptr)
    return fail(PI_ERROR_INVALID_VALUE, "{}: argument '{}' is null", Function, HostPointerName);
  return PI_SUCCESS;
}

pi_result missingDeviceGlobal(const char *Function, const char *Name, const std::string &Symbol,
                              const void *Program) {
  if (Symbol != Name)
    return fail(PI_ERROR_INVALID_VALUE, "{}: device global '{}' (symbol '{}') is not in program {}",
                Function, clip(Name), clip(Symbol), Program);
  return fail(PI_ERROR_INVALID_VALUE, "{}: device global '{}' is not in program {}", Function,
              clip(Name), Program);
}

pi_result checkHostAccess(const char *Function, const char *Name, HostAccess Access, bool IsWrite) {
  const bool Allowed = IsWrite ? (Access == HostAccess::Write || Access == HostAccess::ReadWrite)
                               : (Access == HostAccess::Read || Access == HostAccess::ReadWrite);
  if (Allowed)
    return PI_SUCCESS;
  return fail(PI_ERROR_INVALID_OPERATION,
              "{}: device global '{}' has host_access '{}': the host may not {} it", Function,
              clip(Name), hostAccessName(Access), IsWrite ? "write" : "read");
}

} // namespace dglink
