// Programs and kernels through UR. Program metadata arrives as UR's flat list; where it
// describes a dglink device image (DGLINK_UR_METADATA_IMAGE_TARGET, ur_ext.h) the
// image is rebuilt with its property sets and made as piextProgramCreateWithImage
// makes it, else the list is the core's flat metadata.
#include "entry_points.h"

#include <dglink/ur_ext.h>

#include <algorithm>
#include <cstdint>
#include <list>
#include <map>

namespace dglink::ur {

namespace {

// Whether Bytes begin with the 64-bit little-endian size header (in bits) of the rest, as
// DPC++'s byte-array properties do.
bool sizeHeaderFits(const std::vector<uint8_t> &Bytes) {
  if (Bytes.size() < 8)
    return false;
  uint64_t Bits = 0;
  for (int I = 0; I < 8; ++I)
    Bits |= static_cast<uint64_t>(Bytes[I]) << (8 * I);
  return Bits % 8 == 0 && Bits / 8 == Bytes.size() - 8;
}

// A device image rebuilt from UR program metadata, owning everything it points at.
class ImageFromMetadata {
public:
  ur_result_t read(const ur_program_properties_t *Properties) {
    if (Properties == nullptr || Properties->count == 0)
      return UR_RESULT_SUCCESS;
    if (Properties->pMetadatas == nullptr)
      return failUr(UR_RESULT_ERROR_INVALID_NULL_POINTER,
                    "program properties: {} metadata entries but 'pMetadatas' is null",
                    Properties->count);
    for (uint32_t I = 0; I < Properties->count; ++I)
      if (const ur_result_t R = add(I, Properties->pMetadatas[I]); R != UR_RESULT_SUCCESS)
        return R;
    return UR_RESULT_SUCCESS;
  }

  bool isImage() const { return HasTarget; }

  // The flat list piProgramCreateWithBinary takes ("<set>/<property>" names).
  std::vector<pi_device_binary_property> flat() {
    std::vector<pi_device_binary_property> List;
    for (auto &[Set, Properties] : Sets)
      for (Property &Each : Properties)
        List.push_back(&Each.Pi);
    return List;
  }

  // The image piextProgramCreateWithImage takes, over Data.
  const _pi_device_binary_struct &image(const void *Data, size_t Size) {
    for (auto &[Set, Properties] : Sets) {
      PiProperties[Set].clear();
      for (Property &Each : Properties) {
        PiProperties[Set].push_back(Each.Pi);
        PiProperties[Set].back().Name = Each.ShortName.data();
      }
    }
    PiSets.clear();
    for (auto &[Set, Properties] : PiProperties)
      PiSets.push_back({const_cast<char *>(Set.c_str()), Properties.data(),
                        Properties.data() + Properties.size()});
    PiEntries.clear();
    for (std::string &Name : Entries)
      PiEntries.push_back({nullptr, Name.data(), 0, 0, 0});
    Image.Version = PI_DEVICE_BINARY_VERSION;
    Image.Kind = PI_DEVICE_BINARY_OFFLOAD_KIND_SYCL;
    Image.Format = static_cast<uint8_t>(Format);
    Image.DeviceTargetSpec = Target.c_str();
    Image.CompileOptions = CompileOptions.c_str();
    Image.LinkOptions = LinkOptions.c_str();
    Image.BinaryStart = static_cast<const unsigned char *>(Data);
    Image.BinaryEnd = static_cast<const unsigned char *>(Data) + Size;
    Image.EntriesBegin = PiEntries.empty() ? nullptr : PiEntries.data();
    Image.EntriesEnd = PiEntries.empty() ? nullptr : PiEntries.data() + PiEntries.size();
    Image.PropertySetsBegin = PiSets.empty() ? nullptr : PiSets.data();
    Image.PropertySetsEnd = PiSets.empty() ? nullptr : PiSets.data() + PiSets.size();
    return Image;
  }

private:
  struct Property {
    std::string FullName, ShortName;
    std::vector<uint8_t> Bytes; // the PI value: byte arrays with their size header
    _pi_device_binary_property_struct Pi{};
  };

  ur_result_t add(uint32_t Index, const ur_program_metadata_t &Entry) {
    if (Entry.pName == nullptr)
      return failUr(UR_RESULT_ERROR_INVALID_NULL_POINTER, "program metadata {} has no name", Index);
    const std::string Name = Entry.pName;
    auto String = [&](std::string &Out) {
      if (Entry.type != UR_PROGRAM_METADATA_TYPE_STRING || Entry.value.pString == nullptr)
        return failUr(UR_RESULT_ERROR_INVALID_BINARY, "program metadata '{}' must be a string",
                      dglink::clip(Name));
      Out = Entry.value.pString;
      return UR_RESULT_SUCCESS;
    };
    if (Name == DGLINK_UR_METADATA_IMAGE_TARGET) {
      HasTarget = true;
      return String(Target);
    }
    if (Name == DGLINK_UR_METADATA_IMAGE_COMPILE_OPTIONS)
      return String(CompileOptions);
    if (Name == DGLINK_UR_METADATA_IMAGE_LINK_OPTIONS)
      return String(LinkOptions);
    if (Name == DGLINK_UR_METADATA_IMAGE_ENTRY) {
      Entries.emplace_back();
      return String(Entries.back());
    }
    if (Name == DGLINK_UR_METADATA_IMAGE_FORMAT) {
      if (Entry.type != UR_PROGRAM_METADATA_TYPE_UINT32)
        return failUr(UR_RESULT_ERROR_INVALID_BINARY, "program metadata '{}' must be a UINT32",
                      Name);
      Format = static_cast<pi_device_binary_format>(Entry.value.data32);
      return UR_RESULT_SUCCESS;
    }
    // "<set>/<property>": the set is everything before the last '/' that names a set
    // (property names, unique ids among them, may hold '/' too): the longest known
    // set prefix wins, else the program metadata set.
    std::string Set = PI_PROPERTY_SET_PROGRAM_METADATA;
    std::string Short = Name;
    static const char *const KnownSets[] = {PI_PROPERTY_SET_DEVICE_GLOBALS,
                                            PI_PROPERTY_SET_EXPORTED_SYMBOLS,
                                            PI_PROPERTY_SET_IMPORTED_SYMBOLS,
                                            PI_PROPERTY_SET_VIRTUAL_FUNCTIONS,
                                            PI_PROPERTY_SET_PROGRAM_METADATA,
                                            PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_STORAGE,
                                            PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_OFFSETS,
                                            PI_PROPERTY_SET_DGLINK_DEVICE_GLOBAL_INITIALIZERS};
    for (const char *Known : KnownSets) {
      const std::string Prefix = std::string(Known) + "/";
      if (Name.compare(0, Prefix.size(), Prefix) == 0) {
        Set = Known;
        Short = Name.substr(Prefix.size());
        break;
      }
    }
    std::list<Property> &List = Sets[Set];
    List.emplace_back();
    Property &P = List.back();
    P.FullName = Name;
    P.ShortName = Short;
    P.Pi.Name = P.FullName.data();
    switch (Entry.type) {
    case UR_PROGRAM_METADATA_TYPE_UINT32:
      P.Pi.Type = PI_PROPERTY_TYPE_UINT32;
      P.Pi.ValSize = Entry.value.data32;
      return UR_RESULT_SUCCESS;
    case UR_PROGRAM_METADATA_TYPE_STRING:
      if (Entry.value.pString == nullptr)
        return failUr(UR_RESULT_ERROR_INVALID_NULL_POINTER,
                      "program metadata '{}' is a null string", dglink::clip(Name));
      P.Bytes.assign(Entry.value.pString,
                     Entry.value.pString + std::strlen(Entry.value.pString) + 1);
      P.Pi.Type = PI_PROPERTY_TYPE_STRING;
      break;
    case UR_PROGRAM_METADATA_TYPE_UINT64: {
      // PI has no 64-bit type (DPC++ passes "<kernel>@max_linear_work_group_size" so):
      // kept as an 8-byte byte array, its 64-bit size header first.
      P.Bytes.assign(16, 0);
      P.Bytes[0] = 64;
      for (int I = 0; I < 8; ++I)
        P.Bytes[8 + I] = static_cast<uint8_t>(Entry.value.data64 >> (8 * I));
      P.Pi.Type = PI_PROPERTY_TYPE_BYTE_ARRAY;
      break;
    }
    case UR_PROGRAM_METADATA_TYPE_BYTE_ARRAY: {
      // As DPC++ passes them: the property's bytes, its 64-bit size header included.
      if (Entry.size != 0 && Entry.value.pData == nullptr)
        return failUr(UR_RESULT_ERROR_INVALID_NULL_POINTER,
                      "program metadata '{}' has {} bytes at a null pointer", dglink::clip(Name),
                      Entry.size);
      const auto *Data = static_cast<const uint8_t *>(Entry.value.pData);
      P.Bytes.assign(Data, Data + Entry.size);
      // A plain name (no set, no '/', not DPC++'s "<kernel>@<property>": metadata nothing
      // here reads) may come as plain bytes from a client that is not DPC++ (UR's CTS
      // passes four): without a size header that fits, they get one. Everywhere else the
      // core checks the header DPC++ writes.
      if (Set == PI_PROPERTY_SET_PROGRAM_METADATA &&
          Name.find_first_of("@/") == std::string::npos && !sizeHeaderFits(P.Bytes)) {
        const uint64_t Bits = uint64_t{Entry.size} * 8;
        uint8_t Header[8];
        for (int I = 0; I < 8; ++I)
          Header[I] = static_cast<uint8_t>(Bits >> (8 * I));
        P.Bytes.insert(P.Bytes.begin(), Header, Header + 8);
      }
      P.Pi.Type = PI_PROPERTY_TYPE_BYTE_ARRAY;
      break;
    }
    default:
      return failUr(UR_RESULT_ERROR_UNSUPPORTED_ENUMERATION,
                    "program metadata '{}': type {} is not served", dglink::clip(Name),
                    static_cast<int>(Entry.type));
    }
    P.Pi.ValAddr = P.Bytes.data();
    P.Pi.ValSize = P.Bytes.size();
    return UR_RESULT_SUCCESS;
  }

  bool HasTarget = false;
  std::string Target, CompileOptions, LinkOptions;
  pi_device_binary_format Format = PI_DEVICE_BINARY_TYPE_NONE;
  std::list<std::string> Entries;
  std::map<std::string, std::list<Property>> Sets;
  std::map<std::string, std::vector<_pi_device_binary_property_struct>> PiProperties;
  std::vector<_pi_device_binary_property_set_struct> PiSets;
  std::vector<_pi_offload_entry_struct> PiEntries;
  _pi_device_binary_struct Image{};
};

// Checks a device list (null or empty: the program's) and a UR flag set of the Exp
// entry points.
ur_result_t expArguments(const char *Function, uint32_t numDevices, ur_device_handle_t *phDevices,
                         ur_exp_program_flags_t flags) {
  if (numDevices != 0 && phDevices == nullptr)
    return failUr(UR_RESULT_ERROR_INVALID_NULL_POINTER, "{}: {} devices but 'phDevices' is null",
                  Function, numDevices);
  if ((flags & UR_EXP_PROGRAM_FLAGS_MASK) != 0)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: program flags {:#x} are not defined",
                  Function, static_cast<unsigned>(flags));
  if ((flags & UR_EXP_PROGRAM_FLAG_ALLOW_UNRESOLVED_SYMBOLS) != 0)
    return failUr(UR_RESULT_ERROR_UNSUPPORTED_FEATURE,
                  "{}: links with unresolved symbols are not served", Function);
  return UR_RESULT_SUCCESS;
}

ur_program_build_status_t buildStatus(pi_program_build_status Status) {
  switch (Status) {
  case PI_PROGRAM_BUILD_STATUS_SUCCESS:
    return UR_PROGRAM_BUILD_STATUS_SUCCESS;
  case PI_PROGRAM_BUILD_STATUS_ERROR:
    return UR_PROGRAM_BUILD_STATUS_ERROR;
  case PI_PROGRAM_BUILD_STATUS_IN_PROGRESS:
    return UR_PROGRAM_BUILD_STATUS_IN_PROGRESS;
  case PI_PROGRAM_BUILD_STATUS_NONE:
    break;
  }
  return UR_PROGRAM_BUILD_STATUS_NONE;
}

ur_program_binary_type_t binaryType(pi_program_binary_type Type) {
  switch (Type) {
  case PI_PROGRAM_BINARY_TYPE_COMPILED_OBJECT:
    return UR_PROGRAM_BINARY_TYPE_COMPILED_OBJECT;
  case PI_PROGRAM_BINARY_TYPE_LIBRARY:
    return UR_PROGRAM_BINARY_TYPE_LIBRARY;
  case PI_PROGRAM_BINARY_TYPE_EXECUTABLE:
    return UR_PROGRAM_BINARY_TYPE_EXECUTABLE;
  case PI_PROGRAM_BINARY_TYPE_NONE:
    break;
  }
  return UR_PROGRAM_BINARY_TYPE_NONE;
}

} // namespace

// ---- program creation ----

ur_result_t urProgramCreateWithIL(ur_context_handle_t hContext, const void *pIL, size_t length,
                                  const ur_program_properties_t *pProperties,
                                  ur_program_handle_t *phProgram) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(pIL);
  DGLINK_UR_NOT_NULL_POINTER(phProgram);
  if (length == 0)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE, "{}: argument 'length' is 0", __func__);
  ImageFromMetadata Image;
  if (const ur_result_t R = Image.read(pProperties); R != UR_RESULT_SUCCESS)
    return R;
  pi_program Program = nullptr;
  if (Image.isImage())
    DGLINK_UR_TRY(piextProgramCreateWithImage(core(hContext), 0, nullptr, &Image.image(pIL, length),
                                              &Program));
  else
    DGLINK_UR_TRY(piProgramCreate(core(hContext), pIL, length, &Program));
  *phProgram = face(Program);
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urProgramCreateWithBinary(ur_context_handle_t hContext, uint32_t numDevices,
                                      ur_device_handle_t *phDevices, size_t *pLengths,
                                      const uint8_t **ppBinaries,
                                      const ur_program_properties_t *pProperties,
                                      ur_program_handle_t *phProgram) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(phDevices);
  DGLINK_UR_NOT_NULL_POINTER(pLengths);
  DGLINK_UR_NOT_NULL_POINTER(ppBinaries);
  DGLINK_UR_NOT_NULL_POINTER(phProgram);
  if (numDevices == 0)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE, "{}: argument 'numDevices' is 0", __func__);
  ImageFromMetadata Image;
  if (const ur_result_t R = Image.read(pProperties); R != UR_RESULT_SUCCESS)
    return R;
  pi_program Program = nullptr;
  if (Image.isImage()) {
    // An image has one binary for all its devices.
    for (uint32_t I = 1; I < numDevices; ++I)
      if (pLengths[I] != pLengths[0] ||
          (pLengths[0] != 0 && std::memcmp(ppBinaries[I], ppBinaries[0], pLengths[0]) != 0))
        return failUr(UR_RESULT_ERROR_INVALID_BINARY,
                      "{}: a dglink image has one binary for its devices; binary {} differs",
                      __func__, I);
    if (ppBinaries[0] == nullptr || pLengths[0] == 0)
      return failUr(UR_RESULT_ERROR_INVALID_VALUE, "{}: binary 0 is {}", __func__,
                    ppBinaries[0] == nullptr ? "null" : "empty");
    DGLINK_UR_TRY(piextProgramCreateWithImage(core(hContext), numDevices, core(phDevices),
                                              &Image.image(ppBinaries[0], pLengths[0]), &Program));
  } else {
    const std::vector<pi_device_binary_property> Flat = Image.flat();
    DGLINK_UR_TRY(piProgramCreateWithBinary(
        core(hContext), numDevices, core(phDevices), pLengths, ppBinaries, Flat.size(),
        Flat.empty() ? nullptr : Flat.data(), nullptr, &Program));
  }
  *phProgram = face(Program);
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

// ---- build, compile, link ----

ur_result_t urProgramBuild(ur_context_handle_t hContext, ur_program_handle_t hProgram,
                           const char *pOptions) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_HANDLE(hProgram);
  DGLINK_UR_CORE(piProgramBuild(core(hProgram), 0, nullptr, pOptions, nullptr, nullptr));
}
DGLINK_UR_CATCH_ALL

ur_result_t urProgramCompile(ur_context_handle_t hContext, ur_program_handle_t hProgram,
                             const char *pOptions) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_HANDLE(hProgram);
  DGLINK_UR_CORE(piProgramCompile(core(hProgram), 0, nullptr, pOptions, 0, nullptr, nullptr,
                                  nullptr, nullptr));
}
DGLINK_UR_CATCH_ALL

ur_result_t urProgramLink(ur_context_handle_t hContext, uint32_t count,
                          const ur_program_handle_t *phPrograms, const char *pOptions,
                          ur_program_handle_t *phProgram) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(phPrograms);
  DGLINK_UR_NOT_NULL_POINTER(phProgram);
  if (count == 0)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE, "{}: argument 'count' is 0", __func__);
  // A failed link still hands out its output: the build log names the symbols.
  *phProgram = nullptr;
  pi_program Output = nullptr;
  const pi_result Result = piProgramLink(core(hContext), 0, nullptr, pOptions, count,
                                         core(phPrograms), nullptr, nullptr, &Output);
  *phProgram = face(Output);
  return toUr(Result);
}
DGLINK_UR_CATCH_ALL

ur_result_t urProgramBuildExp(ur_program_handle_t hProgram, uint32_t numDevices,
                              ur_device_handle_t *phDevices, ur_exp_program_flags_t flags,
                              const char *pOptions) try {
  DGLINK_UR_NOT_NULL_HANDLE(hProgram);
  if (const ur_result_t R = expArguments(__func__, numDevices, phDevices, flags);
      R != UR_RESULT_SUCCESS)
    return R;
  DGLINK_UR_CORE(
      piProgramBuild(core(hProgram), numDevices, core(phDevices), pOptions, nullptr, nullptr));
}
DGLINK_UR_CATCH_ALL

ur_result_t urProgramCompileExp(ur_program_handle_t hProgram, uint32_t numDevices,
                                ur_device_handle_t *phDevices, ur_exp_program_flags_t flags,
                                const char *pOptions) try {
  DGLINK_UR_NOT_NULL_HANDLE(hProgram);
  if (const ur_result_t R = expArguments(__func__, numDevices, phDevices, flags);
      R != UR_RESULT_SUCCESS)
    return R;
  DGLINK_UR_CORE(piProgramCompile(core(hProgram), numDevices, core(phDevices), pOptions, 0, nullptr,
                                  nullptr, nullptr, nullptr));
}
DGLINK_UR_CATCH_ALL

ur_result_t urProgramLinkExp(ur_context_handle_t hContext, uint32_t numDevices,
                             ur_device_handle_t *phDevices, ur_exp_program_flags_t flags,
                             uint32_t count, const ur_program_handle_t *phPrograms,
                             const char *pOptions, ur_program_handle_t *phProgram) try {
  DGLINK_UR_NOT_NULL_HANDLE(hContext);
  DGLINK_UR_NOT_NULL_POINTER(phPrograms);
  DGLINK_UR_NOT_NULL_POINTER(phProgram);
  if (const ur_result_t R = expArguments(__func__, numDevices, phDevices, flags);
      R != UR_RESULT_SUCCESS)
    return R;
  if (count == 0)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE, "{}: argument 'count' is 0", __func__);
  *phProgram = nullptr;
  pi_program Output = nullptr;
  const pi_result Result = piProgramLink(core(hContext), numDevices, core(phDevices), pOptions,
                                         count, core(phPrograms), nullptr, nullptr, &Output);
  *phProgram = face(Output);
  return toUr(Result);
}
DGLINK_UR_CATCH_ALL

ur_result_t urProgramRetain(ur_program_handle_t hProgram) try {
  DGLINK_UR_NOT_NULL_HANDLE(hProgram);
  DGLINK_UR_CORE(piProgramRetain(core(hProgram)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urProgramRelease(ur_program_handle_t hProgram) try {
  DGLINK_UR_NOT_NULL_HANDLE(hProgram);
  DGLINK_UR_CORE(piProgramRelease(core(hProgram)));
}
DGLINK_UR_CATCH_ALL

ur_result_t
urProgramSetSpecializationConstants(ur_program_handle_t hProgram, uint32_t count,
                                    const ur_specialization_constant_info_t *pSpecConstants) try {
  DGLINK_UR_NOT_NULL_HANDLE(hProgram);
  DGLINK_UR_NOT_NULL_POINTER(pSpecConstants);
  if (count == 0)
    return failUr(UR_RESULT_ERROR_INVALID_SIZE, "{}: argument 'count' is 0", __func__);
  DGLINK_UR_CHECK(hProgram, PI_ERROR_INVALID_PROGRAM);
  std::map<uint32_t, std::vector<uint8_t>> Values;
  for (uint32_t I = 0; I < count; ++I) {
    const ur_specialization_constant_info_t &Info = pSpecConstants[I];
    if (Info.pValue == nullptr)
      return failUr(UR_RESULT_ERROR_INVALID_VALUE, "{}: pSpecConstants[{}].pValue is null",
                    __func__, I);
    const auto *Bytes = static_cast<const uint8_t *>(Info.pValue);
    // A size beyond any scalar's is refused by the module check below; this bounds the
    // copy.
    if (Info.size > 8)
      return failUr(UR_RESULT_ERROR_INVALID_VALUE,
                    "{}: pSpecConstants[{}].size is {} bytes; a specialization constant has 1, "
                    "2, 4 or 8",
                    __func__, I, Info.size);
    Values[Info.id].assign(Bytes, Bytes + Info.size);
  }
  DGLINK_UR_TRY(dglink::core::setSpecializationConstants(__func__, *core(hProgram), Values));
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

// ---- program queries ----

ur_result_t urProgramGetInfo(ur_program_handle_t hProgram, ur_program_info_t propName,
                             size_t propSize, void *pPropValue, size_t *pPropSizeRet) try {
  DGLINK_UR_NOT_NULL_HANDLE(hProgram);
  DGLINK_UR_CHECK(hProgram, PI_ERROR_INVALID_PROGRAM);
  const InfoAnswer Answer(__func__, propSize, pPropValue, pPropSizeRet);
  if (const ur_result_t Checked = Answer.check(); Checked != UR_RESULT_SUCCESS)
    return Checked;
  _pi_program &Program = *core(hProgram);
  // The answers the core computes (binaries, kernel names), asked in PI's words.
  auto FromCore = [&](pi_program_info Name) -> ur_result_t {
    size_t Size = 0;
    DGLINK_UR_TRY(piProgramGetInfo(&Program, Name, 0, nullptr, &Size));
    if (pPropValue != nullptr && propSize < Size)
      return Answer.bytes(nullptr, Size); // INVALID_SIZE, with the size needed
    if (pPropSizeRet != nullptr)
      *pPropSizeRet = Size;
    if (pPropValue == nullptr)
      return UR_RESULT_SUCCESS;
    DGLINK_UR_CORE(piProgramGetInfo(&Program, Name, propSize, pPropValue, nullptr));
  };
  switch (static_cast<uint32_t>(propName)) {
  case UR_PROGRAM_INFO_REFERENCE_COUNT:
    return Answer.value(uint32_t{Program.RefCount.load()});
  case UR_PROGRAM_INFO_CONTEXT:
    return Answer.value(face(Program.Context));
  case UR_PROGRAM_INFO_NUM_DEVICES:
    return Answer.value(static_cast<uint32_t>(Program.Devices.size()));
  case UR_PROGRAM_INFO_DEVICES:
    return Answer.array(Program.Devices);
  case UR_PROGRAM_INFO_IL:
    if (Program.Format != PI_DEVICE_BINARY_TYPE_SPIRV)
      return Answer.bytes(nullptr, 0);
    return Answer.array(Program.Binary);
  case UR_PROGRAM_INFO_BINARY_SIZES:
    return FromCore(PI_PROGRAM_INFO_BINARY_SIZES);
  case UR_PROGRAM_INFO_BINARIES:
    return FromCore(PI_PROGRAM_INFO_BINARIES);
  case UR_PROGRAM_INFO_NUM_KERNELS: {
    std::lock_guard<std::mutex> Lock(Program.Mutex);
    if (!Program.Executable.load())
      return failUr(UR_RESULT_ERROR_INVALID_PROGRAM_EXECUTABLE,
                    "{}: program {} is not built: it has no kernels yet", __func__,
                    fmt::ptr(&Program));
    return Answer.value(Program.KernelNames.size());
  }
  case UR_PROGRAM_INFO_KERNEL_NAMES:
    if (!Program.Executable.load())
      return failUr(UR_RESULT_ERROR_INVALID_PROGRAM_EXECUTABLE,
                    "{}: program {} is not built: it has no kernels yet", __func__,
                    fmt::ptr(&Program));
    return FromCore(PI_PROGRAM_INFO_KERNEL_NAMES);
  case DGLINK_UR_PROGRAM_INFO_FORMAT:
    return Answer.value(static_cast<uint32_t>(Program.Format));
  case DGLINK_UR_PROGRAM_INFO_DEVICE_GLOBALS:
    return FromCore(PI_EXT_PROGRAM_INFO_DEVICE_GLOBALS);
  default:
    break;
  }
  return Answer.unsupported(propName);
}
DGLINK_UR_CATCH_ALL

ur_result_t urProgramGetBuildInfo(ur_program_handle_t hProgram, ur_device_handle_t hDevice,
                                  ur_program_build_info_t propName, size_t propSize,
                                  void *pPropValue, size_t *pPropSizeRet) try {
  DGLINK_UR_NOT_NULL_HANDLE(hProgram);
  DGLINK_UR_NOT_NULL_HANDLE(hDevice);
  DGLINK_UR_CHECK(hProgram, PI_ERROR_INVALID_PROGRAM);
  DGLINK_UR_CHECK(hDevice, PI_ERROR_INVALID_DEVICE);
  const InfoAnswer Answer(__func__, propSize, pPropValue, pPropSizeRet);
  if (const ur_result_t Checked = Answer.check(); Checked != UR_RESULT_SUCCESS)
    return Checked;
  const _pi_program &Program = *core(hProgram);
  if (!Program.hasDevice(core(hDevice)))
    return failUr(UR_RESULT_ERROR_INVALID_DEVICE, "{}: device '{}' is not a device of the program",
                  __func__, core(hDevice)->Description.Name);
  std::lock_guard<std::mutex> Lock(Program.Mutex);
  switch (propName) {
  case UR_PROGRAM_BUILD_INFO_STATUS:
    return Answer.value(buildStatus(Program.BuildStatus));
  case UR_PROGRAM_BUILD_INFO_OPTIONS:
    return Answer.string(Program.Options);
  case UR_PROGRAM_BUILD_INFO_LOG:
    return Answer.string(Program.Log);
  case UR_PROGRAM_BUILD_INFO_BINARY_TYPE:
    return Answer.value(binaryType(Program.BinaryType));
  default:
    break;
  }
  return Answer.unsupported(propName);
}
DGLINK_UR_CATCH_ALL

// The device address of a device global (a backend that finds globals by name). OpenCL's
// lowered storage is a buffer the adapter owns: it has an address where the buffer is
// made over SVM (docs/opencl-lowering.md), else there is no pointer to hand out.
ur_result_t urProgramGetGlobalVariablePointer(ur_device_handle_t hDevice,
                                              ur_program_handle_t hProgram,
                                              const char *pGlobalVariableName,
                                              size_t *pGlobalVariableSizeRet,
                                              void **ppGlobalVariablePointerRet) try {
  DGLINK_UR_NOT_NULL_HANDLE(hDevice);
  DGLINK_UR_NOT_NULL_HANDLE(hProgram);
  DGLINK_UR_NOT_NULL_POINTER(pGlobalVariableName);
  DGLINK_UR_NOT_NULL_POINTER(ppGlobalVariablePointerRet);
  DGLINK_UR_CHECK(hDevice, PI_ERROR_INVALID_DEVICE);
  DGLINK_UR_CHECK(hProgram, PI_ERROR_INVALID_PROGRAM);
  DeviceGlobalLocation Location;
  size_t Size = 0;
  DGLINK_UR_TRY(dglink::core::lookupDeviceGlobal(__func__, *core(hProgram), *core(hDevice),
                                                 pGlobalVariableName, Location, Size));
  void *Address = dglink::core::locationAddress<void *>(Location);
  if (Location.Buffer != nullptr) {
    auto *Base =
        static_cast<char *>(static_cast<dglink::core::MemImpl *>(Location.Buffer)->deviceAddress());
    Address = Base != nullptr ? Base + Location.Address : nullptr;
  }
  if (Address == nullptr)
    return failUr(UR_RESULT_ERROR_UNSUPPORTED_FEATURE,
                  "{}: device global '{}' lives in storage the adapter owns (lowered for "
                  "OpenCL) and has no device pointer; use urEnqueueDeviceGlobalVariableRead/Write",
                  __func__, dglink::clip(pGlobalVariableName));
  *ppGlobalVariablePointerRet = Address;
  if (pGlobalVariableSizeRet != nullptr)
    *pGlobalVariableSizeRet = Size;
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

// ---- kernels ----

ur_result_t urKernelCreate(ur_program_handle_t hProgram, const char *pKernelName,
                           ur_kernel_handle_t *phKernel) try {
  DGLINK_UR_NOT_NULL_HANDLE(hProgram);
  DGLINK_UR_NOT_NULL_POINTER(pKernelName);
  DGLINK_UR_NOT_NULL_POINTER(phKernel);
  pi_kernel Kernel = nullptr;
  DGLINK_UR_TRY(piKernelCreate(core(hProgram), pKernelName, &Kernel));
  *phKernel = face(Kernel);
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urKernelRetain(ur_kernel_handle_t hKernel) try {
  DGLINK_UR_NOT_NULL_HANDLE(hKernel);
  DGLINK_UR_CORE(piKernelRetain(core(hKernel)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urKernelRelease(ur_kernel_handle_t hKernel) try {
  DGLINK_UR_NOT_NULL_HANDLE(hKernel);
  DGLINK_UR_CORE(piKernelRelease(core(hKernel)));
}
DGLINK_UR_CATCH_ALL

ur_result_t urKernelGetInfo(ur_kernel_handle_t hKernel, ur_kernel_info_t propName, size_t propSize,
                            void *pPropValue, size_t *pPropSizeRet) try {
  DGLINK_UR_NOT_NULL_HANDLE(hKernel);
  DGLINK_UR_CHECK(hKernel, PI_ERROR_INVALID_KERNEL);
  const InfoAnswer Answer(__func__, propSize, pPropValue, pPropSizeRet);
  if (const ur_result_t Checked = Answer.check(); Checked != UR_RESULT_SUCCESS)
    return Checked;
  const _pi_kernel &Kernel = *core(hKernel);
  switch (propName) {
  case UR_KERNEL_INFO_FUNCTION_NAME:
    return Answer.string(Kernel.Name);
  case UR_KERNEL_INFO_NUM_ARGS:
    return Answer.value(uint32_t{Kernel.Impl->numArguments()});
  case UR_KERNEL_INFO_REFERENCE_COUNT:
    return Answer.value(uint32_t{Kernel.RefCount.load()});
  case UR_KERNEL_INFO_CONTEXT:
    return Answer.value(face(Kernel.Program->Context));
  case UR_KERNEL_INFO_PROGRAM:
    return Answer.value(face(Kernel.Program));
  case UR_KERNEL_INFO_ATTRIBUTES:
    return Answer.string("");
  default:
    break;
  }
  return Answer.unsupported(propName);
}
DGLINK_UR_CATCH_ALL

// DPC++ calls this after every urKernelCreate (USM_INDIRECT_ACCESS) and throws on an
// error. Every value is honoured as it stands: each backend's kernels reach every USM
// allocation of their context through pointers stored in memory (CUDA and HIP: one
// address space; OpenCL: indirect access declared for every kernel, or every SVM
// allocation named at each launch; Level Zero: indirect access set on every kernel), so
// indirect access and a list of USM pointers need nothing more, and a cache
// configuration is a hint.
ur_result_t urKernelSetExecInfo(ur_kernel_handle_t hKernel, ur_kernel_exec_info_t propName,
                                size_t propSize, const ur_kernel_exec_info_properties_t *,
                                const void *pPropValue) try {
  DGLINK_UR_NOT_NULL_HANDLE(hKernel);
  DGLINK_UR_NOT_NULL_POINTER(pPropValue);
  if (propName > UR_KERNEL_EXEC_INFO_CACHE_CONFIG)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: 'propName' {:#x} is not defined",
                  __func__, static_cast<uint32_t>(propName));
  DGLINK_UR_CHECK(hKernel, PI_ERROR_INVALID_KERNEL);
  const char *Function = __func__;
  auto Size = [&](size_t Expected, const char *Type) -> ur_result_t {
    if (propSize == Expected)
      return UR_RESULT_SUCCESS;
    return failUr(UR_RESULT_ERROR_INVALID_SIZE, "{}: 'propSize' is {}, a {} has {} bytes", Function,
                  propSize, Type, Expected);
  };
  switch (propName) {
  case UR_KERNEL_EXEC_INFO_USM_INDIRECT_ACCESS:
    return Size(sizeof(ur_bool_t), "ur_bool_t");
  case UR_KERNEL_EXEC_INFO_USM_PTRS:
    if (propSize % sizeof(void *) != 0)
      return failUr(UR_RESULT_ERROR_INVALID_SIZE,
                    "{}: 'propSize' is {}, not a whole number of {}-byte pointers", __func__,
                    propSize, sizeof(void *));
    return UR_RESULT_SUCCESS;
  case UR_KERNEL_EXEC_INFO_CACHE_CONFIG: {
    if (const ur_result_t R = Size(sizeof(ur_kernel_cache_config_t), "ur_kernel_cache_config_t");
        R != UR_RESULT_SUCCESS)
      return R;
    ur_kernel_cache_config_t Config{};
    std::memcpy(&Config, pPropValue, sizeof(Config));
    if (Config > UR_KERNEL_CACHE_CONFIG_LARGE_DATA)
      return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION,
                    "{}: cache configuration {:#x} is not defined", __func__,
                    static_cast<uint32_t>(Config));
    return UR_RESULT_SUCCESS;
  }
  default:
    break;
  }
  return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: 'propName' {:#x} is not defined",
                __func__, static_cast<uint32_t>(propName));
}
DGLINK_UR_CATCH_ALL

// A local size the launch would run with (core::suggestLocalSize); the offset does not
// change it.
ur_result_t urKernelGetSuggestedLocalWorkSize(ur_kernel_handle_t hKernel, ur_queue_handle_t hQueue,
                                              uint32_t numWorkDim, const size_t *pGlobalWorkOffset,
                                              const size_t *pGlobalWorkSize,
                                              size_t *pSuggestedLocalWorkSize) try {
  DGLINK_UR_NOT_NULL_HANDLE(hKernel);
  DGLINK_UR_NOT_NULL_HANDLE(hQueue);
  DGLINK_UR_NOT_NULL_POINTER(pGlobalWorkOffset);
  DGLINK_UR_NOT_NULL_POINTER(pGlobalWorkSize);
  DGLINK_UR_NOT_NULL_POINTER(pSuggestedLocalWorkSize);
  DGLINK_UR_CHECK(hKernel, PI_ERROR_INVALID_KERNEL);
  DGLINK_UR_CHECK(hQueue, PI_ERROR_INVALID_QUEUE);
  size_t Local[3] = {1, 1, 1};
  DGLINK_UR_TRY(core::suggestLocalSize(__func__, *core(hQueue), *core(hKernel), numWorkDim,
                                       pGlobalWorkSize, Local));
  std::copy(Local, Local + numWorkDim, pSuggestedLocalWorkSize);
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

// The most work-groups a cooperative launch may have (core::suggestCooperativeGroups):
// UNSUPPORTED_FEATURE where the device has no cooperative launches.
ur_result_t urKernelSuggestMaxCooperativeGroupCount(ur_kernel_handle_t hKernel,
                                                    ur_device_handle_t hDevice, uint32_t workDim,
                                                    const size_t *pLocalWorkSize,
                                                    size_t dynamicSharedMemorySize,
                                                    uint32_t *pGroupCountRet) try {
  DGLINK_UR_NOT_NULL_HANDLE(hKernel);
  DGLINK_UR_NOT_NULL_HANDLE(hDevice);
  DGLINK_UR_NOT_NULL_POINTER(pLocalWorkSize);
  DGLINK_UR_NOT_NULL_POINTER(pGroupCountRet);
  uint32_t Count = 0;
  DGLINK_UR_TRY(core::suggestCooperativeGroups(__func__, core(hKernel), core(hDevice), workDim,
                                               pLocalWorkSize, dynamicSharedMemorySize, Count));
  *pGroupCountRet = Count;
  return UR_RESULT_SUCCESS;
}
DGLINK_UR_CATCH_ALL

ur_result_t urKernelGetGroupInfo(ur_kernel_handle_t hKernel, ur_device_handle_t hDevice,
                                 ur_kernel_group_info_t propName, size_t propSize, void *pPropValue,
                                 size_t *pPropSizeRet) try {
  DGLINK_UR_NOT_NULL_HANDLE(hKernel);
  DGLINK_UR_NOT_NULL_HANDLE(hDevice);
  DGLINK_UR_CHECK(hKernel, PI_ERROR_INVALID_KERNEL);
  DGLINK_UR_CHECK(hDevice, PI_ERROR_INVALID_DEVICE);
  const InfoAnswer Answer(__func__, propSize, pPropValue, pPropSizeRet);
  if (const ur_result_t Checked = Answer.check(); Checked != UR_RESULT_SUCCESS)
    return Checked;
  const _pi_kernel &Kernel = *core(hKernel);
  switch (propName) {
  case UR_KERNEL_GROUP_INFO_WORK_GROUP_SIZE:
    return Answer.value(Kernel.Impl->maxGroupSize());
  case UR_KERNEL_GROUP_INFO_GLOBAL_WORK_SIZE: {
    // The largest global size a launch may have per dimension: the device's work-groups
    // per launch times its work-items per group (size_t's limit where that overflows).
    const dglink::core::DeviceDescription &D = core(hDevice)->Description;
    size_t Sizes[3] = {0, 0, 0};
    for (int I = 0; I < 3; ++I)
      if (__builtin_mul_overflow(D.Limits.MaxWorkGroups[I], D.MaxWorkItemSizes[I], &Sizes[I]))
        Sizes[I] = SIZE_MAX;
    return Answer.bytes(Sizes, sizeof(Sizes));
  }
  case UR_KERNEL_GROUP_INFO_COMPILE_WORK_GROUP_SIZE: {
    // "<kernel>@reqd_work_group_size" program metadata, as UR's CUDA and HIP adapters
    // answer it; zeros where the kernel requires none.
    size_t Sizes[3] = {0, 0, 0};
    const auto &Required = Kernel.Program->Metadata.RequiredGroupSizes;
    if (const auto Found = Required.find(Kernel.Name); Found != Required.end())
      for (size_t D = 0; D < 3; ++D)
        Sizes[D] = Found->second[D];
    return Answer.bytes(Sizes, sizeof(Sizes));
  }
  case UR_KERNEL_GROUP_INFO_COMPILE_MAX_WORK_GROUP_SIZE: {
    const size_t None[3] = {0, 0, 0};
    return Answer.bytes(None, sizeof(None));
  }
  case UR_KERNEL_GROUP_INFO_COMPILE_MAX_LINEAR_WORK_GROUP_SIZE:
    return Answer.value(size_t{0});
  case UR_KERNEL_GROUP_INFO_LOCAL_MEM_SIZE:
  case UR_KERNEL_GROUP_INFO_PRIVATE_MEM_SIZE:
  case UR_KERNEL_GROUP_INFO_PREFERRED_WORK_GROUP_SIZE_MULTIPLE: {
    core::KernelDeviceProperties Properties;
    DGLINK_UR_TRY(core::kernelProperties(__func__, *core(hKernel), *core(hDevice), Properties));
    return Answer.value(propName == UR_KERNEL_GROUP_INFO_LOCAL_MEM_SIZE ? Properties.LocalMemSize
                        : propName == UR_KERNEL_GROUP_INFO_PRIVATE_MEM_SIZE
                            ? Properties.PrivateMemSize
                            : Properties.PreferredGroupSizeMultiple);
  }
  default:
    break;
  }
  return Answer.unsupported(propName);
}
DGLINK_UR_CATCH_ALL

// From the driver where it answers per kernel (clGetKernelSubGroupInfo on OpenCL 2.1+,
// zeKernelGetProperties, the warp of CUDA and HIP), else the device's sub-groups
// (core::kernelProperties); the kernel's required count and size are 0 where it
// requires none.
ur_result_t urKernelGetSubGroupInfo(ur_kernel_handle_t hKernel, ur_device_handle_t hDevice,
                                    ur_kernel_sub_group_info_t propName, size_t propSize,
                                    void *pPropValue, size_t *pPropSizeRet) try {
  DGLINK_UR_NOT_NULL_HANDLE(hKernel);
  DGLINK_UR_NOT_NULL_HANDLE(hDevice);
  if (propName > UR_KERNEL_SUB_GROUP_INFO_SUB_GROUP_SIZE_INTEL)
    return failUr(UR_RESULT_ERROR_INVALID_ENUMERATION, "{}: 'propName' {:#x} is not defined",
                  __func__, static_cast<uint32_t>(propName));
  DGLINK_UR_CHECK(hKernel, PI_ERROR_INVALID_KERNEL);
  DGLINK_UR_CHECK(hDevice, PI_ERROR_INVALID_DEVICE);
  const InfoAnswer Answer(__func__, propSize, pPropValue, pPropSizeRet);
  if (const ur_result_t Checked = Answer.check(); Checked != UR_RESULT_SUCCESS)
    return Checked;
  core::KernelDeviceProperties Properties;
  DGLINK_UR_TRY(core::kernelProperties(__func__, *core(hKernel), *core(hDevice), Properties));
  switch (propName) {
  case UR_KERNEL_SUB_GROUP_INFO_MAX_SUB_GROUP_SIZE:
    return Answer.value(uint32_t{Properties.MaxSubGroupSize});
  case UR_KERNEL_SUB_GROUP_INFO_MAX_NUM_SUB_GROUPS:
    return Answer.value(uint32_t{Properties.MaxNumSubGroups});
  case UR_KERNEL_SUB_GROUP_INFO_COMPILE_NUM_SUB_GROUPS:
    return Answer.value(uint32_t{Properties.CompileNumSubGroups});
  case UR_KERNEL_SUB_GROUP_INFO_SUB_GROUP_SIZE_INTEL:
    return Answer.value(uint32_t{Properties.RequiredSubGroupSize});
  default:
    break;
  }
  return Answer.unsupported(propName);
}
DGLINK_UR_CATCH_ALL

} // namespace dglink::ur
