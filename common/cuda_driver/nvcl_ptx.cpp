// Scanning PTX for its functions and repairing the OpenCL flavour of clang's PTX.
#include "nvcl_ptx.h"

#include <algorithm>
#include <map>

namespace dglink::cuda {
namespace {

bool isIdentifierChar(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || (C >= '0' && C <= '9') || C == '_' ||
         C == '$' || C == '%';
}

// Skips whitespace and comments from Pos; returns the new position.
size_t skipSpace(std::string_view Text, size_t Pos) {
  while (Pos < Text.size()) {
    const char C = Text[Pos];
    if (C == ' ' || C == '\t' || C == '\n' || C == '\r') {
      ++Pos;
    } else if (C == '/' && Pos + 1 < Text.size() && Text[Pos + 1] == '/') {
      const size_t End = Text.find('\n', Pos);
      Pos = End == std::string_view::npos ? Text.size() : End + 1;
    } else if (C == '/' && Pos + 1 < Text.size() && Text[Pos + 1] == '*') {
      const size_t End = Text.find("*/", Pos + 2);
      Pos = End == std::string_view::npos ? Text.size() : End + 2;
    } else {
      break;
    }
  }
  return Pos;
}

// Pos is at '('; returns the position after the matching ')'.
size_t skipParens(std::string_view Text, size_t Pos) {
  int Depth = 0;
  while (Pos < Text.size()) {
    Pos = skipSpace(Text, Pos);
    if (Pos >= Text.size())
      break;
    const char C = Text[Pos++];
    if (C == '(')
      ++Depth;
    else if (C == ')' && --Depth == 0)
      return Pos;
  }
  return Pos;
}

bool startsWithWord(std::string_view Text, size_t Pos, std::string_view Word) {
  return Text.substr(Pos, Word.size()) == Word &&
         (Pos + Word.size() >= Text.size() || !isIdentifierChar(Text[Pos + Word.size()]));
}

// The linkage word written right before Pos (".visible .func"), if any.
std::string linkageBefore(std::string_view Text, size_t Pos) {
  size_t End = Pos;
  while (End > 0 && (Text[End - 1] == ' ' || Text[End - 1] == '\t' || Text[End - 1] == '\n' ||
                     Text[End - 1] == '\r'))
    --End;
  size_t Begin = End;
  while (Begin > 0 && (isIdentifierChar(Text[Begin - 1]) || Text[Begin - 1] == '.'))
    --Begin;
  const std::string_view Word = Text.substr(Begin, End - Begin);
  if (Word == ".visible" || Word == ".extern" || Word == ".weak" || Word == ".common")
    return std::string(Word);
  return {};
}

// ---- definitions of the OpenCL work-item functions ----

enum class Register { GlobalId, LocalId, GroupId, LocalSize, GlobalSize, NumGroups, Zero };

// Code computing the value of R for component C ('x', 'y', 'z') into %rd1.
std::string componentValue(Register R, char C) {
  const std::string Dim(1, C);
  switch (R) {
  case Register::GlobalId:
    return "\tmov.u32 %r1, %ctaid." + Dim + ";\n\tmov.u32 %r2, %ntid." + Dim +
           ";\n\tmov.u32 %r3, %tid." + Dim +
           ";\n\tmul.wide.u32 %rd1, %r1, %r2;\n\tcvt.u64.u32 %rd2, %r3;\n"
           "\tadd.u64 %rd1, %rd1, %rd2;\n";
  case Register::LocalId:
    return "\tmov.u32 %r1, %tid." + Dim + ";\n\tcvt.u64.u32 %rd1, %r1;\n";
  case Register::GroupId:
    return "\tmov.u32 %r1, %ctaid." + Dim + ";\n\tcvt.u64.u32 %rd1, %r1;\n";
  case Register::LocalSize:
    return "\tmov.u32 %r1, %ntid." + Dim + ";\n\tcvt.u64.u32 %rd1, %r1;\n";
  case Register::GlobalSize:
    return "\tmov.u32 %r1, %nctaid." + Dim + ";\n\tmov.u32 %r2, %ntid." + Dim +
           ";\n\tmul.wide.u32 %rd1, %r1, %r2;\n";
  case Register::NumGroups:
    return "\tmov.u32 %r1, %nctaid." + Dim + ";\n\tcvt.u64.u32 %rd1, %r1;\n";
  case Register::Zero:
    break;
  }
  return "\tmov.u64 %rd1, 0;\n";
}

// size_t f(uint dim): the value for dim 0..2, Default outside.
std::string dimensionFunction(const std::string &Name, Register R, int Default) {
  std::string Body = ".func (.param .b64 func_retval0) " + Name + "(.param .b32 " + Name +
                     "_param_0)\n{\n\t.reg .pred %p<2>;\n\t.reg .b32 %r<5>;\n"
                     "\t.reg .b64 %rd<3>;\n\tld.param.u32 %r0, [" +
                     Name + "_param_0];\n\tmov.u64 %rd1, " + std::to_string(Default) + ";\n";
  const char Components[] = {'x', 'y', 'z'};
  for (int D = 0; D < 3; ++D)
    Body += "\tsetp.eq.u32 %p1, %r0, " + std::to_string(D) + ";\n\t@%p1 bra $Ldim" +
            std::to_string(D) + ";\n";
  Body += "\tbra $Ldone;\n";
  for (int D = 0; D < 3; ++D)
    Body +=
        "$Ldim" + std::to_string(D) + ":\n" + componentValue(R, Components[D]) + "\tbra $Ldone;\n";
  Body += "$Ldone:\n\tst.param.b64 [func_retval0], %rd1;\n\tret;\n}\n";
  return Body;
}

std::string voidFunction(const std::string &Name, int Params, const std::string &Instruction) {
  std::string Body = ".func " + Name + "(";
  for (int I = 0; I < Params; ++I)
    Body += std::string(I ? ", " : "") + ".param .b32 " + Name + "_param_" + std::to_string(I);
  Body += ")\n{\n\t" + Instruction + "\n\tret;\n}\n";
  return Body;
}

const std::map<std::string, std::string> &builtinDefinitions() {
  static const std::map<std::string, std::string> Definitions = [] {
    std::map<std::string, std::string> Map;
    auto AddDimension = [&Map](const char *Name, Register R, int Default) {
      Map[Name] = dimensionFunction(Name, R, Default);
    };
    AddDimension("_Z13get_global_idj", Register::GlobalId, 0);
    AddDimension("_Z12get_local_idj", Register::LocalId, 0);
    AddDimension("_Z12get_group_idj", Register::GroupId, 0);
    AddDimension("_Z14get_local_sizej", Register::LocalSize, 1);
    AddDimension("_Z23get_enqueued_local_sizej", Register::LocalSize, 1);
    AddDimension("_Z15get_global_sizej", Register::GlobalSize, 1);
    AddDimension("_Z14get_num_groupsj", Register::NumGroups, 1);
    // The adapter refuses non-zero global offsets, so the offset is always 0.
    AddDimension("_Z17get_global_offsetj", Register::Zero, 0);
    // The launch does not record its dimension count: the highest dimension with
    // more than one work-item is reported (a 2-D launch of height 1 says 1).
    Map["_Z12get_work_dimv"] =
        ".func (.param .b32 func_retval0) _Z12get_work_dimv()\n{\n"
        "\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n\tmov.u32 %r0, 1;\n"
        "\tmov.u32 %r1, %nctaid.y;\n\tmov.u32 %r2, %ntid.y;\n\tmul.lo.u32 %r3, %r1, %r2;\n"
        "\tsetp.gt.u32 %p1, %r3, 1;\n\t@%p1 mov.u32 %r0, 2;\n"
        "\tmov.u32 %r1, %nctaid.z;\n\tmov.u32 %r2, %ntid.z;\n\tmul.lo.u32 %r3, %r1, %r2;\n"
        "\tsetp.gt.u32 %p1, %r3, 1;\n\t@%p1 mov.u32 %r0, 3;\n"
        "\tst.param.b32 [func_retval0], %r0;\n\tret;\n}\n";
    Map["_Z20get_global_linear_idv"] =
        ".func (.param .b64 func_retval0) _Z20get_global_linear_idv()\n{\n"
        "\t.reg .b32 %r<4>;\n\t.reg .b64 %rd<9>;\n"
        // %rd3 = global id z, %rd4 = global size y, %rd5 = global id y,
        // %rd6 = global size x, %rd7 = global id x
        "\tmov.u32 %r1, %ctaid.z;\n\tmov.u32 %r2, %ntid.z;\n\tmov.u32 %r3, %tid.z;\n"
        "\tmul.wide.u32 %rd3, %r1, %r2;\n\tcvt.u64.u32 %rd1, %r3;\n\tadd.u64 %rd3, %rd3, %rd1;\n"
        "\tmov.u32 %r1, %nctaid.y;\n\tmov.u32 %r2, %ntid.y;\n\tmul.wide.u32 %rd4, %r1, %r2;\n"
        "\tmov.u32 %r1, %ctaid.y;\n\tmov.u32 %r3, %tid.y;\n"
        "\tmul.wide.u32 %rd5, %r1, %r2;\n\tcvt.u64.u32 %rd1, %r3;\n\tadd.u64 %rd5, %rd5, %rd1;\n"
        "\tmov.u32 %r1, %nctaid.x;\n\tmov.u32 %r2, %ntid.x;\n\tmul.wide.u32 %rd6, %r1, %r2;\n"
        "\tmov.u32 %r1, %ctaid.x;\n\tmov.u32 %r3, %tid.x;\n"
        "\tmul.wide.u32 %rd7, %r1, %r2;\n\tcvt.u64.u32 %rd1, %r3;\n\tadd.u64 %rd7, %rd7, %rd1;\n"
        "\tmad.lo.u64 %rd8, %rd3, %rd4, %rd5;\n\tmad.lo.u64 %rd8, %rd8, %rd6, %rd7;\n"
        "\tst.param.b64 [func_retval0], %rd8;\n\tret;\n}\n";
    Map["_Z19get_local_linear_idv"] =
        ".func (.param .b64 func_retval0) _Z19get_local_linear_idv()\n{\n"
        "\t.reg .b32 %r<7>;\n\t.reg .b64 %rd<2>;\n"
        "\tmov.u32 %r1, %tid.z;\n\tmov.u32 %r2, %ntid.y;\n\tmov.u32 %r3, %tid.y;\n"
        "\tmov.u32 %r4, %ntid.x;\n\tmov.u32 %r5, %tid.x;\n"
        "\tmad.lo.u32 %r6, %r1, %r2, %r3;\n\tmad.lo.u32 %r6, %r6, %r4, %r5;\n"
        "\tcvt.u64.u32 %rd1, %r6;\n\tst.param.b64 [func_retval0], %rd1;\n\tret;\n}\n";
    // bar.sync orders every state space among the threads of a block, which is
    // what OpenCL's work-group barrier promises for local and global memory.
    Map["_Z7barrierj"] = voidFunction("_Z7barrierj", 1, "bar.sync 0;");
    Map["_Z18work_group_barrierj"] = voidFunction("_Z18work_group_barrierj", 1, "bar.sync 0;");
    Map["_Z18work_group_barrierj12memory_scope"] =
        voidFunction("_Z18work_group_barrierj12memory_scope", 2, "bar.sync 0;");
    Map["_Z9mem_fencej"] = voidFunction("_Z9mem_fencej", 1, "membar.cta;");
    Map["_Z14read_mem_fencej"] = voidFunction("_Z14read_mem_fencej", 1, "membar.cta;");
    Map["_Z15write_mem_fencej"] = voidFunction("_Z15write_mem_fencej", 1, "membar.cta;");
    return Map;
  }();
  return Definitions;
}

} // namespace

std::vector<PtxFunction> scanPtxFunctions(std::string_view Ptx) {
  std::vector<PtxFunction> Functions;
  int Depth = 0;
  size_t Pos = 0;
  while (Pos < Ptx.size()) {
    const size_t Next = skipSpace(Ptx, Pos);
    if (Next != Pos) {
      Pos = Next;
      continue;
    }
    const char C = Ptx[Pos];
    if (C == '"') { // string literal (rare in PTX): skip it whole
      const size_t End = Ptx.find('"', Pos + 1);
      Pos = End == std::string_view::npos ? Ptx.size() : End + 1;
      continue;
    }
    if (C == '{') {
      ++Depth;
      ++Pos;
      continue;
    }
    if (C == '}') {
      --Depth;
      ++Pos;
      continue;
    }
    const bool WordStart = Pos == 0 || !isIdentifierChar(Ptx[Pos - 1]);
    if (Depth == 0 && C == '.' && WordStart &&
        (startsWithWord(Ptx, Pos, ".func") || startsWithWord(Ptx, Pos, ".entry"))) {
      PtxFunction Function;
      Function.IsEntry = Ptx[Pos + 1] == 'e';
      Function.Start = Pos;
      Function.Linkage = linkageBefore(Ptx, Pos);
      size_t Cursor = skipSpace(Ptx, Pos + (Function.IsEntry ? 6 : 5));
      if (Cursor < Ptx.size() && Ptx[Cursor] == '(') // return parameters
        Cursor = skipSpace(Ptx, skipParens(Ptx, Cursor));
      const size_t NameBegin = Cursor;
      while (Cursor < Ptx.size() && isIdentifierChar(Ptx[Cursor]))
        ++Cursor;
      Function.Name = std::string(Ptx.substr(NameBegin, Cursor - NameBegin));
      Cursor = skipSpace(Ptx, Cursor);
      if (Cursor < Ptx.size() && Ptx[Cursor] == '(')
        Cursor = skipParens(Ptx, Cursor);
      // Performance directives (.maxntid ...) may sit between the parameters and
      // the body; the first ';' or '{' decides.
      while (Cursor < Ptx.size()) {
        Cursor = skipSpace(Ptx, Cursor);
        if (Cursor >= Ptx.size() || Ptx[Cursor] == ';' || Ptx[Cursor] == '{')
          break;
        ++Cursor;
      }
      Function.Defined = Cursor < Ptx.size() && Ptx[Cursor] == '{';
      if (!Function.Name.empty())
        Functions.push_back(std::move(Function));
      Pos = Cursor; // the main loop counts the body's braces
      continue;
    }
    ++Pos;
  }
  return Functions;
}

std::vector<std::string> ptxKernelNames(std::string_view Ptx) {
  std::vector<std::string> Names;
  for (const PtxFunction &Function : scanPtxFunctions(Ptx))
    if (Function.IsEntry && Function.Defined &&
        std::find(Names.begin(), Names.end(), Function.Name) == Names.end())
      Names.push_back(Function.Name);
  return Names;
}

bool isOpenClFlavouredPtx(std::string_view Ptx) {
  const size_t Target = Ptx.find(".target");
  if (Target == std::string_view::npos)
    return false;
  const size_t LineEnd = Ptx.find('\n', Target);
  return Ptx.substr(Target,
                    LineEnd == std::string_view::npos ? std::string_view::npos : LineEnd - Target)
             .find("texmode_independent") != std::string_view::npos;
}

const std::vector<std::string> &openClBuiltinNames() {
  static const std::vector<std::string> Names = [] {
    std::vector<std::string> Result;
    for (const auto &Entry : builtinDefinitions())
      Result.push_back(Entry.first);
    return Result;
  }();
  return Names;
}

std::vector<std::string> ptxUndefinedFunctions(std::string_view Ptx) {
  const std::vector<PtxFunction> Functions = scanPtxFunctions(Ptx);
  std::set<std::string> Defined;
  for (const PtxFunction &Function : Functions)
    if (Function.Defined)
      Defined.insert(Function.Name);
  const bool OpenCl = isOpenClFlavouredPtx(Ptx);
  std::vector<std::string> Undefined;
  for (const PtxFunction &Function : Functions) {
    if (Function.Defined || Defined.count(Function.Name) != 0 ||
        (OpenCl && builtinDefinitions().count(Function.Name) != 0) ||
        std::find(Undefined.begin(), Undefined.end(), Function.Name) != Undefined.end())
      continue;
    Undefined.push_back(Function.Name);
  }
  return Undefined;
}

std::string fixOpenClPtx(std::string_view Ptx, const std::set<std::string> &Exported) {
  if (!isOpenClFlavouredPtx(Ptx))
    return std::string(Ptx);
  const std::vector<PtxFunction> Functions = scanPtxFunctions(Ptx);
  std::set<std::string> Defined;
  for (const PtxFunction &Function : Functions)
    if (Function.Defined)
      Defined.insert(Function.Name);

  std::vector<std::pair<size_t, std::string>> Insertions; // (offset, text)
  std::vector<std::pair<size_t, size_t>> Erasures;        // (offset, length)
  std::vector<std::string> BuiltinsToDefine;
  auto DefineBuiltin = [&](const std::string &Name) {
    if (std::find(BuiltinsToDefine.begin(), BuiltinsToDefine.end(), Name) == BuiltinsToDefine.end())
      BuiltinsToDefine.push_back(Name);
  };
  for (const PtxFunction &Function : Functions) {
    // A work-item function declared .extern (a module that imports from other images
    // marks every declaration so) is still defined here, its declaration made plain:
    // no other module of a link defines it.
    if (Function.Linkage == ".extern" && !Function.IsEntry && Defined.count(Function.Name) == 0 &&
        builtinDefinitions().count(Function.Name) != 0) {
      const size_t At = Ptx.rfind(".extern", Function.Start);
      if (At != std::string_view::npos) {
        Erasures.emplace_back(At, Function.Start - At);
        DefineBuiltin(Function.Name);
      }
      continue;
    }
    if (!Function.Linkage.empty())
      continue;
    if (Function.IsEntry) {
      Insertions.emplace_back(Function.Start, ".visible ");
    } else if (Defined.count(Function.Name) != 0) {
      if (Exported.count(Function.Name) != 0)
        Insertions.emplace_back(Function.Start, ".visible ");
    } else if (builtinDefinitions().count(Function.Name) != 0) {
      DefineBuiltin(Function.Name);
    } else {
      Insertions.emplace_back(Function.Start, ".extern ");
    }
  }
  std::string Result(Ptx);
  // A trailing NUL (kept by callers for the driver) must stay at the very end.
  while (!Result.empty() && Result.back() == '\0')
    Result.pop_back();
  // Every edit from the last offset back, so that each offset still holds.
  std::vector<std::pair<size_t, std::pair<size_t, std::string>>> Edits;
  for (const auto &[At, Text] : Insertions)
    Edits.push_back({At, {0, Text}});
  for (const auto &[At, Length] : Erasures)
    Edits.push_back({At, {Length, std::string()}});
  std::stable_sort(Edits.begin(), Edits.end(),
                   [](const auto &A, const auto &B) { return A.first < B.first; });
  for (auto It = Edits.rbegin(); It != Edits.rend(); ++It) {
    Result.erase(It->first, It->second.first);
    Result.insert(It->first, It->second.second);
  }
  if (!BuiltinsToDefine.empty()) {
    Result += "\n// OpenCL work-item functions defined by dglink's CUDA adapter\n";
    for (const std::string &Name : BuiltinsToDefine)
      Result += builtinDefinitions().at(Name);
  }
  return Result;
}

} // namespace dglink::cuda
