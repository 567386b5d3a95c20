// Device code of the AMD build: AMD GPU code objects, and linking through comgr.
//
// Debian's HIP 5.2 has no run-time link API (hiprtc gained hiprtcLink* in ROCm
// 5.3), but its code object manager, libamd_comgr.so.2 (Debian: libamd-comgr2),
// links relocatable code objects into an executable one
// (AMD_COMGR_ACTION_LINK_RELOCATABLE_TO_EXECUTABLE, lld inside comgr). comgr is
// opened with dlopen, like libamdhip64, and runs on the host: linking needs no GPU.
#include "native_code.h"

#include <dglink/support/error.h>
#include <dglink/support/log.h>

#include <amd_comgr.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <elf.h>
#include <string_view>

namespace dglink::hip {
namespace {

constexpr uint16_t ElfMachineAmdgpu = 224; // EM_AMDGPU

// A bounds-checked view of an ELF64 little-endian file: its header, sections and
// symbols. Images are untrusted input.
class ElfView {
public:
  ElfView(const void *Data, size_t Size)
      : Bytes(static_cast<const unsigned char *>(Data)), Length(Size) {
    if (Bytes == nullptr || Length < sizeof(Elf64_Ehdr) ||
        std::memcmp(Bytes, ELFMAG, SELFMAG) != 0 || Bytes[EI_CLASS] != ELFCLASS64 ||
        Bytes[EI_DATA] != ELFDATA2LSB)
      return;
    std::memcpy(&Header, Bytes, sizeof(Header));
    Valid = true;
  }

  bool valid() const { return Valid; }
  uint16_t machine() const { return Header.e_machine; }
  uint16_t type() const { return Header.e_type; }

  // Calls Visit(Name, Symbol) for every symbol of every symbol table.
  template <typename Visitor> void forEachSymbol(Visitor Visit) const {
    if (!Valid || Header.e_shentsize != sizeof(Elf64_Shdr))
      return;
    for (uint16_t I = 0; I < Header.e_shnum; ++I) {
      Elf64_Shdr Section;
      if (!section(I, Section) || (Section.sh_type != SHT_SYMTAB && Section.sh_type != SHT_DYNSYM))
        continue;
      Elf64_Shdr Strings;
      if (Section.sh_link >= Header.e_shnum || !section(Section.sh_link, Strings) ||
          !inside(Strings.sh_offset, Strings.sh_size) ||
          !inside(Section.sh_offset, Section.sh_size) || Section.sh_entsize != sizeof(Elf64_Sym))
        continue;
      const size_t Count = Section.sh_size / sizeof(Elf64_Sym);
      for (size_t S = 1; S < Count; ++S) {
        Elf64_Sym Symbol;
        std::memcpy(&Symbol, Bytes + Section.sh_offset + S * sizeof(Elf64_Sym), sizeof(Symbol));
        if (Symbol.st_name >= Strings.sh_size)
          continue;
        const char *Name =
            reinterpret_cast<const char *>(Bytes + Strings.sh_offset + Symbol.st_name);
        const size_t Room = Strings.sh_size - Symbol.st_name;
        const size_t NameLength = strnlen(Name, Room);
        if (NameLength == Room)
          continue; // not terminated inside the string table
        Visit(std::string(Name, NameLength), Symbol);
      }
    }
  }

private:
  bool inside(uint64_t Offset, uint64_t Size) const {
    return Offset <= Length && Size <= Length - Offset;
  }
  bool section(uint16_t Index, Elf64_Shdr &Out) const {
    const uint64_t Offset = Header.e_shoff + uint64_t(Index) * sizeof(Elf64_Shdr);
    if (Header.e_shoff > Length || !inside(Offset, sizeof(Elf64_Shdr)))
      return false;
    std::memcpy(&Out, Bytes + Offset, sizeof(Out));
    return true;
  }

  const unsigned char *Bytes;
  size_t Length;
  Elf64_Ehdr Header{};
  bool Valid = false;
};

// Global symbols a linked code object still needs from elsewhere.
std::vector<std::string> undefinedSymbols(const std::vector<char> &Bytes) {
  std::vector<std::string> Names;
  ElfView(Bytes.data(), Bytes.size())
      .forEachSymbol([&](const std::string &Name, const Elf64_Sym &S) {
        if (S.st_shndx == SHN_UNDEF && !Name.empty() && ELF64_ST_BIND(S.st_info) == STB_GLOBAL &&
            std::find(Names.begin(), Names.end(), Name) == Names.end())
          Names.push_back(Name);
      });
  return Names;
}

// comgr's functions, resolved from libamd_comgr.so.2.
#define DGLINK_COMGR_FUNCTIONS(X)                                                                  \
  X(amd_comgr_status_string)                                                                       \
  X(amd_comgr_create_data)                                                                         \
  X(amd_comgr_release_data)                                                                        \
  X(amd_comgr_set_data)                                                                            \
  X(amd_comgr_set_data_name)                                                                       \
  X(amd_comgr_get_data)                                                                            \
  X(amd_comgr_create_data_set)                                                                     \
  X(amd_comgr_destroy_data_set)                                                                    \
  X(amd_comgr_data_set_add)                                                                        \
  X(amd_comgr_action_data_count)                                                                   \
  X(amd_comgr_action_data_get_data)                                                                \
  X(amd_comgr_create_action_info)                                                                  \
  X(amd_comgr_destroy_action_info)                                                                 \
  X(amd_comgr_action_info_set_isa_name)                                                            \
  X(amd_comgr_action_info_set_logging)                                                             \
  X(amd_comgr_do_action)

struct Comgr {
#define DGLINK_COMGR_MEMBER(Name) decltype(&::Name) Name = nullptr;
  DGLINK_COMGR_FUNCTIONS(DGLINK_COMGR_MEMBER)
#undef DGLINK_COMGR_MEMBER
  bool Loaded = false;
  std::string Reason; // why not, when not
};

Comgr loadComgr() {
  Comgr Api;
  const char *Names[] = {"libamd_comgr.so.2", "libamd_comgr.so"};
  void *Library = nullptr;
  const char *Opened = nullptr;
  for (const char *Name : Names)
    if ((Library = dlopen(Name, RTLD_NOW | RTLD_LOCAL)) != nullptr) {
      Opened = Name;
      break;
    }
  if (Library == nullptr) {
    const char *Error = dlerror();
    Api.Reason = std::string("cannot open libamd_comgr.so.2 (the AMD code object manager, "
                             "Debian: libamd-comgr2): ") +
                 (Error ? Error : "unknown error");
    logger().info("hip: {}; piProgramLink is not available", Api.Reason);
    return Api;
  }
#define DGLINK_COMGR_RESOLVE(Name)                                                                 \
  {                                                                                                \
    void *Address = dlsym(Library, #Name);                                                         \
    if (Address == nullptr) {                                                                      \
      Api = Comgr();                                                                               \
      Api.Reason = std::string(Opened) + " lacks " #Name;                                          \
      dlclose(Library);                                                                            \
      return Api;                                                                                  \
    }                                                                                              \
    std::memcpy(&Api.Name, &Address, sizeof(Address));                                             \
  }
  DGLINK_COMGR_FUNCTIONS(DGLINK_COMGR_RESOLVE)
#undef DGLINK_COMGR_RESOLVE
  Api.Loaded = true;
  logger().debug("hip: comgr from {}", Opened);
  return Api;
}

const Comgr &comgr() {
  static const Comgr Api = loadComgr();
  return Api;
}

std::string statusText(amd_comgr_status_t Status) {
  const char *Text = nullptr;
  if (comgr().amd_comgr_status_string(Status, &Text) == AMD_COMGR_STATUS_SUCCESS && Text)
    return Text;
  return "status " + std::to_string(static_cast<int>(Status));
}

// The bytes of the Index-th output of Kind in Set.
bool readOutput(amd_comgr_data_set_t Set, amd_comgr_data_kind_t Kind, std::vector<char> &Out) {
  const Comgr &C = comgr();
  size_t Count = 0;
  if (C.amd_comgr_action_data_count(Set, Kind, &Count) != AMD_COMGR_STATUS_SUCCESS || Count == 0)
    return false;
  amd_comgr_data_t Data;
  if (C.amd_comgr_action_data_get_data(Set, Kind, 0, &Data) != AMD_COMGR_STATUS_SUCCESS)
    return false;
  size_t Size = 0;
  bool Ok = C.amd_comgr_get_data(Data, &Size, nullptr) == AMD_COMGR_STATUS_SUCCESS && Size != 0;
  if (Ok) {
    Out.resize(Size);
    Ok = C.amd_comgr_get_data(Data, &Size, Out.data()) == AMD_COMGR_STATUS_SUCCESS;
  }
  C.amd_comgr_release_data(Data);
  return Ok;
}

// Links relocatable code objects into an executable one with comgr.
pi_result comgrLink(const std::vector<const std::vector<char> *> &Objects, const std::string &Arch,
                    std::vector<char> &Out, std::string &Log) {
  const Comgr &C = comgr();
  if (!C.Loaded)
    return fail(PI_ERROR_LINKER_NOT_AVAILABLE, "piProgramLink: {}", C.Reason);
  if (Arch.empty())
    return fail(PI_ERROR_INVALID_OPERATION,
                "piProgramLink: the device reports no AMD GPU architecture to link for");
  amd_comgr_data_set_t Inputs{}, Outputs{};
  amd_comgr_action_info_t Info{};
  bool HaveInputs = false, HaveOutputs = false, HaveInfo = false;
  struct Cleanup {
    const Comgr &C;
    amd_comgr_data_set_t &Inputs, &Outputs;
    amd_comgr_action_info_t &Info;
    bool &HaveInputs, &HaveOutputs, &HaveInfo;
    ~Cleanup() {
      if (HaveInputs)
        C.amd_comgr_destroy_data_set(Inputs);
      if (HaveOutputs)
        C.amd_comgr_destroy_data_set(Outputs);
      if (HaveInfo)
        C.amd_comgr_destroy_action_info(Info);
    }
  } AtExit{C, Inputs, Outputs, Info, HaveInputs, HaveOutputs, HaveInfo};

  auto Check = [&](amd_comgr_status_t Status, const char *Call) -> pi_result {
    if (Status == AMD_COMGR_STATUS_SUCCESS)
      return PI_SUCCESS;
    return fail(PI_ERROR_LINK_PROGRAM_FAILURE, "piProgramLink: {} failed: {}", Call,
                statusText(Status));
  };
  DGLINK_TRY(Check(C.amd_comgr_create_data_set(&Inputs), "amd_comgr_create_data_set"));
  HaveInputs = true;
  DGLINK_TRY(Check(C.amd_comgr_create_data_set(&Outputs), "amd_comgr_create_data_set"));
  HaveOutputs = true;
  for (size_t I = 0; I < Objects.size(); ++I) {
    amd_comgr_data_t Data;
    DGLINK_TRY(Check(C.amd_comgr_create_data(AMD_COMGR_DATA_KIND_RELOCATABLE, &Data),
                     "amd_comgr_create_data"));
    const std::string Name = "input" + std::to_string(I) + ".o";
    amd_comgr_status_t Status = C.amd_comgr_set_data(Data, Objects[I]->size(), Objects[I]->data());
    if (Status == AMD_COMGR_STATUS_SUCCESS)
      Status = C.amd_comgr_set_data_name(Data, Name.c_str());
    if (Status == AMD_COMGR_STATUS_SUCCESS)
      Status = C.amd_comgr_data_set_add(Inputs, Data);
    C.amd_comgr_release_data(Data); // the set holds its own reference
    DGLINK_TRY(Check(Status, "amd_comgr_set_data / amd_comgr_data_set_add"));
  }
  DGLINK_TRY(Check(C.amd_comgr_create_action_info(&Info), "amd_comgr_create_action_info"));
  HaveInfo = true;
  // gcnArchName may carry target features ("gfx90a:sramecc+:xnack-"): comgr's
  // ISA names take them in the same form.
  const std::string Isa = "amdgcn-amd-amdhsa--" + Arch;
  DGLINK_TRY(Check(C.amd_comgr_action_info_set_isa_name(Info, Isa.c_str()),
                   "amd_comgr_action_info_set_isa_name"));
  DGLINK_TRY(
      Check(C.amd_comgr_action_info_set_logging(Info, true), "amd_comgr_action_info_set_logging"));
  const amd_comgr_status_t Status =
      C.amd_comgr_do_action(AMD_COMGR_ACTION_LINK_RELOCATABLE_TO_EXECUTABLE, Info, Inputs, Outputs);
  std::vector<char> LogBytes;
  if (readOutput(Outputs, AMD_COMGR_DATA_KIND_LOG, LogBytes) && !LogBytes.empty())
    Log.append(LogBytes.data(), strnlen(LogBytes.data(), LogBytes.size()));
  if (Status != AMD_COMGR_STATUS_SUCCESS)
    return fail(PI_ERROR_LINK_PROGRAM_FAILURE, "piProgramLink: comgr could not link for {}: {}\n{}",
                Isa, statusText(Status), Log);
  if (!readOutput(Outputs, AMD_COMGR_DATA_KIND_EXECUTABLE, Out))
    return fail(PI_ERROR_LINK_PROGRAM_FAILURE,
                "piProgramLink: comgr's link for {} produced no executable", Isa);
  // lld makes a shared object and leaves undefined symbols for the loader, which
  // cannot resolve them on a GPU: refuse them here, naming them.
  const std::vector<std::string> Undefined = undefinedSymbols(Out);
  if (!Undefined.empty()) {
    std::string Names;
    for (const std::string &Name : Undefined)
      Names += (Names.empty() ? "" : ", ") + Name;
    Log += (Log.empty() || Log.back() == '\n' ? "" : "\n") + std::string("unresolved symbols: ") +
           Names + "\n";
    Out.clear();
    return fail(PI_ERROR_LINK_PROGRAM_FAILURE, "piProgramLink: unresolved symbols: {}", Names);
  }
  return PI_SUCCESS;
}

} // namespace

const char *imageTarget() { return PI_DEVICE_BINARY_TARGET_AMDGCN; }
const char *codeDescription() { return "AMD GPU code objects"; }

bool detectCode(const void *Data, size_t Size, CodeKind &Kind) {
  const ElfView Elf(Data, Size);
  if (!Elf.valid() || Elf.machine() != ElfMachineAmdgpu)
    return false;
  if (Elf.type() == ET_REL) {
    Kind = CodeKind::Relocatable;
    return true;
  }
  if (Elf.type() == ET_DYN) {
    Kind = CodeKind::CodeObject;
    return true;
  }
  return false;
}

std::vector<std::string> kernelNames(CodeKind Kind, const std::vector<char> &Bytes) {
  // Code object v3+: every kernel has a kernel descriptor symbol "<name>.kd".
  std::vector<std::string> Names;
  ElfView(Bytes.data(), Bytes.size())
      .forEachSymbol([&](const std::string &Name, const Elf64_Sym &S) {
        constexpr std::string_view Suffix = ".kd";
        if (S.st_shndx != SHN_UNDEF && Name.size() > Suffix.size() &&
            Name.compare(Name.size() - Suffix.size(), Suffix.size(), Suffix) == 0) {
          std::string Kernel = Name.substr(0, Name.size() - Suffix.size());
          if (std::find(Names.begin(), Names.end(), Kernel) == Names.end())
            Names.push_back(std::move(Kernel));
        }
      });
  return Names;
}

pi_result codeForLoad(CodeKind Kind, const std::vector<char> &Bytes, const std::string &Arch,
                      std::vector<char> &Out, std::string &Log) {
  if (Kind != CodeKind::Relocatable) {
    Out = Bytes;
    return PI_SUCCESS;
  }
  // A relocatable object built on its own: link it alone.
  const pi_result Result = comgrLink({&Bytes}, Arch, Out, Log);
  if (Result == PI_SUCCESS)
    return Result;
  return fail(PI_ERROR_BUILD_PROGRAM_FAILURE, "piProgramBuild: {}", lastErrorMessage());
}

bool linkerAvailable(std::string *Why) {
  const Comgr &C = comgr();
  if (Why != nullptr)
    *Why = C.Loaded ? "comgr (libamd_comgr.so.2)" : C.Reason;
  return C.Loaded;
}

pi_result linkCode(const std::vector<LinkSource> &Sources, const std::string &Arch, int, int,
                   std::vector<char> &Out, CodeKind &OutKind, std::string &Log) {
  std::vector<const std::vector<char> *> Objects;
  for (size_t I = 0; I < Sources.size(); ++I) {
    if (Sources[I].Kind != CodeKind::Relocatable)
      return fail(PI_ERROR_INVALID_OPERATION,
                  "piProgramLink: input {} is a {}; the AMD platform links relocatable code "
                  "objects (compile the device code with -c)",
                  I, codeKindName(Sources[I].Kind));
    Objects.push_back(Sources[I].Bytes);
  }
  OutKind = CodeKind::CodeObject;
  return comgrLink(Objects, Arch, Out, Log);
}

} // namespace dglink::hip
