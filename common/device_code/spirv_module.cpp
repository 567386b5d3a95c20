// The physical layout of a SPIR-V module, checked word by word (SPIR-V section 2.3).
#include <dglink/device_code/spirv_module.h>
#include <dglink/support/error.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace dglink::device_code {
namespace {

// Opcodes (SPIR-V 1.6, unified1) whose ids sit at fixed words, for the id checks.
enum Opcode : uint16_t {
  OpName = 5,
  OpMemberName = 6,
  OpString = 7,
  OpExtInstImport = 11,
  OpExtInst = 12,
  OpMemoryModel = 14,
  OpEntryPoint = 15,
  OpExecutionMode = 16,
  OpTypeVoid = 19,
  OpTypePipe = 38,
  OpTypeForwardPointer = 39,
  OpConstantTrue = 41,
  OpConstantNull = 46,
  OpSpecConstantTrue = 48,
  OpSpecConstantOp = 52,
  OpFunction = 54,
  OpFunctionParameter = 55,
  OpFunctionEnd = 56,
  OpFunctionCall = 57,
  OpVariable = 59,
  OpLoad = 61,
  OpStore = 62,
  OpAccessChain = 65,
  OpInBoundsPtrAccessChain = 70,
  OpDecorate = 71,
  OpMemberDecorate = 72,
  OpDecorationGroup = 73,
  OpLabel = 248,
  OpTypePipeStorage = 322,
  OpTypeNamedBarrier = 327,
};

// Where an instruction's own ids are: its result type and result (0: none) and the ids
// it names first (the target of a decoration or name, the function of an entry point).
struct IdLayout {
  unsigned ResultType = 0, Result = 0, Target = 0;
};

IdLayout layoutOf(uint16_t Op) {
  if (Op == OpString || Op == OpExtInstImport || Op == OpDecorationGroup || Op == OpLabel ||
      (Op >= OpTypeVoid && Op <= OpTypePipe) || Op == OpTypePipeStorage || Op == OpTypeNamedBarrier)
    return {0, 1, 0};
  if (Op == OpExtInst || (Op >= OpConstantTrue && Op <= OpConstantNull) ||
      (Op >= OpSpecConstantTrue && Op <= OpSpecConstantOp) ||
      (Op >= OpFunction && Op <= OpFunctionParameter) || Op == OpFunctionCall || Op == OpVariable ||
      Op == OpLoad || (Op >= OpAccessChain && Op <= OpInBoundsPtrAccessChain))
    return {1, 2, 0};
  if (Op == OpName || Op == OpMemberName || Op == OpDecorate || Op == OpMemberDecorate ||
      Op == OpExecutionMode || Op == OpStore || Op == OpTypeForwardPointer)
    return {0, 0, 1};
  if (Op == OpEntryPoint)
    return {0, 0, 2};
  return {};
}

// A module's words, read where they are (the bytes need not be aligned).
class ModuleWords {
public:
  ModuleWords(const void *Data, size_t Size)
      : Bytes(static_cast<const unsigned char *>(Data)), NumWords(Data == nullptr ? 0 : Size / 4) {}

  uint32_t operator()(size_t Index) const {
    uint32_t Value;
    std::memcpy(&Value, Bytes + Index * 4, 4);
    return Value;
  }
  // A literal string from word From up to word End (nul-terminated, packed little-endian).
  std::string string(size_t From, size_t End) const {
    std::string Text;
    for (size_t Byte = From * 4; Byte < End * 4 && Bytes[Byte] != 0; ++Byte)
      Text.push_back(static_cast<char>(Bytes[Byte]));
    return Text;
  }
  // Hands Visit(Op, At, End) each instruction before the first function (names,
  // decorations, entry points, execution modes, module-scope variables), words At to End;
  // stops where Visit returns false, and where the words do not tile (a module that was
  // not checked: nothing more is read).
  template <typename Visitor> void moduleScope(Visitor &&Visit) const {
    for (size_t At = SpirvHeaderWords; At < NumWords;) {
      const uint32_t Count = (*this)(At) >> 16;
      const auto Op = static_cast<uint16_t>((*this)(At)&0xFFFF);
      if (Count == 0 || Count > NumWords - At || Op == OpFunction)
        return;
      if (!Visit(Op, At, At + Count))
        return;
      At += Count;
    }
  }

private:
  const unsigned char *Bytes;
  size_t NumWords;
};

} // namespace

pi_result checkSpirvModule(const char *Function, const void *Data, size_t Size) {
  auto Malformed = [Function](const std::string &What) {
    return fail(PI_ERROR_INVALID_BINARY, "{}: the SPIR-V module is malformed: {}", Function, What);
  };
  if (Data == nullptr)
    return Malformed("no bytes (null pointer)");
  if (Size % 4 != 0)
    return Malformed("its size, " + std::to_string(Size) +
                     " bytes, is not a whole number of "
                     "32-bit words");
  if (Size < SpirvHeaderWords * 4)
    return Malformed("it has " + std::to_string(Size) + " bytes, fewer than the 20 of its header");
  const size_t NumWords = Size / 4;
  const ModuleWords Word(Data, Size);
  if (Word(0) != SpirvMagic) {
    if (Word(0) == 0x03022307u)
      return Malformed("it is big-endian (magic number 0x03022307), which is not read here");
    return Malformed(fmt::format("its magic number is 0x{:08x}, not 0x07230203", Word(0)));
  }
  const uint32_t Version = Word(1);
  if ((Version & 0xFF0000FFu) != 0 || (Version >> 16) != 1 || ((Version >> 8) & 0xFF) > 6)
    return Malformed(
        fmt::format("its version word 0x{:08x} is no SPIR-V version (1.0 to 1.6)", Version));
  const uint32_t Bound = Word(3);
  // Every id is below the bound; SPIR-V's universal limits (section 2.17) allow ids up to
  // 4,194,303, and readers allocate by the bound.
  if (Bound == 0)
    return Malformed("its id bound (word 3) is 0");
  if (Bound > MaxIdBound)
    return Malformed(
        fmt::format("its id bound {} is beyond SPIR-V's limit of {} ids", Bound, MaxIdBound - 1));
  if (Word(4) != 0)
    return Malformed("its schema (word 4) is " + std::to_string(Word(4)) + ", not 0");
  if (NumWords == SpirvHeaderWords)
    return Malformed("it has no instructions after its header");

  std::vector<bool> Defined(Bound, false);
  size_t MemoryModels = 0;
  size_t FunctionAt = 0; // the OpFunction of the function being read, 0 outside one
  for (size_t At = SpirvHeaderWords; At < NumWords;) {
    const uint32_t Count = Word(At) >> 16;
    const auto Op = static_cast<uint16_t>(Word(At) & 0xFFFF);
    if (Count == 0)
      return Malformed(
          fmt::format("the instruction at word {} (opcode {}) has a word count of 0", At, Op));
    if (Count > NumWords - At)
      return Malformed(fmt::format("the instruction at word {} (opcode {}) has {} words but only "
                                   "{} remain",
                                   At, Op, Count, NumWords - At));
    const IdLayout Layout = layoutOf(Op);
    for (unsigned Position : {Layout.ResultType, Layout.Result, Layout.Target}) {
      if (Position == 0)
        continue;
      if (Position >= Count)
        return Malformed(fmt::format("the instruction at word {} (opcode {}) has {} words, too few "
                                     "for its ids",
                                     At, Op, Count));
      const uint32_t Id = Word(At + Position);
      if (Id == 0 || Id >= Bound)
        return Malformed(fmt::format("the instruction at word {} (opcode {}) names id {}, outside "
                                     "the bound 1 to {}",
                                     At, Op, Id, Bound - 1));
    }
    if (Layout.Result != 0) {
      const uint32_t Id = Word(At + Layout.Result);
      if (Defined[Id])
        return Malformed(fmt::format("the instruction at word {} (opcode {}) defines id {} a "
                                     "second time",
                                     At, Op, Id));
      Defined[Id] = true;
    }
    if (Op == OpMemoryModel)
      ++MemoryModels;
    if (Op == OpFunction) {
      if (FunctionAt != 0)
        return Malformed(fmt::format("the function at word {} begins inside the function at "
                                     "word {}",
                                     At, FunctionAt));
      FunctionAt = At;
    } else if (Op == OpFunctionEnd) {
      if (FunctionAt == 0)
        return Malformed(fmt::format("the OpFunctionEnd at word {} ends no function", At));
      FunctionAt = 0;
    }
    At += Count;
  }
  if (FunctionAt != 0)
    return Malformed(fmt::format("the function at word {} has no OpFunctionEnd", FunctionAt));
  if (MemoryModels != 1)
    return Malformed("it has " + std::to_string(MemoryModels) +
                     " OpMemoryModel instructions, not exactly one");
  return PI_SUCCESS;
}

std::map<std::string, std::string> spirvHostAccessNames(const void *Data, size_t Size) {
  // Decorations (SPIR-V section 3.20): LinkageAttributes, and HostAccessINTEL under the
  // number llvm-spirv 15 writes (6147, before SPV_INTEL_global_variable_host_access was
  // published) and the published one (6188).
  constexpr uint32_t LinkageAttributes = 41, HostAccessOld = 6147, HostAccess = 6188;
  const ModuleWords Word(Data, Size);
  std::map<uint32_t, std::string> Names, Linkage, HostNames;
  Word.moduleScope([&](uint16_t Op, size_t At, size_t End) {
    const size_t Count = End - At;
    if (Op == OpName && Count >= 3)
      Names[Word(At + 1)] = Word.string(At + 2, End);
    else if (Op == OpDecorate && Count >= 4) {
      const uint32_t Decoration = Word(At + 2);
      if (Decoration == LinkageAttributes)
        Linkage[Word(At + 1)] = Word.string(At + 3, End);
      else if ((Decoration == HostAccessOld || Decoration == HostAccess) && Count >= 5)
        HostNames[Word(At + 1)] = Word.string(At + 4, End);
    }
    return true;
  });
  std::map<std::string, std::string> Result;
  for (const auto &[Id, HostName] : HostNames) {
    const auto Linked = Linkage.find(Id);
    const auto Named = Names.find(Id);
    const std::string *Symbol = Linked != Linkage.end() ? &Linked->second
                                : Named != Names.end()  ? &Named->second
                                                        : nullptr;
    if (Symbol != nullptr && !Symbol->empty() && !HostName.empty())
      Result.emplace(*Symbol, HostName);
  }
  return Result;
}

std::map<std::string, std::array<uint32_t, 3>> spirvRequiredGroupSizes(const void *Data,
                                                                       size_t Size) {
  // SPIR-V section 3.32: OpEntryPoint is execution model, entry id, name; OpExecutionMode is
  // entry id, mode, literals; mode LocalSize (17) takes x, y, z.
  constexpr uint32_t LocalSize = 17;
  const ModuleWords Word(Data, Size);
  std::map<uint32_t, std::string> Entries;
  std::map<uint32_t, std::array<uint32_t, 3>> Sizes;
  Word.moduleScope([&](uint16_t Op, size_t At, size_t End) {
    const size_t Count = End - At;
    if (Op == OpEntryPoint && Count >= 4)
      Entries[Word(At + 2)] = Word.string(At + 3, End);
    else if (Op == OpExecutionMode && Count >= 6 && Word(At + 2) == LocalSize)
      Sizes[Word(At + 1)] = {Word(At + 3), Word(At + 4), Word(At + 5)};
    return true;
  });
  std::map<std::string, std::array<uint32_t, 3>> Result;
  for (const auto &[Id, Required] : Sizes)
    if (const auto Entry = Entries.find(Id); Entry != Entries.end() && !Entry->second.empty())
      Result.emplace(Entry->second, Required);
  return Result;
}

bool spirvHasGlobalVariables(const void *Data, size_t Size) {
  constexpr uint32_t CrossWorkgroup = 5;
  const ModuleWords Word(Data, Size);
  bool Found = false;
  Word.moduleScope([&](uint16_t Op, size_t At, size_t End) {
    Found = Op == OpVariable && End - At >= 4 && Word(At + 3) == CrossWorkgroup;
    return !Found;
  });
  return Found;
}

} // namespace dglink::device_code
