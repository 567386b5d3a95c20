// The test driver's SPIR-V reader (see spirv_module.h). It reads the logical
// layout only as far as the driver needs it: types and constants to size and
// initialise program-scope variables, decorations for names and linkage,
// entry points for kernels. Everything it reads is bounds-checked.
#include "spirv_module.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

namespace dglink::ze_test {

std::vector<std::string> SpirvModule::imports() const {
  std::vector<std::string> Names = ImportedFunctions;
  for (const SpirvGlobal &Global : Globals)
    if (!Global.ImportName.empty())
      Names.push_back(Global.ImportName);
  return Names;
}

std::vector<std::string> SpirvModule::exports() const {
  std::vector<std::string> Names = ExportedFunctions;
  for (const SpirvGlobal &Global : Globals)
    if (!Global.ExportName.empty())
      Names.push_back(Global.ExportName);
  return Names;
}

namespace {

constexpr uint32_t Magic = 0x07230203;
// Sizes above this are refused: a module cannot declare more storage than a
// test needs, and the arithmetic below stays far from overflow.
constexpr uint64_t MaxGlobalBytes = uint64_t(1) << 32;

enum Opcode : uint32_t {
  OpUndef = 1,
  OpName = 5,
  OpMemoryModel = 14,
  OpEntryPoint = 15,
  OpTypeVoid = 19,
  OpTypeBool = 20,
  OpTypeInt = 21,
  OpTypeFloat = 22,
  OpTypeVector = 23,
  OpTypeArray = 28,
  OpTypeStruct = 30,
  OpTypePointer = 32,
  OpTypeFunction = 33,
  OpTypeForwardPointer = 39,
  OpConstantTrue = 41,
  OpConstantFalse = 42,
  OpConstant = 43,
  OpConstantComposite = 44,
  OpConstantNull = 46,
  OpFunction = 54,
  OpFunctionEnd = 56,
  OpVariable = 59,
  OpDecorate = 71,
};

enum Decoration : uint32_t {
  CPacked = 10,
  BuiltIn = 11,
  LinkageAttributes = 41,
  HostAccessIntelPreStandard = 6147, // what llvm-spirv 15 writes (FACTS.md)
  HostAccessIntel = 6188,
};

enum StorageClass : uint32_t { UniformConstant = 0, Workgroup = 4, CrossWorkgroup = 5 };
constexpr uint32_t ExecutionModelKernel = 6;
constexpr uint32_t LinkageExport = 0, LinkageImport = 1;

struct Type {
  enum Kind {
    Void,
    Bool,
    Int,
    Float,
    Vector,
    Array,
    Struct,
    Pointer,
    Function,
    Unsized
  } K = Unsized;
  uint64_t Size = 0;
  uint64_t Align = 1;
  uint32_t Element = 0;          // vector / array element type
  uint64_t Count = 0;            // vector / array length
  std::vector<uint32_t> Members; // struct members; function parameters
  std::vector<uint64_t> Offsets; // struct member offsets
  uint32_t Storage = 0;          // a pointer's storage class
  bool sized() const { return K != Void && K != Function && K != Unsized; }
};

struct Constant {
  enum Kind { Scalar, Composite, Null, Unsupported } K = Unsupported;
  uint32_t TypeId = 0;
  std::vector<uint32_t> Words; // scalar value words, or constituent ids
};

struct Variable {
  uint32_t PointerType = 0;
  uint32_t Storage = 0;
  uint32_t Initializer = 0;
};

struct Decorations {
  bool Packed = false;
  bool IsBuiltIn = false;
  std::string ExportName, ImportName;
  bool HasHostAccess = false;
  uint32_t HostAccessMode = 0;
  std::string HostAccessName;
};

struct EntryPoint {
  uint32_t Function = 0;
  std::string Name;
};

// One instruction: its operands (the words after the opcode word).
struct Instruction {
  const uint32_t *Operands;
  uint32_t NumOperands;
  size_t Word; // index of its first word in the module
  uint32_t Opcode;
};

class Reader {
public:
  Reader(const uint32_t *TheWords, size_t TheNumWords, std::string &TheError)
      : Words(TheWords), NumWords(TheNumWords), Error(TheError) {}

  bool read(SpirvModule &Out);

private:
  bool fail(const Instruction &I, const std::string &What) {
    Error = "SPIR-V word " + std::to_string(I.Word) + " (opcode " + std::to_string(I.Opcode) +
            "): " + What;
    return false;
  }
  bool word(const Instruction &I, uint32_t Index, uint32_t &Out) {
    if (Index >= I.NumOperands)
      return fail(I, "too few operands (" + std::to_string(I.NumOperands) + ")");
    Out = I.Operands[Index];
    return true;
  }
  bool id(const Instruction &I, uint32_t Index, uint32_t &Out) {
    if (!word(I, Index, Out))
      return false;
    if (Out == 0 || Out >= Bound)
      return fail(I,
                  "id " + std::to_string(Out) + " is outside the bound " + std::to_string(Bound));
    return true;
  }
  // A NUL-terminated literal string starting at operand Index; Next is the
  // operand after it.
  bool string(const Instruction &I, uint32_t Index, std::string &Out, uint32_t &Next) {
    if (Index >= I.NumOperands)
      return fail(I, "a string operand is missing");
    const auto *Bytes = reinterpret_cast<const char *>(I.Operands + Index);
    const size_t Room = size_t(I.NumOperands - Index) * 4;
    const void *End = std::memchr(Bytes, '\0', Room);
    if (End == nullptr)
      return fail(I, "a string operand is not NUL-terminated within the instruction");
    const size_t Length = static_cast<const char *>(End) - Bytes;
    Out.assign(Bytes, Length);
    Next = Index + static_cast<uint32_t>(Length / 4 + 1);
    return true;
  }
  bool define(const Instruction &I, uint32_t Id) {
    if (!Defined.insert(Id).second)
      return fail(I, "id " + std::to_string(Id) + " is defined twice");
    return true;
  }
  const Type *typeOf(uint32_t Id) const {
    auto It = Types.find(Id);
    return It == Types.end() ? nullptr : &It->second;
  }
  bool requireType(const Instruction &I, uint32_t Id, const Type *&Out) {
    Out = typeOf(Id);
    if (Out == nullptr)
      return fail(I, "id " + std::to_string(Id) + " is not a type defined before its use");
    return true;
  }
  bool requireSized(const Instruction &I, uint32_t Id, const Type *&Out) {
    if (!requireType(I, Id, Out))
      return false;
    if (!Out->sized())
      return fail(I, "type " + std::to_string(Id) + " has no size");
    return true;
  }

  bool instruction(const Instruction &I);
  bool typeInstruction(const Instruction &I);
  bool constantInstruction(const Instruction &I);
  bool decorate(const Instruction &I);
  // Writes constant Id of type TypeId into Out (Room bytes); false if the
  // constant is not one the reader evaluates (the variable is then zeroed).
  bool emit(uint32_t Id, uint32_t TypeId, uint8_t *Out, uint64_t Room, int Depth) const;
  bool finish(SpirvModule &Out);

  const uint32_t *Words;
  size_t NumWords;
  std::string &Error;
  uint32_t Bound = 0;
  uint32_t PointerSize = 8;
  bool InFunction = false;
  std::set<uint32_t> Defined;
  std::map<uint32_t, Type> Types;
  std::map<uint32_t, Constant> Constants;
  std::map<uint32_t, Variable> Variables; // module scope, in order of ids
  std::vector<uint32_t> VariableOrder;
  std::map<uint32_t, uint32_t> Functions; // id -> function type
  std::map<uint32_t, Decorations> Decorated;
  std::map<uint32_t, std::string> Names;
  std::vector<EntryPoint> EntryPoints;
};

bool Reader::read(SpirvModule &Out) {
  Bound = Words[3];
  if (Bound == 0 || Bound > (1u << 22)) {
    Error = "SPIR-V header: id bound " + std::to_string(Bound) + " is not in 1..4194304";
    return false;
  }
  size_t Pos = 5;
  while (Pos < NumWords) {
    const uint32_t First = Words[Pos];
    const uint32_t Count = First >> 16;
    Instruction I{Words + Pos + 1, Count == 0 ? 0 : Count - 1, Pos, First & 0xFFFFu};
    if (Count == 0)
      return fail(I, "word count 0");
    if (Count > NumWords - Pos)
      return fail(I, "word count " + std::to_string(Count) + " runs past the end of the module (" +
                         std::to_string(NumWords) + " words)");
    if (!instruction(I))
      return false;
    Pos += Count;
  }
  if (InFunction) {
    Error = "SPIR-V: the last function has no OpFunctionEnd";
    return false;
  }
  return finish(Out);
}

bool Reader::instruction(const Instruction &I) {
  switch (I.Opcode) {
  case OpName: {
    uint32_t Target = 0, Next = 0;
    std::string Name;
    if (!id(I, 0, Target) || !string(I, 1, Name, Next))
      return false;
    Names[Target] = Name;
    return true;
  }
  case OpMemoryModel: {
    uint32_t Addressing = 0;
    if (!word(I, 0, Addressing))
      return false;
    PointerSize = Addressing == 1 ? 4 : 8; // Physical32, else Physical64 / Logical
    return true;
  }
  case OpEntryPoint: {
    EntryPoint Entry;
    uint32_t Model = 0, Next = 0;
    if (!word(I, 0, Model) || !id(I, 1, Entry.Function) || !string(I, 2, Entry.Name, Next))
      return false;
    for (uint32_t Operand = Next; Operand < I.NumOperands; ++Operand) {
      uint32_t Interface = 0;
      if (!id(I, Operand, Interface))
        return false;
    }
    if (Model == ExecutionModelKernel)
      EntryPoints.push_back(std::move(Entry));
    return true;
  }
  case OpDecorate:
    return decorate(I);
  case OpFunction: {
    uint32_t Result = 0, FunctionType = 0, Ignored = 0;
    if (InFunction)
      return fail(I, "OpFunction inside a function");
    if (!id(I, 0, Ignored) || !id(I, 1, Result) || !id(I, 3, FunctionType) || !define(I, Result))
      return false;
    const Type *T = typeOf(FunctionType);
    if (T == nullptr || T->K != Type::Function)
      return fail(I, "function " + std::to_string(Result) + ": " + std::to_string(FunctionType) +
                         " is not a function type");
    Functions[Result] = FunctionType;
    InFunction = true;
    return true;
  }
  case OpFunctionEnd:
    if (!InFunction)
      return fail(I, "OpFunctionEnd outside a function");
    InFunction = false;
    return true;
  case OpVariable: {
    if (InFunction)
      return true; // function-scope storage is the device's business
    Variable V;
    uint32_t Result = 0;
    if (!id(I, 0, V.PointerType) || !id(I, 1, Result) || !word(I, 2, V.Storage) ||
        !define(I, Result))
      return false;
    if (I.NumOperands > 3 && !id(I, 3, V.Initializer))
      return false;
    const Type *T = typeOf(V.PointerType);
    if (T == nullptr || T->K != Type::Pointer)
      return fail(I, "variable " + std::to_string(Result) + ": " + std::to_string(V.PointerType) +
                         " is not a pointer type");
    Variables[Result] = V;
    VariableOrder.push_back(Result);
    return true;
  }
  case OpUndef:
    if (InFunction)
      return true;
    [[fallthrough]];
  case OpConstantTrue:
  case OpConstantFalse:
  case OpConstant:
  case OpConstantComposite:
  case OpConstantNull:
    return constantInstruction(I);
  case OpTypeVoid:
  case OpTypeBool:
  case OpTypeInt:
  case OpTypeFloat:
  case OpTypeVector:
  case OpTypeArray:
  case OpTypeStruct:
  case OpTypePointer:
  case OpTypeFunction:
  case OpTypeForwardPointer:
    return typeInstruction(I);
  default:
    // Other type declarations (images, opaque types, ...) are types without a
    // size: remember them so that pointers to them are still pointers.
    if (!InFunction && I.Opcode >= 19 && I.Opcode <= 39 && I.NumOperands >= 1) {
      uint32_t Result = 0;
      if (!id(I, 0, Result) || !define(I, Result))
        return false;
      Types[Result] = Type{};
    }
    return true;
  }
}

bool Reader::typeInstruction(const Instruction &I) {
  uint32_t Result = 0;
  if (!id(I, 0, Result))
    return false;
  if (I.Opcode == OpTypeForwardPointer) {
    // Declares the pointer type's id ahead of its OpTypePointer, so that a
    // struct may hold a pointer to itself.
    uint32_t Storage = 0;
    if (!word(I, 1, Storage))
      return false;
    Type Forward;
    Forward.K = Type::Pointer;
    Forward.Size = Forward.Align = PointerSize;
    Types.emplace(Result, Forward);
    return true;
  }
  if (!define(I, Result))
    return false;
  Type T;
  switch (I.Opcode) {
  case OpTypeVoid:
    T.K = Type::Void;
    break;
  case OpTypeBool:
    T.K = Type::Bool;
    T.Size = T.Align = 1;
    break;
  case OpTypeInt:
  case OpTypeFloat: {
    uint32_t Width = 0;
    if (!word(I, 1, Width))
      return false;
    const bool Valid = I.Opcode == OpTypeInt
                           ? (Width == 8 || Width == 16 || Width == 32 || Width == 64)
                           : (Width == 16 || Width == 32 || Width == 64);
    if (!Valid)
      return fail(I, "unsupported " + std::string(I.Opcode == OpTypeInt ? "integer" : "float") +
                         " width " + std::to_string(Width));
    T.K = I.Opcode == OpTypeInt ? Type::Int : Type::Float;
    T.Size = T.Align = Width / 8;
    break;
  }
  case OpTypeVector: {
    uint32_t Element = 0, Count = 0;
    const Type *E = nullptr;
    if (!id(I, 1, Element) || !word(I, 2, Count) || !requireSized(I, Element, E))
      return false;
    if (Count != 2 && Count != 3 && Count != 4 && Count != 8 && Count != 16)
      return fail(I, "vector of " + std::to_string(Count) + " components");
    T.K = Type::Vector;
    T.Element = Element;
    T.Count = Count;
    T.Size = T.Align = E->Size * (Count == 3 ? 4 : Count);
    break;
  }
  case OpTypeArray: {
    uint32_t Element = 0, LengthId = 0;
    const Type *E = nullptr;
    if (!id(I, 1, Element) || !id(I, 2, LengthId) || !requireSized(I, Element, E))
      return false;
    auto C = Constants.find(LengthId);
    const Type *LengthType = C == Constants.end() ? nullptr : typeOf(C->second.TypeId);
    if (C == Constants.end() || C->second.K != Constant::Scalar || LengthType == nullptr ||
        LengthType->K != Type::Int)
      return fail(I, "array length " + std::to_string(LengthId) + " is not an integer constant");
    uint64_t Length = C->second.Words[0];
    if (C->second.Words.size() > 1)
      Length |= uint64_t(C->second.Words[1]) << 32;
    const uint64_t Stride = (E->Size + E->Align - 1) / E->Align * E->Align;
    if (Length == 0 || Length > MaxGlobalBytes || Stride * Length > MaxGlobalBytes)
      return fail(I, "array of " + std::to_string(Length) + " elements of " +
                         std::to_string(Stride) + " bytes is empty or too large");
    T.K = Type::Array;
    T.Element = Element;
    T.Count = Length;
    T.Size = Stride * Length;
    T.Align = E->Align;
    break;
  }
  case OpTypeStruct: {
    T.K = Type::Struct;
    auto D = Decorated.find(Result);
    const bool Packed = D != Decorated.end() && D->second.Packed;
    uint64_t Offset = 0;
    for (uint32_t Operand = 1; Operand < I.NumOperands; ++Operand) {
      uint32_t Member = 0;
      const Type *M = nullptr;
      if (!id(I, Operand, Member) || !requireSized(I, Member, M))
        return false;
      const uint64_t Align = Packed ? 1 : M->Align;
      Offset = (Offset + Align - 1) / Align * Align;
      T.Members.push_back(Member);
      T.Offsets.push_back(Offset);
      Offset += M->Size;
      if (Offset > MaxGlobalBytes)
        return fail(I, "struct is too large");
      T.Align = std::max(T.Align, Align);
    }
    T.Size = (Offset + T.Align - 1) / T.Align * T.Align;
    if (T.Size == 0)
      return fail(I, "empty struct");
    break;
  }
  case OpTypePointer: {
    uint32_t Storage = 0, Pointee = 0;
    if (!word(I, 1, Storage) || !id(I, 2, Pointee))
      return false;
    T.K = Type::Pointer;
    T.Element = Pointee; // may be forward-declared: checked where it is used
    T.Storage = Storage;
    T.Size = T.Align = PointerSize;
    break;
  }
  case OpTypeFunction: {
    uint32_t Return = 0;
    const Type *R = nullptr;
    if (!id(I, 1, Return) || !requireType(I, Return, R))
      return false;
    T.K = Type::Function;
    for (uint32_t Operand = 2; Operand < I.NumOperands; ++Operand) {
      uint32_t Parameter = 0;
      const Type *P = nullptr;
      if (!id(I, Operand, Parameter) || !requireType(I, Parameter, P))
        return false;
      T.Members.push_back(Parameter);
    }
    break;
  }
  default:
    break;
  }
  Types[Result] = std::move(T);
  return true;
}

bool Reader::constantInstruction(const Instruction &I) {
  uint32_t TypeId = 0, Result = 0;
  const Type *T = nullptr;
  if (!id(I, 0, TypeId) || !id(I, 1, Result) || !requireType(I, TypeId, T) || !define(I, Result))
    return false;
  Constant C;
  C.TypeId = TypeId;
  switch (I.Opcode) {
  case OpConstantTrue:
  case OpConstantFalse:
    if (T->K != Type::Bool)
      return fail(I, "boolean constant of a type that is not bool");
    C.K = Constant::Scalar;
    C.Words.push_back(I.Opcode == OpConstantTrue ? 1 : 0);
    break;
  case OpConstant: {
    if (T->K != Type::Int && T->K != Type::Float)
      return fail(I, "OpConstant " + std::to_string(Result) + " of a type that is not scalar");
    const uint32_t Needed = T->Size > 4 ? 2 : 1;
    if (I.NumOperands != 2 + Needed)
      return fail(I, "OpConstant " + std::to_string(Result) + " has " +
                         std::to_string(I.NumOperands - 2) + " value words, " +
                         std::to_string(Needed) + " expected");
    C.K = Constant::Scalar;
    C.Words.assign(I.Operands + 2, I.Operands + 2 + Needed);
    break;
  }
  case OpConstantComposite: {
    C.K = Constant::Composite;
    for (uint32_t Operand = 2; Operand < I.NumOperands; ++Operand) {
      uint32_t Part = 0;
      if (!id(I, Operand, Part))
        return false;
      if (Constants.find(Part) == Constants.end())
        C.K = Constant::Unsupported; // a specialisation constant or another expression
      C.Words.push_back(Part);
    }
    const size_t Expected = T->K == Type::Struct                            ? T->Members.size()
                            : (T->K == Type::Array || T->K == Type::Vector) ? T->Count
                                                                            : 0;
    if (C.Words.size() != Expected)
      return fail(I, "composite constant " + std::to_string(Result) + " has " +
                         std::to_string(C.Words.size()) + " constituents, its type " +
                         std::to_string(Expected));
    break;
  }
  default: // OpConstantNull, OpUndef
    C.K = Constant::Null;
    break;
  }
  Constants[Result] = std::move(C);
  return true;
}

bool Reader::decorate(const Instruction &I) {
  uint32_t Target = 0, Kind = 0;
  if (!id(I, 0, Target) || !word(I, 1, Kind))
    return false;
  Decorations &D = Decorated[Target];
  switch (Kind) {
  case CPacked:
    D.Packed = true;
    return true;
  case BuiltIn:
    D.IsBuiltIn = true;
    return true;
  case LinkageAttributes: {
    std::string Name;
    uint32_t Next = 0, Linkage = 0;
    if (!string(I, 2, Name, Next) || !word(I, Next, Linkage))
      return false;
    if (Name.empty())
      return fail(I, "LinkageAttributes with an empty name");
    if (Linkage == LinkageExport)
      D.ExportName = Name;
    else if (Linkage == LinkageImport)
      D.ImportName = Name;
    return true; // LinkOnceODR and others: neither an import nor an export here
  }
  case HostAccessIntelPreStandard:
  case HostAccessIntel: {
    uint32_t Next = 0;
    if (!word(I, 2, D.HostAccessMode) || !string(I, 3, D.HostAccessName, Next))
      return false;
    if (D.HostAccessMode > 3)
      return fail(I, "HostAccessINTEL mode " + std::to_string(D.HostAccessMode) + " is not 0..3");
    D.HasHostAccess = true;
    return true;
  }
  default:
    return true;
  }
}

bool Reader::emit(uint32_t Id, uint32_t TypeId, uint8_t *Out, uint64_t Room, int Depth) const {
  auto C = Constants.find(Id);
  const Type *T = typeOf(TypeId);
  if (C == Constants.end() || T == nullptr || C->second.TypeId != TypeId || T->Size > Room ||
      Depth > 64)
    return false;
  switch (C->second.K) {
  case Constant::Null:
    std::memset(Out, 0, T->Size);
    return true;
  case Constant::Scalar: {
    uint8_t Bytes[8] = {};
    for (size_t W = 0; W < C->second.Words.size() && W < 2; ++W)
      for (int B = 0; B < 4; ++B)
        Bytes[W * 4 + B] = static_cast<uint8_t>(C->second.Words[W] >> (8 * B));
    std::memcpy(Out, Bytes, std::min<uint64_t>(T->Size, 8));
    return true;
  }
  case Constant::Composite: {
    std::memset(Out, 0, T->Size);
    for (size_t Part = 0; Part < C->second.Words.size(); ++Part) {
      uint32_t PartType = T->Element;
      uint64_t Offset = 0;
      if (T->K == Type::Struct) {
        PartType = T->Members[Part];
        Offset = T->Offsets[Part];
      } else {
        const Type *E = typeOf(T->Element);
        if (E == nullptr)
          return false;
        Offset = Part * ((E->Size + E->Align - 1) / E->Align * E->Align);
      }
      if (Offset > T->Size ||
          !emit(C->second.Words[Part], PartType, Out + Offset, T->Size - Offset, Depth + 1))
        return false;
    }
    return true;
  }
  case Constant::Unsupported:
    return false;
  }
  return false;
}

bool Reader::finish(SpirvModule &Out) {
  Out.Bound = Bound;
  Out.PointerSize = PointerSize;
  auto DecorationsOf = [&](uint32_t Id) {
    auto It = Decorated.find(Id);
    return It == Decorated.end() ? Decorations{} : It->second;
  };
  for (uint32_t Id : VariableOrder) {
    const Variable &V = Variables[Id];
    if (V.Storage != CrossWorkgroup && V.Storage != UniformConstant)
      continue;
    const Decorations D = DecorationsOf(Id);
    if (D.IsBuiltIn)
      continue;
    const Type *Pointer = typeOf(V.PointerType);
    const Type *Pointee = Pointer == nullptr ? nullptr : typeOf(Pointer->Element);
    SpirvGlobal Global;
    Global.Id = Id;
    auto Name = Names.find(Id);
    if (Name != Names.end())
      Global.DebugName = Name->second;
    Global.ExportName = D.ExportName;
    Global.ImportName = D.ImportName;
    Global.HasHostAccess = D.HasHostAccess;
    Global.HostAccessMode = D.HostAccessMode;
    Global.HostAccessName = D.HostAccessName;
    if (Pointee == nullptr || !Pointee->sized()) {
      if (V.Storage == UniformConstant && Global.HostAccessName.empty() &&
          Global.ExportName.empty())
        continue; // samplers and the like: nothing the host can reach
      Error = "SPIR-V: variable " + std::to_string(Id) +
              (Global.DebugName.empty() ? "" : " (" + Global.DebugName + ")") +
              " has a type without a size";
      return false;
    }
    Global.Size = Pointee->Size;
    Global.Alignment = Pointee->Align;
    if (V.Initializer != 0) {
      if (Constants.find(V.Initializer) == Constants.end() &&
          Variables.find(V.Initializer) == Variables.end()) {
        Error = "SPIR-V: variable " + std::to_string(Id) + " is initialised with id " +
                std::to_string(V.Initializer) + ", which is not a constant";
        return false;
      }
      Global.Initializer.assign(Global.Size, 0);
      // Initializers the reader cannot evaluate (addresses, spec constants)
      // leave the variable zeroed.
      if (!emit(V.Initializer, Pointer->Element, Global.Initializer.data(), Global.Size, 0))
        Global.Initializer.clear();
    }
    Out.Globals.push_back(std::move(Global));
  }
  for (const auto &[Id, FunctionType] : Functions) {
    const Decorations D = DecorationsOf(Id);
    if (!D.ExportName.empty())
      Out.ExportedFunctions.push_back(D.ExportName);
    if (!D.ImportName.empty() && !D.IsBuiltIn)
      Out.ImportedFunctions.push_back(D.ImportName);
  }
  for (const EntryPoint &Entry : EntryPoints) {
    auto Function = Functions.find(Entry.Function);
    if (Function == Functions.end()) {
      Error = "SPIR-V: entry point '" + Entry.Name + "' names " + std::to_string(Entry.Function) +
              ", which is not a function";
      return false;
    }
    SpirvKernel Kernel;
    Kernel.Name = Entry.Name;
    for (uint32_t Parameter : Types[Function->second].Members) {
      const Type *P = typeOf(Parameter);
      Kernel.ParameterSizes.push_back(P != nullptr && P->sized() ? P->Size : PointerSize);
      Kernel.LocalParameters.push_back(P != nullptr && P->K == Type::Pointer &&
                                       P->Storage == Workgroup);
    }
    Out.Kernels.push_back(std::move(Kernel));
  }
  return true;
}

} // namespace

bool readSpirvModule(const void *Data, size_t Size, SpirvModule &Out, std::string &Error) {
  if (Data == nullptr || Size < 20) {
    Error = "SPIR-V: " + std::to_string(Size) + " bytes is shorter than the 20-byte header";
    return false;
  }
  if (Size % 4 != 0) {
    Error = "SPIR-V: " + std::to_string(Size) + " bytes is not a whole number of words";
    return false;
  }
  // A copy: the caller's bytes need not be aligned for uint32_t.
  std::vector<uint32_t> Words(Size / 4);
  std::memcpy(Words.data(), Data, Size);
  if (Words[0] != Magic) {
    Error = Words[0] == 0x03022307u ? "SPIR-V: big-endian modules are not supported"
                                    : "SPIR-V: bad magic number";
    return false;
  }
  const uint32_t Version = Words[1];
  const uint32_t Major = (Version >> 16) & 0xFF, Minor = (Version >> 8) & 0xFF;
  if ((Version & 0xFF0000FFu) != 0 || Major != 1 || Minor > 6) {
    Error = "SPIR-V: unsupported version word " + std::to_string(Version);
    return false;
  }
  SpirvModule Module;
  Module.Version = Version;
  Reader R(Words.data(), Words.size(), Error);
  if (!R.read(Module))
    return false;
  Out = std::move(Module);
  return true;
}

} // namespace dglink::ze_test
