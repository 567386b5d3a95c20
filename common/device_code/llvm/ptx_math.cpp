// OpenCL C's builtins defined in a module bound for NVIDIA's OpenCL (ptx_math.h), from one
// table: each name says how its scalar lane (or, for the geometric and vector-data
// functions, its whole value) is computed; the forms (float, double, half; scalar and 2, 3,
// 4, 8, 16 wide; a scalar beside a vector) come from the declaration's LLVM type and its
// Itanium name. Exact operations are LLVM intrinsics that NVPTX lowers to correctly rounded
// PTX (llvm.sqrt is sqrt.rn without fast-math), native_* and most half_* are PTX's
// approximate instructions (ex2.approx, lg2.approx, sin.approx, ...), and the transcendental
// rest calls NVIDIA's libdevice (__nv_sinf, ...), linked into the module from the CUDA
// toolkit at translation time. A half argument is computed in float where no intrinsic
// takes it: every such result is then rounded once more, which OpenCL's half bounds allow.
#include "ptx_math.h"

#include <llvm/ADT/StringRef.h>
#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InlineAsm.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Support/MemoryBuffer.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <set>
#include <vector>

namespace dglink::device_code {
namespace {

using llvm::Value;

// ---- the declaration: its plain name and the element type code of each parameter ----

// "_Z6mul_hiDv4_iS_" -> "mul_hi", {'i', 'i'}. Codes are Itanium's builtin codes, 'H' for
// half (Dh), 'N' for a named type; false for a name this does not read.
bool readName(llvm::StringRef Mangled, std::string &Name, std::vector<char> &Elements) {
  if (!Mangled.consume_front("_Z"))
    return false;
  size_t Length = 0;
  if (Mangled.consumeInteger(10, Length) || Length == 0 || Length > Mangled.size())
    return false;
  Name = Mangled.take_front(Length).str();
  Mangled = Mangled.drop_front(Length);
  std::vector<char> Candidates; // the element code of each substitution candidate
  std::function<bool(char &)> Type = [&](char &Element) -> bool {
    if (Mangled.empty())
      return false;
    const char C = Mangled.front();
    if (C == 'S') {
      Mangled = Mangled.drop_front();
      size_t Index = 0;
      if (!Mangled.empty() && Mangled.front() != '_') {
        size_t Sequence = 0;
        while (!Mangled.empty() && Mangled.front() != '_') {
          const char D = Mangled.front();
          if (D >= '0' && D <= '9')
            Sequence = Sequence * 36 + static_cast<size_t>(D - '0');
          else if (D >= 'A' && D <= 'Z')
            Sequence = Sequence * 36 + static_cast<size_t>(D - 'A' + 10);
          else
            return false;
          if (Sequence > 4096)
            return false;
          Mangled = Mangled.drop_front();
        }
        Index = Sequence + 1;
      }
      if (!Mangled.consume_front("_") || Index >= Candidates.size())
        return false;
      Element = Candidates[Index];
      return true;
    }
    if (C == 'P' || C == 'R') {
      Mangled = Mangled.drop_front();
      if (!Type(Element))
        return false;
      Candidates.push_back(Element);
      return true;
    }
    if (C == 'U' || C == 'r' || C == 'V' || C == 'K') {
      while (!Mangled.empty() && llvm::StringRef("UrVK").contains(Mangled.front())) {
        if (Mangled.consume_front("U")) {
          size_t Vendor = 0;
          if (Mangled.consumeInteger(10, Vendor) || Vendor > Mangled.size())
            return false;
          Mangled = Mangled.drop_front(Vendor);
        } else {
          Mangled = Mangled.drop_front();
        }
      }
      if (!Type(Element))
        return false;
      Candidates.push_back(Element);
      return true;
    }
    if (Mangled.consume_front("Dv")) {
      size_t Count = 0;
      if (Mangled.consumeInteger(10, Count) || !Mangled.consume_front("_") || !Type(Element))
        return false;
      Candidates.push_back(Element);
      return true;
    }
    if (Mangled.consume_front("Dh")) {
      Element = 'H';
      return true;
    }
    if (C >= '0' && C <= '9') {
      size_t Named = 0;
      if (Mangled.consumeInteger(10, Named) || Named > Mangled.size())
        return false;
      Mangled = Mangled.drop_front(Named);
      Element = 'N';
      Candidates.push_back(Element);
      return true;
    }
    if (llvm::StringRef("vbcahstijlmxyfd").contains(C)) {
      Mangled = Mangled.drop_front();
      Element = C;
      return true;
    }
    return false;
  };
  while (!Mangled.empty()) {
    char Element = 0;
    if (!Type(Element))
      return false;
    Elements.push_back(Element);
  }
  return true;
}

bool signedCode(char Code) { return llvm::StringRef("cashilx").contains(Code); }

// ---- libdevice ----

// The libdevice file's bytes, read once per process (the translator process serves many
// modules); an empty buffer with Why where there is none.
const std::string &libdeviceBytes(std::string &Path, std::string &Why) {
  static std::string Bytes, Found, Reason;
  static bool Read = false;
  if (!Read) {
    Read = true;
    Found = libdevicePath(Reason);
    if (!Found.empty()) {
      std::ifstream In(Found, std::ios::binary);
      Bytes.assign(std::istreambuf_iterator<char>(In), std::istreambuf_iterator<char>());
      if (Bytes.empty())
        Reason = "libdevice '" + Found + "' cannot be read";
    }
  }
  Path = Found;
  Why = Reason;
  return Bytes;
}

// The least PTX ISA version (major * 10 + minor) the module's PTX is to declare.
constexpr const char *PtxVersionFlag = "dglink-ptx-version";

// ---- building the definitions ----

struct Emit;
using LaneFunction = Value *(*)(Emit &E, llvm::ArrayRef<Value *> Lane);
using WholeFunction = Value *(*)(Emit &E, llvm::Function &F);

enum class Class {
  Exact,      // intrinsics and exact arithmetic
  Native,     // PTX's approximate instructions (native_*, half_*)
  Libdevice,  // NVIDIA's libdevice
  Integer,    // integer functions
  Relational, // predicates: 1 / 0 scalar, -1 / 0 per vector lane
  Geometric,  // dot, length, ...
  Conversion, // convert_*
  VectorData, // vload*, vstore*
};

struct Builtin {
  Class What;
  LaneFunction Lane = nullptr;   // per lane, where the builtin works lane by lane
  WholeFunction Whole = nullptr; // on the whole value otherwise
  bool PointerToInt = false;     // the lane's out-pointer points to int (frexp, remquo)
  bool NeedsLibdevice = false;
};

struct Emit {
  llvm::IRBuilder<> &B;
  llvm::Module &M;
  std::string Name;           // the plain name
  std::vector<char> Elements; // each parameter's element code
  llvm::Type *Result;         // the lane's result type
  bool Vector = false;        // the declaration works on vectors
  bool Signed = false;        // the first parameter is a signed integer type
  bool UsesLibdevice = false;

  llvm::Type *floatType() const { return llvm::Type::getFloatTy(M.getContext()); }
  llvm::Type *int32() const { return llvm::Type::getInt32Ty(M.getContext()); }
  Value *constant(llvm::Type *Type, double V) const { return llvm::ConstantFP::get(Type, V); }

  Value *unary(llvm::Intrinsic::ID Id, Value *X) { return B.CreateUnaryIntrinsic(Id, X); }
  Value *binary(llvm::Intrinsic::ID Id, Value *X, Value *Y) {
    return B.CreateBinaryIntrinsic(Id, X, Y);
  }

  // A libdevice function on float or double (half is computed in float): __nv_<stem>f or
  // __nv_<stem>. Pointer arguments are generic (NVPTX's 0): others are cast there.
  Value *device(const char *Stem, llvm::ArrayRef<Value *> Arguments) {
    UsesLibdevice = true;
    llvm::Type *Type = Arguments[0]->getType();
    const bool Half = Type->isHalfTy();
    if (Half)
      Type = floatType();
    std::vector<Value *> Passed;
    std::vector<llvm::Type *> Parameters;
    for (Value *Argument : Arguments) {
      if (Argument->getType()->isHalfTy())
        Argument = B.CreateFPExt(Argument, floatType());
      if (auto *Pointer = llvm::dyn_cast<llvm::PointerType>(Argument->getType());
          Pointer != nullptr && Pointer->getAddressSpace() != 0)
        Argument = B.CreateAddrSpaceCast(Argument, llvm::PointerType::get(M.getContext(), 0));
      Passed.push_back(Argument);
      Parameters.push_back(Argument->getType());
    }
    const std::string Symbol = std::string("__nv_") + Stem + (Type->isDoubleTy() ? "" : "f");
    llvm::Type *Returns = Type;
    if (llvm::StringRef(Stem) == "ilogb")
      Returns = int32();
    else if (llvm::StringRef(Stem) == "sincos")
      Returns = llvm::Type::getVoidTy(M.getContext());
    llvm::FunctionCallee Callee =
        M.getOrInsertFunction(Symbol, llvm::FunctionType::get(Returns, Parameters, false));
    Value *Made = B.CreateCall(Callee, Passed);
    if (Half && Returns == floatType())
      Made = B.CreateFPTrunc(Made, llvm::Type::getHalfTy(M.getContext()));
    return Made;
  }

  // A float-only approximate instruction, with half promoted and double refused.
  Value *approx(llvm::Intrinsic::ID Id, llvm::ArrayRef<Value *> Arguments) {
    std::vector<Value *> Passed;
    for (Value *Argument : Arguments) {
      if (!Argument->getType()->isFloatTy())
        return nullptr;
      Passed.push_back(Argument);
    }
    return B.CreateCall(llvm::Intrinsic::getDeclaration(&M, Id), Passed);
  }
};

constexpr double Pi = 3.14159265358979323846;

Value *fabsOf(Emit &E, Value *X) { return E.unary(llvm::Intrinsic::fabs, X); }
Value *infinity(Emit &E, llvm::Type *Type) { return llvm::ConstantFP::getInfinity(Type); }
Value *quietNan(llvm::Type *Type) { return llvm::ConstantFP::getNaN(Type); }

// ---- lanes: exact ----

template <llvm::Intrinsic::ID Id> Value *unaryIntrinsic(Emit &E, llvm::ArrayRef<Value *> A) {
  if (!A[0]->getType()->isFloatingPointTy())
    return nullptr;
  return E.unary(Id, A[0]);
}
template <llvm::Intrinsic::ID Id> Value *binaryIntrinsic(Emit &E, llvm::ArrayRef<Value *> A) {
  if (!A[0]->getType()->isFloatingPointTy())
    return nullptr;
  return E.binary(Id, A[0], A[1]);
}
Value *fmaLane(Emit &E, llvm::ArrayRef<Value *> A) {
  return E.B.CreateIntrinsic(llvm::Intrinsic::fma, {A[0]->getType()}, {A[0], A[1], A[2]});
}
Value *fdimLane(Emit &E, llvm::ArrayRef<Value *> A) {
  // x - y where x > y, +0 where not, NaN where either is NaN.
  llvm::Type *T = A[0]->getType();
  Value *Difference = E.B.CreateFSub(A[0], A[1]);
  Value *Either = E.B.CreateFCmpUNO(A[0], A[1]);
  return E.B.CreateSelect(
      Either, quietNan(T),
      E.B.CreateSelect(E.B.CreateFCmpOGT(A[0], A[1]), Difference, llvm::ConstantFP::get(T, 0.0)));
}
Value *magLane(Emit &E, llvm::ArrayRef<Value *> A, bool Max) {
  Value *X = fabsOf(E, A[0]), *Y = fabsOf(E, A[1]);
  Value *Fallback = E.binary(Max ? llvm::Intrinsic::maxnum : llvm::Intrinsic::minnum, A[0], A[1]);
  Value *XWins = Max ? E.B.CreateFCmpOGT(X, Y) : E.B.CreateFCmpOLT(X, Y);
  Value *YWins = Max ? E.B.CreateFCmpOGT(Y, X) : E.B.CreateFCmpOLT(Y, X);
  return E.B.CreateSelect(XWins, A[0], E.B.CreateSelect(YWins, A[1], Fallback));
}
Value *maxmagLane(Emit &E, llvm::ArrayRef<Value *> A) { return magLane(E, A, true); }
Value *minmagLane(Emit &E, llvm::ArrayRef<Value *> A) { return magLane(E, A, false); }
Value *nanLane(Emit &E, llvm::ArrayRef<Value *> A) {
  // nan(code): a quiet NaN carrying the code in the significand bits below the quiet bit.
  llvm::Type *Bits = A[0]->getType();
  if (!Bits->isIntegerTy() || !E.Result->isFloatingPointTy() ||
      Bits->getIntegerBitWidth() != E.Result->getPrimitiveSizeInBits())
    return nullptr;
  const unsigned Width = Bits->getIntegerBitWidth();
  const unsigned Significand = Width == 64 ? 52 : Width == 32 ? 23 : 10;
  const uint64_t Quiet = Width == 64   ? 0x7ff8000000000000ull
                         : Width == 32 ? 0x7fc00000ull
                                       : 0x7e00ull;
  const uint64_t Payload = (uint64_t{1} << (Significand - 1)) - 1;
  Value *Code = E.B.CreateAnd(A[0], llvm::ConstantInt::get(Bits, Payload));
  return E.B.CreateBitCast(E.B.CreateOr(Code, llvm::ConstantInt::get(Bits, Quiet)), E.Result);
}
Value *fractLane(Emit &E, llvm::ArrayRef<Value *> A) {
  // fmin(x - floor(x), the largest value below 1); NaN stays NaN, +-inf gives +-0.
  llvm::Type *T = A[0]->getType();
  Value *Floor = E.unary(llvm::Intrinsic::floor, A[0]);
  const double BelowOne = T->isDoubleTy()  ? std::nextafter(1.0, 0.0)
                          : T->isFloatTy() ? static_cast<double>(std::nextafter(1.0f, 0.0f))
                                           : 1.0 - 1.0 / 2048.0;
  Value *Fraction = E.binary(llvm::Intrinsic::minnum, E.B.CreateFSub(A[0], Floor),
                             llvm::ConstantFP::get(T, BelowOne));
  Value *Inf = E.B.CreateFCmpOEQ(fabsOf(E, A[0]), infinity(E, T));
  Fraction = E.B.CreateSelect(
      Inf, E.binary(llvm::Intrinsic::copysign, llvm::ConstantFP::get(T, 0.0), A[0]), Fraction);
  Value *Nan = E.B.CreateFCmpUNO(A[0], A[0]);
  E.B.CreateStore(Floor, A[1]);
  return E.B.CreateSelect(Nan, A[0], Fraction);
}
Value *degreesLane(Emit &E, llvm::ArrayRef<Value *> A) {
  return E.B.CreateFMul(A[0], E.constant(A[0]->getType(), 180.0 / Pi));
}
Value *radiansLane(Emit &E, llvm::ArrayRef<Value *> A) {
  return E.B.CreateFMul(A[0], E.constant(A[0]->getType(), Pi / 180.0));
}
Value *mixLane(Emit &E, llvm::ArrayRef<Value *> A) {
  return E.B.CreateFAdd(A[0], E.B.CreateFMul(E.B.CreateFSub(A[1], A[0]), A[2]));
}
Value *stepLane(Emit &E, llvm::ArrayRef<Value *> A) {
  llvm::Type *T = A[1]->getType();
  return E.B.CreateSelect(E.B.CreateFCmpOLT(A[1], A[0]), E.constant(T, 0.0), E.constant(T, 1.0));
}
Value *smoothstepLane(Emit &E, llvm::ArrayRef<Value *> A) {
  llvm::Type *T = A[2]->getType();
  Value *Ratio = E.B.CreateFDiv(E.B.CreateFSub(A[2], A[0]), E.B.CreateFSub(A[1], A[0]));
  Value *Clamped =
      E.binary(llvm::Intrinsic::minnum,
               E.binary(llvm::Intrinsic::maxnum, Ratio, E.constant(T, 0.0)), E.constant(T, 1.0));
  Value *Cubic = E.B.CreateFSub(E.constant(T, 3.0), E.B.CreateFMul(E.constant(T, 2.0), Clamped));
  return E.B.CreateFMul(E.B.CreateFMul(Clamped, Clamped), Cubic);
}
Value *signLane(Emit &E, llvm::ArrayRef<Value *> A) {
  // +-1 with x's sign, x itself for +-0, 0 for NaN.
  llvm::Type *T = A[0]->getType();
  Value *One = E.binary(llvm::Intrinsic::copysign, E.constant(T, 1.0), A[0]);
  Value *Zero = E.B.CreateFCmpOEQ(A[0], E.constant(T, 0.0));
  Value *Nan = E.B.CreateFCmpUNO(A[0], A[0]);
  return E.B.CreateSelect(Nan, E.constant(T, 0.0), E.B.CreateSelect(Zero, A[0], One));
}

// ---- lanes: integer, or the float forms of the same names ----

Value *absLane(Emit &E, llvm::ArrayRef<Value *> A) {
  if (A[0]->getType()->isFloatingPointTy())
    return nullptr;
  if (!E.Signed)
    return A[0];
  return E.B.CreateBinaryIntrinsic(llvm::Intrinsic::abs, A[0], E.B.getFalse());
}
Value *absDiffLane(Emit &E, llvm::ArrayRef<Value *> A) {
  Value *Greater = E.Signed ? E.B.CreateICmpSGT(A[0], A[1]) : E.B.CreateICmpUGT(A[0], A[1]);
  return E.B.CreateSelect(Greater, E.B.CreateSub(A[0], A[1]), E.B.CreateSub(A[1], A[0]));
}
Value *addSatLane(Emit &E, llvm::ArrayRef<Value *> A) {
  return E.binary(E.Signed ? llvm::Intrinsic::sadd_sat : llvm::Intrinsic::uadd_sat, A[0], A[1]);
}
Value *subSatLane(Emit &E, llvm::ArrayRef<Value *> A) {
  return E.binary(E.Signed ? llvm::Intrinsic::ssub_sat : llvm::Intrinsic::usub_sat, A[0], A[1]);
}
Value *halfAddLane(Emit &E, llvm::ArrayRef<Value *> A, bool Round) {
  // (x >> 1) + (y >> 1) + ((x & y) & 1), or with (x | y) & 1 rounding up: no overflow.
  llvm::Type *T = A[0]->getType();
  auto Shift = [&E](Value *V) { return E.Signed ? E.B.CreateAShr(V, 1) : E.B.CreateLShr(V, 1); };
  Value *Carry = Round ? E.B.CreateOr(A[0], A[1]) : E.B.CreateAnd(A[0], A[1]);
  return E.B.CreateAdd(E.B.CreateAdd(Shift(A[0]), Shift(A[1])),
                       E.B.CreateAnd(Carry, llvm::ConstantInt::get(T, 1)));
}
Value *haddLane(Emit &E, llvm::ArrayRef<Value *> A) { return halfAddLane(E, A, false); }
Value *rhaddLane(Emit &E, llvm::ArrayRef<Value *> A) { return halfAddLane(E, A, true); }
Value *maxLane(Emit &E, llvm::ArrayRef<Value *> A) {
  if (A[0]->getType()->isFloatingPointTy())
    return E.binary(llvm::Intrinsic::maxnum, A[0], A[1]);
  return E.binary(E.Signed ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, A[0], A[1]);
}
Value *minLane(Emit &E, llvm::ArrayRef<Value *> A) {
  if (A[0]->getType()->isFloatingPointTy())
    return E.binary(llvm::Intrinsic::minnum, A[0], A[1]);
  return E.binary(E.Signed ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, A[0], A[1]);
}
Value *clampLane(Emit &E, llvm::ArrayRef<Value *> A) {
  return minLane(E, {maxLane(E, {A[0], A[1]}), A[2]});
}
Value *clzLane(Emit &E, llvm::ArrayRef<Value *> A) {
  return E.B.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, A[0], E.B.getFalse());
}
Value *ctzLane(Emit &E, llvm::ArrayRef<Value *> A) {
  return E.B.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, A[0], E.B.getFalse());
}
Value *popcountLane(Emit &E, llvm::ArrayRef<Value *> A) {
  return E.unary(llvm::Intrinsic::ctpop, A[0]);
}
Value *wide(Emit &E, Value *V, llvm::Type *To) {
  return E.Signed ? E.B.CreateSExt(V, To) : E.B.CreateZExt(V, To);
}
Value *mulHiLane(Emit &E, llvm::ArrayRef<Value *> A) {
  llvm::Type *T = A[0]->getType();
  const unsigned Bits = T->getIntegerBitWidth();
  llvm::Type *Double = llvm::IntegerType::get(E.M.getContext(), 2 * Bits);
  Value *Product = E.B.CreateMul(wide(E, A[0], Double), wide(E, A[1], Double));
  return E.B.CreateTrunc(E.B.CreateLShr(Product, Bits), T);
}
Value *madHiLane(Emit &E, llvm::ArrayRef<Value *> A) {
  return E.B.CreateAdd(mulHiLane(E, A), A[2]);
}
Value *madSatLane(Emit &E, llvm::ArrayRef<Value *> A) {
  // a * b + c clamped to the type's range. Signed: exact in twice the width. Unsigned: in
  // twice the width up to 32 bits; 64 bits: saturated where the product overflows.
  llvm::Type *T = A[0]->getType();
  const unsigned Bits = T->getIntegerBitWidth();
  if (!E.Signed && Bits == 64) {
    Value *Product = E.B.CreateBinaryIntrinsic(llvm::Intrinsic::umul_with_overflow, A[0], A[1]);
    Value *Sum = E.binary(llvm::Intrinsic::uadd_sat, E.B.CreateExtractValue(Product, 0), A[2]);
    return E.B.CreateSelect(E.B.CreateExtractValue(Product, 1),
                            llvm::ConstantInt::get(T, llvm::APInt::getMaxValue(64)), Sum);
  }
  llvm::Type *Wider = llvm::IntegerType::get(E.M.getContext(), 2 * Bits);
  Value *Sum = E.B.CreateAdd(E.B.CreateMul(wide(E, A[0], Wider), wide(E, A[1], Wider)),
                             wide(E, A[2], Wider));
  if (!E.Signed)
    return E.B.CreateTrunc(
        E.binary(llvm::Intrinsic::umin, Sum,
                 llvm::ConstantInt::get(Wider, llvm::APInt::getMaxValue(Bits).zext(2 * Bits))),
        T);
  Value *Clamped =
      E.binary(llvm::Intrinsic::smax, Sum,
               llvm::ConstantInt::get(Wider, llvm::APInt::getSignedMinValue(Bits).sext(2 * Bits)));
  Clamped =
      E.binary(llvm::Intrinsic::smin, Clamped,
               llvm::ConstantInt::get(Wider, llvm::APInt::getSignedMaxValue(Bits).sext(2 * Bits)));
  return E.B.CreateTrunc(Clamped, T);
}
Value *mul24Lane(Emit &E, llvm::ArrayRef<Value *> A) { return E.B.CreateMul(A[0], A[1]); }
Value *mad24Lane(Emit &E, llvm::ArrayRef<Value *> A) {
  return E.B.CreateAdd(E.B.CreateMul(A[0], A[1]), A[2]);
}
Value *rotateLane(Emit &E, llvm::ArrayRef<Value *> A) {
  return E.B.CreateIntrinsic(llvm::Intrinsic::fshl, {A[0]->getType()}, {A[0], A[0], A[1]});
}
Value *upsampleLane(Emit &E, llvm::ArrayRef<Value *> A) {
  const unsigned Bits = A[0]->getType()->getIntegerBitWidth();
  Value *High = E.B.CreateShl(wide(E, A[0], E.Result), Bits);
  return E.B.CreateOr(High, E.B.CreateZExt(A[1], E.Result));
}

// ---- lanes: relational (an i1, made 1 / -1 by the caller) ----

template <llvm::CmpInst::Predicate P> Value *compareLane(Emit &E, llvm::ArrayRef<Value *> A) {
  return E.B.CreateFCmp(P, A[0], A[1]);
}
Value *isnanLane(Emit &E, llvm::ArrayRef<Value *> A) { return E.B.CreateFCmpUNO(A[0], A[0]); }
Value *isinfLane(Emit &E, llvm::ArrayRef<Value *> A) {
  return E.B.CreateFCmpOEQ(fabsOf(E, A[0]), infinity(E, A[0]->getType()));
}
Value *isfiniteLane(Emit &E, llvm::ArrayRef<Value *> A) {
  return E.B.CreateFCmpOLT(fabsOf(E, A[0]), infinity(E, A[0]->getType()));
}
Value *isnormalLane(Emit &E, llvm::ArrayRef<Value *> A) {
  llvm::Type *T = A[0]->getType();
  Value *Magnitude = fabsOf(E, A[0]);
  Value *Smallest = llvm::ConstantFP::get(
      T, llvm::APFloat::getSmallestNormalized(T->getFltSemantics()).convertToDouble());
  return E.B.CreateAnd(E.B.CreateFCmpOGE(Magnitude, Smallest),
                       E.B.CreateFCmpOLT(Magnitude, infinity(E, T)));
}
Value *signbitLane(Emit &E, llvm::ArrayRef<Value *> A) {
  llvm::Type *Bits =
      llvm::IntegerType::get(E.M.getContext(), A[0]->getType()->getPrimitiveSizeInBits());
  return E.B.CreateICmpSLT(E.B.CreateBitCast(A[0], Bits), llvm::ConstantInt::get(Bits, 0));
}
Value *asBits(Emit &E, Value *V) {
  llvm::Type *T = V->getType();
  if (T->isIntegerTy())
    return V;
  return E.B.CreateBitCast(V,
                           llvm::IntegerType::get(E.M.getContext(), T->getPrimitiveSizeInBits()));
}
Value *bitselectLane(Emit &E, llvm::ArrayRef<Value *> A) {
  Value *X = asBits(E, A[0]), *Y = asBits(E, A[1]), *Mask = asBits(E, A[2]);
  Value *Bits = E.B.CreateOr(E.B.CreateAnd(X, E.B.CreateNot(Mask)), E.B.CreateAnd(Y, Mask));
  return E.B.CreateBitCast(Bits, A[0]->getType());
}
Value *selectLane(Emit &E, llvm::ArrayRef<Value *> A) {
  // Scalar: c != 0; vector: the most significant bit of each lane of c.
  Value *Condition = A[2];
  Value *Zero = llvm::ConstantInt::get(Condition->getType(), 0);
  Value *Take = E.Vector ? E.B.CreateICmpSLT(Condition, Zero) : E.B.CreateICmpNE(Condition, Zero);
  return E.B.CreateSelect(Take, A[1], A[0]);
}

// ---- lanes: approximate (native_*, half_*) ----

constexpr double Log2E = 1.4426950408889634;   // log2(e)
constexpr double Log2Ten = 3.3219280948873622; // log2(10)
constexpr double Ln2 = 0.6931471805599453;     // ln(2)
constexpr double Log10Two = 0.3010299956639812;

Value *ex2Of(Emit &E, Value *X, double Scale) {
  if (!X->getType()->isFloatTy())
    return nullptr;
  if (Scale != 1.0)
    X = E.B.CreateFMul(X, E.constant(X->getType(), Scale));
  return E.approx(llvm::Intrinsic::nvvm_ex2_approx_f, {X});
}
Value *lg2Of(Emit &E, Value *X, double Scale) {
  Value *Log = E.approx(llvm::Intrinsic::nvvm_lg2_approx_f, {X});
  if (Log == nullptr || Scale == 1.0)
    return Log;
  return E.B.CreateFMul(Log, E.constant(X->getType(), Scale));
}
Value *nativeExp(Emit &E, llvm::ArrayRef<Value *> A) { return ex2Of(E, A[0], Log2E); }
Value *nativeExp2(Emit &E, llvm::ArrayRef<Value *> A) { return ex2Of(E, A[0], 1.0); }
Value *nativeExp10(Emit &E, llvm::ArrayRef<Value *> A) { return ex2Of(E, A[0], Log2Ten); }
Value *nativeLog(Emit &E, llvm::ArrayRef<Value *> A) { return lg2Of(E, A[0], Ln2); }
Value *nativeLog2(Emit &E, llvm::ArrayRef<Value *> A) { return lg2Of(E, A[0], 1.0); }
Value *nativeLog10(Emit &E, llvm::ArrayRef<Value *> A) { return lg2Of(E, A[0], Log10Two); }
Value *nativeSin(Emit &E, llvm::ArrayRef<Value *> A) {
  return E.approx(llvm::Intrinsic::nvvm_sin_approx_f, {A[0]});
}
Value *nativeCos(Emit &E, llvm::ArrayRef<Value *> A) {
  return E.approx(llvm::Intrinsic::nvvm_cos_approx_f, {A[0]});
}
Value *nativeTan(Emit &E, llvm::ArrayRef<Value *> A) {
  Value *Sine = nativeSin(E, A), *Cosine = nativeCos(E, A);
  if (Sine == nullptr)
    return nullptr;
  return E.approx(llvm::Intrinsic::nvvm_div_approx_f, {Sine, Cosine});
}
Value *nativeSqrt(Emit &E, llvm::ArrayRef<Value *> A) {
  return E.approx(llvm::Intrinsic::nvvm_sqrt_approx_f, {A[0]});
}
Value *nativeRsqrt(Emit &E, llvm::ArrayRef<Value *> A) {
  return E.approx(llvm::Intrinsic::nvvm_rsqrt_approx_f, {A[0]});
}
Value *nativeRecip(Emit &E, llvm::ArrayRef<Value *> A) {
  if (!A[0]->getType()->isFloatTy())
    return nullptr;
  return E.approx(llvm::Intrinsic::nvvm_div_approx_f, {E.constant(A[0]->getType(), 1.0), A[0]});
}
Value *nativeDivide(Emit &E, llvm::ArrayRef<Value *> A) {
  return E.approx(llvm::Intrinsic::nvvm_div_approx_f, {A[0], A[1]});
}
Value *nativePowr(Emit &E, llvm::ArrayRef<Value *> A) {
  Value *Log = lg2Of(E, A[0], 1.0);
  if (Log == nullptr)
    return nullptr;
  return ex2Of(E, E.B.CreateFMul(A[1], Log), 1.0);
}

// ---- lanes: libdevice ----

template <const char *Stem> Value *deviceLane(Emit &E, llvm::ArrayRef<Value *> A) {
  if (!A[0]->getType()->isFloatingPointTy())
    return nullptr;
  return E.device(Stem, A);
}
// half_* on float only: computed at full precision where the approximate instruction
// misses half's 8192 ulp (lg2.approx near 1, sin.approx far from 0).
template <const char *Stem> Value *floatDeviceLane(Emit &E, llvm::ArrayRef<Value *> A) {
  if (!A[0]->getType()->isFloatTy())
    return nullptr;
  return E.device(Stem, A);
}
Value *byOverPi(Emit &E, Value *V) {
  return V == nullptr ? nullptr : E.B.CreateFMul(V, E.constant(V->getType(), 1.0 / Pi));
}
Value *asinpiLane(Emit &E, llvm::ArrayRef<Value *> A) { return byOverPi(E, E.device("asin", A)); }
Value *acospiLane(Emit &E, llvm::ArrayRef<Value *> A) { return byOverPi(E, E.device("acos", A)); }
Value *atanpiLane(Emit &E, llvm::ArrayRef<Value *> A) { return byOverPi(E, E.device("atan", A)); }
Value *atan2piLane(Emit &E, llvm::ArrayRef<Value *> A) { return byOverPi(E, E.device("atan2", A)); }
Value *tanpiLane(Emit &E, llvm::ArrayRef<Value *> A) {
  return E.B.CreateFDiv(E.device("sinpi", A), E.device("cospi", A));
}
Value *pownLane(Emit &E, llvm::ArrayRef<Value *> A) {
  // pow(x, n) with n exact in the type's significand (every int in double; float: |n| <
  // 2^24, beyond which only even n remain and the result over- or underflows anyway).
  Value *N = E.B.CreateSIToFP(A[1], A[0]->getType()->isHalfTy() ? E.floatType() : A[0]->getType());
  return E.device("pow", {A[0], N});
}
Value *powrLane(Emit &E, llvm::ArrayRef<Value *> A) {
  // pow for x >= 0, with powr's own special cases: NaN for x < 0, powr(0, 0),
  // powr(inf, 0) and powr(1, inf).
  llvm::Type *T = A[0]->getType();
  Value *X = A[0], *Y = A[1];
  Value *Pow = E.device("pow", {X, Y});
  Value *ZeroY = E.B.CreateFCmpOEQ(Y, E.constant(T, 0.0));
  Value *Bad = E.B.CreateOr(E.B.CreateFCmpOLT(X, E.constant(T, 0.0)), E.B.CreateFCmpUNO(X, Y));
  Bad = E.B.CreateOr(Bad, E.B.CreateAnd(E.B.CreateFCmpOEQ(X, E.constant(T, 0.0)), ZeroY));
  Bad = E.B.CreateOr(Bad, E.B.CreateAnd(E.B.CreateFCmpOEQ(X, infinity(E, T)), ZeroY));
  Bad = E.B.CreateOr(Bad, E.B.CreateAnd(E.B.CreateFCmpOEQ(X, E.constant(T, 1.0)),
                                        E.B.CreateFCmpOEQ(fabsOf(E, Y), infinity(E, T))));
  return E.B.CreateSelect(Bad, quietNan(T), Pow);
}
Value *rootnLane(Emit &E, llvm::ArrayRef<Value *> A) {
  // float and half: pow(|x|, 1/n) in double (1/n rounded to double costs far less than a
  // float ulp), the sign of x for odd n; NaN for n = 0 and for x < 0 with even n. double
  // has no wider type to do this in: refused.
  llvm::Type *T = A[0]->getType();
  if (T->isDoubleTy())
    return nullptr;
  llvm::Type *Double = llvm::Type::getDoubleTy(E.M.getContext());
  Value *X = E.B.CreateFPExt(A[0], Double);
  Value *Reciprocal = E.B.CreateFDiv(E.constant(Double, 1.0), E.B.CreateSIToFP(A[1], Double));
  Value *Root = E.device("pow", {fabsOf(E, X), Reciprocal});
  Value *Odd = E.B.CreateICmpNE(E.B.CreateAnd(A[1], E.B.getInt32(1)), E.B.getInt32(0));
  Root = E.B.CreateSelect(Odd, E.binary(llvm::Intrinsic::copysign, Root, X), Root);
  Value *Bad = E.B.CreateOr(
      E.B.CreateICmpEQ(A[1], E.B.getInt32(0)),
      E.B.CreateAnd(E.B.CreateNot(Odd), E.B.CreateFCmpOLT(X, E.constant(Double, 0.0))));
  Root = E.B.CreateSelect(Bad, quietNan(Double), Root);
  return E.B.CreateFPTrunc(Root, T);
}
// f(x, out*): libdevice writes a generic int or value pointer; the lane's pointer may be of
// any address space, so the result goes through a private temporary.
Value *withOut(Emit &E, const char *Stem, llvm::ArrayRef<Value *> In, Value *Out,
               llvm::Type *Kept) {
  llvm::IRBuilder<> Entry(&E.B.GetInsertBlock()->getParent()->getEntryBlock(),
                          E.B.GetInsertBlock()->getParent()->getEntryBlock().begin());
  llvm::AllocaInst *Temporary = Entry.CreateAlloca(Kept);
  std::vector<Value *> Arguments(In.begin(), In.end());
  Arguments.push_back(Temporary);
  Value *Made = E.device(Stem, Arguments);
  Value *Stored = E.B.CreateLoad(Kept, Temporary);
  if (Stored->getType()->isFloatTy() && E.Result->isHalfTy())
    Stored = E.B.CreateFPTrunc(Stored, E.Result);
  E.B.CreateStore(Stored, Out);
  return Made;
}
Value *frexpLane(Emit &E, llvm::ArrayRef<Value *> A) {
  return withOut(E, "frexp", {A[0]}, A[1], E.int32());
}
Value *remquoLane(Emit &E, llvm::ArrayRef<Value *> A) {
  return withOut(E, "remquo", {A[0], A[1]}, A[2], E.int32());
}
Value *modfLane(Emit &E, llvm::ArrayRef<Value *> A) {
  llvm::Type *T = A[0]->getType()->isHalfTy() ? E.floatType() : A[0]->getType();
  return withOut(E, "modf", {A[0]}, A[1], T);
}
Value *sincosLane(Emit &E, llvm::ArrayRef<Value *> A) {
  // sincos(x, *cos) returns the sine: libdevice's __nv_sincosf(x, *sin, *cos).
  llvm::Type *T = A[0]->getType()->isHalfTy() ? E.floatType() : A[0]->getType();
  llvm::IRBuilder<> Entry(&E.B.GetInsertBlock()->getParent()->getEntryBlock(),
                          E.B.GetInsertBlock()->getParent()->getEntryBlock().begin());
  llvm::AllocaInst *Sine = Entry.CreateAlloca(T);
  Value *Cosine = withOut(E, "sincos", {A[0], Sine}, A[1], T);
  (void)Cosine;
  Value *Result = E.B.CreateLoad(T, Sine);
  return T == E.Result ? Result : E.B.CreateFPTrunc(Result, E.Result);
}
Value *ldexpLane(Emit &E, llvm::ArrayRef<Value *> A) {
  if (!A[0]->getType()->isFloatingPointTy())
    return nullptr;
  return E.device("ldexp", A);
}
Value *ilogbLane(Emit &E, llvm::ArrayRef<Value *> A) {
  Value *Made = E.device("ilogb", A);
  return Made;
}

// The stems libdevice is asked for by name (one template instance each).
#define DGLINK_STEM(Name) constexpr char Name##Stem[] = #Name;
DGLINK_STEM(acos)
DGLINK_STEM(acosh)
DGLINK_STEM(asin)
DGLINK_STEM(asinh)
DGLINK_STEM(atan)
DGLINK_STEM(atan2)
DGLINK_STEM(atanh)
DGLINK_STEM(cbrt)
DGLINK_STEM(cos)
DGLINK_STEM(cosh)
DGLINK_STEM(cospi)
DGLINK_STEM(erf)
DGLINK_STEM(erfc)
DGLINK_STEM(exp)
DGLINK_STEM(exp2)
DGLINK_STEM(exp10)
DGLINK_STEM(expm1)
DGLINK_STEM(fmod)
DGLINK_STEM(hypot)
DGLINK_STEM(lgamma)
DGLINK_STEM(log)
DGLINK_STEM(log2)
DGLINK_STEM(log10)
DGLINK_STEM(log1p)
DGLINK_STEM(logb)
DGLINK_STEM(nextafter)
DGLINK_STEM(pow)
DGLINK_STEM(remainder)
DGLINK_STEM(rsqrt)
DGLINK_STEM(sin)
DGLINK_STEM(sinh)
DGLINK_STEM(sinpi)
DGLINK_STEM(tan)
DGLINK_STEM(tanh)
DGLINK_STEM(tgamma)
#undef DGLINK_STEM

// ---- whole values: geometric ----

std::vector<Value *> lanesOf(Emit &E, Value *V) {
  std::vector<Value *> Lanes;
  if (auto *Vector = llvm::dyn_cast<llvm::FixedVectorType>(V->getType())) {
    for (unsigned I = 0; I < Vector->getNumElements(); ++I)
      Lanes.push_back(E.B.CreateExtractElement(V, I));
  } else {
    Lanes.push_back(V);
  }
  return Lanes;
}
Value *vectorOf(Emit &E, llvm::Type *Type, const std::vector<Value *> &Lanes) {
  if (!Type->isVectorTy())
    return Lanes[0];
  Value *Made = llvm::UndefValue::get(Type);
  for (unsigned I = 0; I < Lanes.size(); ++I)
    Made = E.B.CreateInsertElement(Made, Lanes[I], I);
  return Made;
}
// half is computed in float: geometric functions round their sums.
std::vector<Value *> promoted(Emit &E, Value *V) {
  std::vector<Value *> Lanes = lanesOf(E, V);
  for (Value *&Lane : Lanes)
    if (Lane->getType()->isHalfTy())
      Lane = E.B.CreateFPExt(Lane, E.floatType());
  return Lanes;
}
Value *dotOf(Emit &E, const std::vector<Value *> &X, const std::vector<Value *> &Y) {
  Value *Sum = E.B.CreateFMul(X[0], Y[0]);
  for (size_t I = 1; I < X.size(); ++I)
    Sum = E.B.CreateIntrinsic(llvm::Intrinsic::fmuladd, {Sum->getType()}, {X[I], Y[I], Sum});
  return Sum;
}
Value *demoted(Emit &E, Value *V, llvm::Type *To) {
  return V->getType() == To ? V : E.B.CreateFPTrunc(V, To);
}
// The vector scaled by a power of two that keeps its squares clear of overflow and
// underflow; Undo multiplies the length back. Exact: powers of two.
std::vector<Value *> scaled(Emit &E, const std::vector<Value *> &Lanes, Value *&Undo) {
  llvm::Type *T = Lanes[0]->getType();
  const bool Double = T->isDoubleTy();
  const int Limit = Double ? 500 : 60, Step = Double ? 600 : 80;
  Value *Largest = fabsOf(E, Lanes[0]);
  for (size_t I = 1; I < Lanes.size(); ++I)
    Largest = E.binary(llvm::Intrinsic::maxnum, Largest, fabsOf(E, Lanes[I]));
  Value *Big = E.B.CreateFCmpOGT(Largest, E.constant(T, std::ldexp(1.0, Limit)));
  Value *Small = E.B.CreateFCmpOLT(Largest, E.constant(T, std::ldexp(1.0, -Limit)));
  Value *Scale = E.B.CreateSelect(
      Big, E.constant(T, std::ldexp(1.0, -Step)),
      E.B.CreateSelect(Small, E.constant(T, std::ldexp(1.0, Step)), E.constant(T, 1.0)));
  Undo = E.B.CreateSelect(
      Big, E.constant(T, std::ldexp(1.0, Step)),
      E.B.CreateSelect(Small, E.constant(T, std::ldexp(1.0, -Step)), E.constant(T, 1.0)));
  std::vector<Value *> Out;
  Out.reserve(Lanes.size());
  for (Value *Lane : Lanes)
    Out.push_back(E.B.CreateFMul(Lane, Scale));
  return Out;
}
Value *lengthOf(Emit &E, const std::vector<Value *> &Lanes) {
  Value *Undo = nullptr;
  const std::vector<Value *> Scaled = scaled(E, Lanes, Undo);
  Value *Root = E.unary(llvm::Intrinsic::sqrt, dotOf(E, Scaled, Scaled));
  Value *Length = E.B.CreateFMul(Root, Undo);
  // An infinite lane: +inf, even beside a NaN.
  llvm::Type *T = Lanes[0]->getType();
  for (Value *Lane : Lanes)
    Length = E.B.CreateSelect(E.B.CreateFCmpOEQ(fabsOf(E, Lane), infinity(E, T)), infinity(E, T),
                              Length);
  return Length;
}
bool geometricType(llvm::Type *T) {
  llvm::Type *Element = T->getScalarType();
  const unsigned Width =
      T->isVectorTy() ? llvm::cast<llvm::FixedVectorType>(T)->getNumElements() : 1;
  return Element->isFloatingPointTy() && Width <= 4;
}
Value *dotWhole(Emit &E, llvm::Function &F) {
  if (!geometricType(F.getArg(0)->getType()))
    return nullptr;
  return demoted(E, dotOf(E, promoted(E, F.getArg(0)), promoted(E, F.getArg(1))),
                 F.getReturnType());
}
Value *lengthWhole(Emit &E, llvm::Function &F) {
  if (!geometricType(F.getArg(0)->getType()))
    return nullptr;
  return demoted(E, lengthOf(E, promoted(E, F.getArg(0))), F.getReturnType());
}
Value *distanceWhole(Emit &E, llvm::Function &F) {
  if (!geometricType(F.getArg(0)->getType()))
    return nullptr;
  std::vector<Value *> X = promoted(E, F.getArg(0)), Y = promoted(E, F.getArg(1));
  for (size_t I = 0; I < X.size(); ++I)
    X[I] = E.B.CreateFSub(X[I], Y[I]);
  return demoted(E, lengthOf(E, X), F.getReturnType());
}
Value *normalizeWhole(Emit &E, llvm::Function &F) {
  // p / length(p); infinite lanes become +-1 and the others +-0 first; a zero vector is
  // returned as it is.
  if (!geometricType(F.getArg(0)->getType()))
    return nullptr;
  std::vector<Value *> Lanes = promoted(E, F.getArg(0));
  llvm::Type *T = Lanes[0]->getType();
  Value *AnyInfinite = E.B.getFalse();
  for (Value *Lane : Lanes)
    AnyInfinite = E.B.CreateOr(AnyInfinite, E.B.CreateFCmpOEQ(fabsOf(E, Lane), infinity(E, T)));
  for (Value *&Lane : Lanes) {
    Value *Unit = E.B.CreateSelect(E.B.CreateFCmpOEQ(fabsOf(E, Lane), infinity(E, T)),
                                   E.constant(T, 1.0), E.constant(T, 0.0));
    Lane = E.B.CreateSelect(AnyInfinite, E.binary(llvm::Intrinsic::copysign, Unit, Lane), Lane);
  }
  Value *Undo = nullptr;
  std::vector<Value *> Scaled = scaled(E, Lanes, Undo);
  Value *Root = E.unary(llvm::Intrinsic::sqrt, dotOf(E, Scaled, Scaled));
  Value *Zero = E.B.CreateFCmpOEQ(Root, E.constant(T, 0.0));
  std::vector<Value *> Out;
  for (size_t I = 0; I < Lanes.size(); ++I)
    Out.push_back(demoted(E, E.B.CreateSelect(Zero, Lanes[I], E.B.CreateFDiv(Scaled[I], Root)),
                          F.getReturnType()->getScalarType()));
  return vectorOf(E, F.getReturnType(), Out);
}
Value *fastLengthWhole(Emit &E, llvm::Function &F) {
  if (!F.getArg(0)->getType()->getScalarType()->isFloatTy() ||
      !geometricType(F.getArg(0)->getType()))
    return nullptr;
  const std::vector<Value *> Lanes = lanesOf(E, F.getArg(0));
  return E.approx(llvm::Intrinsic::nvvm_sqrt_approx_f, {dotOf(E, Lanes, Lanes)});
}
Value *fastDistanceWhole(Emit &E, llvm::Function &F) {
  if (!F.getArg(0)->getType()->getScalarType()->isFloatTy() ||
      !geometricType(F.getArg(0)->getType()))
    return nullptr;
  std::vector<Value *> X = lanesOf(E, F.getArg(0)), Y = lanesOf(E, F.getArg(1));
  for (size_t I = 0; I < X.size(); ++I)
    X[I] = E.B.CreateFSub(X[I], Y[I]);
  return E.approx(llvm::Intrinsic::nvvm_sqrt_approx_f, {dotOf(E, X, X)});
}
Value *fastNormalizeWhole(Emit &E, llvm::Function &F) {
  if (!F.getArg(0)->getType()->getScalarType()->isFloatTy() ||
      !geometricType(F.getArg(0)->getType()))
    return nullptr;
  const std::vector<Value *> Lanes = lanesOf(E, F.getArg(0));
  Value *Sum = dotOf(E, Lanes, Lanes);
  Value *Inverse = E.approx(llvm::Intrinsic::nvvm_rsqrt_approx_f, {Sum});
  Value *Zero = E.B.CreateFCmpOEQ(Sum, E.constant(Sum->getType(), 0.0));
  std::vector<Value *> Out;
  Out.reserve(Lanes.size());
  for (Value *Lane : Lanes)
    Out.push_back(E.B.CreateSelect(Zero, Lane, E.B.CreateFMul(Lane, Inverse)));
  return vectorOf(E, F.getReturnType(), Out);
}
Value *crossWhole(Emit &E, llvm::Function &F) {
  auto *Type = llvm::dyn_cast<llvm::FixedVectorType>(F.getReturnType());
  if (Type == nullptr || (Type->getNumElements() != 3 && Type->getNumElements() != 4) ||
      !Type->getElementType()->isFloatingPointTy())
    return nullptr;
  const std::vector<Value *> X = lanesOf(E, F.getArg(0)), Y = lanesOf(E, F.getArg(1));
  auto Term = [&](unsigned A, unsigned B) {
    return E.B.CreateFSub(E.B.CreateFMul(X[A], Y[B]), E.B.CreateFMul(X[B], Y[A]));
  };
  std::vector<Value *> Out = {Term(1, 2), Term(2, 0), Term(0, 1)};
  if (Type->getNumElements() == 4)
    Out.push_back(llvm::ConstantFP::get(Type->getElementType(), 0.0));
  return vectorOf(E, Type, Out);
}
// any / all: the most significant bit of any / every lane; 1 or 0.
Value *anyAllWhole(Emit &E, llvm::Function &F, bool Every) {
  if (!F.getArg(0)->getType()->getScalarType()->isIntegerTy())
    return nullptr;
  Value *Result = Every ? E.B.getTrue() : E.B.getFalse();
  for (Value *Lane : lanesOf(E, F.getArg(0))) {
    Value *Set = E.B.CreateICmpSLT(Lane, llvm::ConstantInt::get(Lane->getType(), 0));
    Result = Every ? E.B.CreateAnd(Result, Set) : E.B.CreateOr(Result, Set);
  }
  return E.B.CreateZExt(Result, F.getReturnType());
}
Value *anyWhole(Emit &E, llvm::Function &F) { return anyAllWhole(E, F, false); }
Value *allWhole(Emit &E, llvm::Function &F) { return anyAllWhole(E, F, true); }

// ---- whole values: vector data (vloadN, vstoreN, vload_half, vstore_half) ----

// The count of a name's vector suffix ("vload4" -> 4, "vload_half" -> 1), 0 if none.
unsigned countIn(llvm::StringRef Name, llvm::StringRef Stem) {
  llvm::StringRef Rest = Name.drop_front(Stem.size());
  if (Rest.empty())
    return 1;
  unsigned Count = 0;
  if (Rest.consumeInteger(10, Count) || !Rest.empty())
    return 0;
  return Count;
}
Value *vloadWhole(Emit &E, llvm::Function &F) {
  // vloadN(offset, p): N elements at p + offset * N; vload(a)_halfN: halves made float.
  llvm::StringRef Name = E.Name;
  const bool Half = Name.contains("_half");
  const bool Aligned = Name.startswith("vloada_half");
  const unsigned Count =
      Half ? countIn(Name, Aligned ? "vloada_half" : "vload_half") : countIn(Name, "vload");
  llvm::Type *Loaded =
      Half ? llvm::Type::getHalfTy(E.M.getContext()) : F.getReturnType()->getScalarType();
  if (Count == 0 || F.arg_size() != 2 || (Half && E.Elements.size() == 2 && E.Elements[1] != 'H'))
    return nullptr;
  const unsigned Stride = Aligned && Count == 3 ? 4 : Count;
  Value *Base = E.B.CreateMul(F.getArg(0), E.B.getInt64(Stride));
  std::vector<Value *> Lanes;
  for (unsigned I = 0; I < Count; ++I) {
    Value *At = E.B.CreateGEP(Loaded, F.getArg(1), E.B.CreateAdd(Base, E.B.getInt64(I)));
    Value *Lane = E.B.CreateLoad(Loaded, At);
    if (Half)
      Lane = E.B.CreateFPExt(Lane, F.getReturnType()->getScalarType());
    Lanes.push_back(Lane);
  }
  return vectorOf(E, F.getReturnType(), Lanes);
}
Value *vstoreWhole(Emit &E, llvm::Function &F) {
  // vstoreN(data, offset, p); vstore(a)_halfN(_rte): rounded to nearest even. The other
  // rounding modes are not defined here (refused).
  llvm::StringRef Name = E.Name;
  const bool Half = Name.contains("_half");
  const bool Aligned = Name.startswith("vstorea_half");
  if (Half && Name.endswith("_rte"))
    Name = Name.drop_back(4);
  const unsigned Count =
      Half ? countIn(Name, Aligned ? "vstorea_half" : "vstore_half") : countIn(Name, "vstore");
  if (Count == 0 || F.arg_size() != 3)
    return nullptr;
  llvm::Type *Stored =
      Half ? llvm::Type::getHalfTy(E.M.getContext()) : F.getArg(0)->getType()->getScalarType();
  const unsigned Stride = Aligned && Count == 3 ? 4 : Count;
  Value *Base = E.B.CreateMul(F.getArg(1), E.B.getInt64(Stride));
  const std::vector<Value *> Lanes = lanesOf(E, F.getArg(0));
  if (Lanes.size() != Count)
    return nullptr;
  for (unsigned I = 0; I < Count; ++I) {
    Value *Lane = Half ? E.B.CreateFPTrunc(Lanes[I], Stored) : Lanes[I];
    E.B.CreateStore(Lane, E.B.CreateGEP(Stored, F.getArg(2), E.B.CreateAdd(Base, E.B.getInt64(I))));
  }
  return E.B.getTrue(); // not returned: the definition returns void
}

// ---- conversions: convert_<type>[_sat][_rte|_rtz|_rtp|_rtn] ----

bool unsignedTypeName(llvm::StringRef Type) { return Type.startswith("u"); }

Value *convertLane(Emit &E, llvm::ArrayRef<Value *> A) {
  llvm::StringRef Name = E.Name;
  Name.consume_front("convert_");
  llvm::StringRef Mode;
  for (llvm::StringRef Suffix : {"_rte", "_rtz", "_rtp", "_rtn"})
    if (Name.endswith(Suffix)) {
      Mode = Suffix.drop_front();
      Name = Name.drop_back(4);
    }
  const bool Saturate = Name.consume_back("_sat");
  const bool ToUnsigned = unsignedTypeName(Name);
  Value *X = A[0];
  llvm::Type *From = X->getType(), *To = E.Result;
  const bool FromSigned = signedCode(E.Elements.empty() ? 'i' : E.Elements[0]);
  if (From->isIntegerTy() && To->isIntegerTy()) {
    const unsigned FromBits = From->getIntegerBitWidth(), ToBits = To->getIntegerBitWidth();
    if (!Saturate)
      return FromSigned ? E.B.CreateSExtOrTrunc(X, To) : E.B.CreateZExtOrTrunc(X, To);
    // Clamp in the wider of the two types, plus a bit for the sign.
    const unsigned Bits = std::max(FromBits, ToBits) + 1;
    llvm::Type *Wide = llvm::IntegerType::get(E.M.getContext(), Bits);
    Value *V = FromSigned ? E.B.CreateSExt(X, Wide) : E.B.CreateZExt(X, Wide);
    const llvm::APInt Low =
        ToUnsigned ? llvm::APInt::getZero(Bits) : llvm::APInt::getSignedMinValue(ToBits).sext(Bits);
    const llvm::APInt High = ToUnsigned ? llvm::APInt::getMaxValue(ToBits).zext(Bits)
                                        : llvm::APInt::getSignedMaxValue(ToBits).sext(Bits);
    V = E.B.CreateBinaryIntrinsic(llvm::Intrinsic::smax, V, llvm::ConstantInt::get(Wide, Low));
    V = E.B.CreateBinaryIntrinsic(llvm::Intrinsic::smin, V, llvm::ConstantInt::get(Wide, High));
    return E.B.CreateTrunc(V, To);
  }
  if (From->isFloatingPointTy() && To->isIntegerTy()) {
    // Round in the mode (toward zero by default), then convert; fptosi.sat is defined for
    // every input (NaN: 0), so out-of-range values without _sat do no harm either.
    const llvm::Intrinsic::ID Round = Mode == "rte"   ? llvm::Intrinsic::rint
                                      : Mode == "rtp" ? llvm::Intrinsic::ceil
                                      : Mode == "rtn" ? llvm::Intrinsic::floor
                                                      : llvm::Intrinsic::trunc;
    Value *Rounded = E.unary(Round, X);
    return E.B.CreateIntrinsic(ToUnsigned ? llvm::Intrinsic::fptoui_sat
                                          : llvm::Intrinsic::fptosi_sat,
                               {To, From}, {Rounded});
  }
  if (Saturate)
    return nullptr; // OpenCL has no saturating conversion into a floating-point type
  if (From->isIntegerTy() && To->isFloatingPointTy()) {
    // Exact where the integer fits the significand; PTX's cvt.r?.f32/f64.s32/s64 otherwise.
    const unsigned FromBits = From->getIntegerBitWidth();
    const unsigned Digits = To->isDoubleTy() ? 53 : To->isFloatTy() ? 24 : 11;
    if (Mode.empty() || Mode == "rte" || FromBits <= Digits)
      return FromSigned ? E.B.CreateSIToFP(X, To) : E.B.CreateUIToFP(X, To);
    if (To->isHalfTy())
      return nullptr;
    // PTX's cvt with the rounding mode, as inline assembly: LLVM 15's instruction combiner
    // turns llvm.nvvm.i2f.rz (and its kin) into sitofp, which rounds to nearest.
    if (FromBits < 32)
      X = FromSigned ? E.B.CreateSExt(X, E.int32()) : E.B.CreateZExt(X, E.int32());
    const bool Wide = FromBits == 64, Double = To->isDoubleTy();
    const std::string Instruction = std::string("cvt.") +
                                    (Mode == "rtz"   ? "rz"
                                     : Mode == "rtp" ? "rp"
                                                     : "rm") +
                                    (Double ? ".f64." : ".f32.") + (FromSigned ? "s" : "u") +
                                    (Wide ? "64" : "32") + " $0, $1;";
    const std::string Constraints =
        std::string("=") + (Double ? "d" : "f") + "," + (Wide ? "l" : "r");
    auto *Assembly = llvm::InlineAsm::get(llvm::FunctionType::get(To, {X->getType()}, false),
                                          Instruction, Constraints, false);
    return E.B.CreateCall(Assembly, {X});
  }
  // Floating point into floating point: wider is exact; narrower rounds in the mode.
  if (From->getPrimitiveSizeInBits() <= To->getPrimitiveSizeInBits())
    return E.B.CreateFPExt(X, To);
  if (Mode.empty() || Mode == "rte")
    return E.B.CreateFPTrunc(X, To);
  if (!From->isDoubleTy() || !To->isFloatTy())
    return nullptr;
  // Inline assembly, as above: the combiner may not keep llvm.nvvm.d2f.rz's mode either.
  const std::string Instruction = std::string("cvt.") +
                                  (Mode == "rtz"   ? "rz"
                                   : Mode == "rtp" ? "rp"
                                                   : "rm") +
                                  ".f32.f64 $0, $1;";
  auto *Assembly =
      llvm::InlineAsm::get(llvm::FunctionType::get(To, {From}, false), Instruction, "=f,d", false);
  return E.B.CreateCall(Assembly, {X});
}

// ---- the table ----

const std::map<std::string, Builtin, std::less<>> &table() {
  namespace I = llvm::Intrinsic;
  static const std::map<std::string, Builtin, std::less<>> Table = [] {
    std::map<std::string, Builtin, std::less<>> T;
    auto Lane = [&T](const char *Name, Class What, LaneFunction F) {
      T[Name] = Builtin{What, F, nullptr, false, What == Class::Libdevice};
    };
    auto Whole = [&T](const char *Name, Class What, WholeFunction F) {
      T[Name] = Builtin{What, nullptr, F, false, false};
    };
    // Exact: intrinsics NVPTX lowers to correctly rounded PTX.
    Lane("sqrt", Class::Exact, unaryIntrinsic<I::sqrt>);
    Lane("fabs", Class::Exact, unaryIntrinsic<I::fabs>);
    Lane("floor", Class::Exact, unaryIntrinsic<I::floor>);
    Lane("ceil", Class::Exact, unaryIntrinsic<I::ceil>);
    Lane("trunc", Class::Exact, unaryIntrinsic<I::trunc>);
    Lane("rint", Class::Exact, unaryIntrinsic<I::rint>);
    Lane("round", Class::Exact, unaryIntrinsic<I::round>);
    Lane("copysign", Class::Exact, binaryIntrinsic<I::copysign>);
    Lane("fmin", Class::Exact, binaryIntrinsic<I::minnum>);
    Lane("fmax", Class::Exact, binaryIntrinsic<I::maxnum>);
    Lane("fma", Class::Exact, fmaLane);
    Lane("fdim", Class::Exact, fdimLane);
    Lane("maxmag", Class::Exact, maxmagLane);
    Lane("minmag", Class::Exact, minmagLane);
    Lane("nan", Class::Exact, nanLane);
    Lane("fract", Class::Exact, fractLane);
    Lane("degrees", Class::Exact, degreesLane);
    Lane("radians", Class::Exact, radiansLane);
    Lane("mix", Class::Exact, mixLane);
    Lane("step", Class::Exact, stepLane);
    Lane("smoothstep", Class::Exact, smoothstepLane);
    Lane("sign", Class::Exact, signLane);
    // Integer (max, min and clamp take floats too).
    Lane("abs", Class::Integer, absLane);
    Lane("abs_diff", Class::Integer, absDiffLane);
    Lane("add_sat", Class::Integer, addSatLane);
    Lane("sub_sat", Class::Integer, subSatLane);
    Lane("hadd", Class::Integer, haddLane);
    Lane("rhadd", Class::Integer, rhaddLane);
    Lane("max", Class::Integer, maxLane);
    Lane("min", Class::Integer, minLane);
    Lane("clamp", Class::Integer, clampLane);
    Lane("clz", Class::Integer, clzLane);
    Lane("ctz", Class::Integer, ctzLane);
    Lane("popcount", Class::Integer, popcountLane);
    Lane("mul_hi", Class::Integer, mulHiLane);
    Lane("mad_hi", Class::Integer, madHiLane);
    Lane("mad_sat", Class::Integer, madSatLane);
    Lane("mul24", Class::Integer, mul24Lane);
    Lane("mad24", Class::Integer, mad24Lane);
    Lane("rotate", Class::Integer, rotateLane);
    Lane("upsample", Class::Integer, upsampleLane);
    // Relational.
    Lane("isequal", Class::Relational, compareLane<llvm::CmpInst::FCMP_OEQ>);
    Lane("isnotequal", Class::Relational, compareLane<llvm::CmpInst::FCMP_UNE>);
    Lane("isgreater", Class::Relational, compareLane<llvm::CmpInst::FCMP_OGT>);
    Lane("isgreaterequal", Class::Relational, compareLane<llvm::CmpInst::FCMP_OGE>);
    Lane("isless", Class::Relational, compareLane<llvm::CmpInst::FCMP_OLT>);
    Lane("islessequal", Class::Relational, compareLane<llvm::CmpInst::FCMP_OLE>);
    Lane("islessgreater", Class::Relational, compareLane<llvm::CmpInst::FCMP_ONE>);
    Lane("isordered", Class::Relational, compareLane<llvm::CmpInst::FCMP_ORD>);
    Lane("isunordered", Class::Relational, compareLane<llvm::CmpInst::FCMP_UNO>);
    Lane("isnan", Class::Relational, isnanLane);
    Lane("isinf", Class::Relational, isinfLane);
    Lane("isfinite", Class::Relational, isfiniteLane);
    Lane("isnormal", Class::Relational, isnormalLane);
    Lane("signbit", Class::Relational, signbitLane);
    Lane("bitselect", Class::Exact, bitselectLane);
    Lane("select", Class::Exact, selectLane);
    Whole("any", Class::Relational, anyWhole);
    Whole("all", Class::Relational, allWhole);
    // Approximate.
    Lane("native_exp", Class::Native, nativeExp);
    Lane("native_exp2", Class::Native, nativeExp2);
    Lane("native_exp10", Class::Native, nativeExp10);
    Lane("native_log", Class::Native, nativeLog);
    Lane("native_log2", Class::Native, nativeLog2);
    Lane("native_log10", Class::Native, nativeLog10);
    Lane("native_sin", Class::Native, nativeSin);
    Lane("native_cos", Class::Native, nativeCos);
    Lane("native_tan", Class::Native, nativeTan);
    Lane("native_sqrt", Class::Native, nativeSqrt);
    Lane("native_rsqrt", Class::Native, nativeRsqrt);
    Lane("native_recip", Class::Native, nativeRecip);
    Lane("native_divide", Class::Native, nativeDivide);
    Lane("native_powr", Class::Native, nativePowr);
    Lane("half_exp", Class::Native, nativeExp);
    Lane("half_exp2", Class::Native, nativeExp2);
    Lane("half_exp10", Class::Native, nativeExp10);
    Lane("half_sqrt", Class::Native, nativeSqrt);
    Lane("half_rsqrt", Class::Native, nativeRsqrt);
    Lane("half_recip", Class::Native, nativeRecip);
    Lane("half_divide", Class::Native, nativeDivide);
    Lane("half_log", Class::Libdevice, floatDeviceLane<logStem>);
    Lane("half_log2", Class::Libdevice, floatDeviceLane<log2Stem>);
    Lane("half_log10", Class::Libdevice, floatDeviceLane<log10Stem>);
    Lane("half_sin", Class::Libdevice, floatDeviceLane<sinStem>);
    Lane("half_cos", Class::Libdevice, floatDeviceLane<cosStem>);
    Lane("half_tan", Class::Libdevice, floatDeviceLane<tanStem>);
    Lane("half_powr", Class::Libdevice, powrLane);
    // libdevice.
    Lane("acos", Class::Libdevice, deviceLane<acosStem>);
    Lane("acosh", Class::Libdevice, deviceLane<acoshStem>);
    Lane("asin", Class::Libdevice, deviceLane<asinStem>);
    Lane("asinh", Class::Libdevice, deviceLane<asinhStem>);
    Lane("atan", Class::Libdevice, deviceLane<atanStem>);
    Lane("atan2", Class::Libdevice, deviceLane<atan2Stem>);
    Lane("atanh", Class::Libdevice, deviceLane<atanhStem>);
    Lane("cbrt", Class::Libdevice, deviceLane<cbrtStem>);
    Lane("cos", Class::Libdevice, deviceLane<cosStem>);
    Lane("cosh", Class::Libdevice, deviceLane<coshStem>);
    Lane("cospi", Class::Libdevice, deviceLane<cospiStem>);
    Lane("erf", Class::Libdevice, deviceLane<erfStem>);
    Lane("erfc", Class::Libdevice, deviceLane<erfcStem>);
    Lane("exp", Class::Libdevice, deviceLane<expStem>);
    Lane("exp2", Class::Libdevice, deviceLane<exp2Stem>);
    Lane("exp10", Class::Libdevice, deviceLane<exp10Stem>);
    Lane("expm1", Class::Libdevice, deviceLane<expm1Stem>);
    Lane("fmod", Class::Libdevice, deviceLane<fmodStem>);
    Lane("hypot", Class::Libdevice, deviceLane<hypotStem>);
    Lane("lgamma", Class::Libdevice, deviceLane<lgammaStem>);
    Lane("log", Class::Libdevice, deviceLane<logStem>);
    Lane("log2", Class::Libdevice, deviceLane<log2Stem>);
    Lane("log10", Class::Libdevice, deviceLane<log10Stem>);
    Lane("log1p", Class::Libdevice, deviceLane<log1pStem>);
    Lane("logb", Class::Libdevice, deviceLane<logbStem>);
    Lane("nextafter", Class::Libdevice, deviceLane<nextafterStem>);
    Lane("pow", Class::Libdevice, deviceLane<powStem>);
    Lane("remainder", Class::Libdevice, deviceLane<remainderStem>);
    Lane("rsqrt", Class::Libdevice, deviceLane<rsqrtStem>);
    Lane("sin", Class::Libdevice, deviceLane<sinStem>);
    Lane("sinh", Class::Libdevice, deviceLane<sinhStem>);
    Lane("sinpi", Class::Libdevice, deviceLane<sinpiStem>);
    Lane("tan", Class::Libdevice, deviceLane<tanStem>);
    Lane("tanh", Class::Libdevice, deviceLane<tanhStem>);
    Lane("tgamma", Class::Libdevice, deviceLane<tgammaStem>);
    Lane("asinpi", Class::Libdevice, asinpiLane);
    Lane("acospi", Class::Libdevice, acospiLane);
    Lane("atanpi", Class::Libdevice, atanpiLane);
    Lane("atan2pi", Class::Libdevice, atan2piLane);
    Lane("tanpi", Class::Libdevice, tanpiLane);
    Lane("pown", Class::Libdevice, pownLane);
    Lane("powr", Class::Libdevice, powrLane);
    Lane("rootn", Class::Libdevice, rootnLane);
    Lane("ldexp", Class::Libdevice, ldexpLane);
    Lane("ilogb", Class::Libdevice, ilogbLane);
    Lane("frexp", Class::Libdevice, frexpLane);
    T["frexp"].PointerToInt = true;
    Lane("remquo", Class::Libdevice, remquoLane);
    T["remquo"].PointerToInt = true;
    Lane("modf", Class::Libdevice, modfLane);
    Lane("sincos", Class::Libdevice, sincosLane);
    // Geometric.
    Whole("dot", Class::Geometric, dotWhole);
    Whole("length", Class::Geometric, lengthWhole);
    Whole("distance", Class::Geometric, distanceWhole);
    Whole("normalize", Class::Geometric, normalizeWhole);
    Whole("cross", Class::Geometric, crossWhole);
    Whole("fast_length", Class::Geometric, fastLengthWhole);
    Whole("fast_distance", Class::Geometric, fastDistanceWhole);
    Whole("fast_normalize", Class::Geometric, fastNormalizeWhole);
    return T;
  }();
  return Table;
}

// Builtins of the same families this file does not define: refused by name, not left to a
// driver that does not resolve them.
bool knownUndefined(llvm::StringRef Name) {
  static const std::set<std::string, std::less<>> Names = {
      "lgamma_r", "shuffle", "shuffle2", "vstore_half_rtz", "vstore_half_rtp", "vstore_half_rtn"};
  return Names.count(Name) != 0 || Name.startswith("convert_") || Name.startswith("vload") ||
         Name.startswith("vstore");
}

// The table's entry for a plain name: conversions and vector-data functions by prefix.
const Builtin *entryFor(llvm::StringRef Name) {
  static const Builtin Conversion{Class::Conversion, convertLane, nullptr, false, false};
  static const Builtin Load{Class::VectorData, nullptr, vloadWhole, false, false};
  static const Builtin Store{Class::VectorData, nullptr, vstoreWhole, false, false};
  if (Name.startswith("convert_"))
    return &Conversion;
  if (Name.startswith("vload"))
    return &Load;
  if (Name.startswith("vstore"))
    return &Store;
  const auto Found = table().find(Name);
  return Found == table().end() ? nullptr : &Found->second;
}

llvm::IRBuilder<> startDefinition(llvm::Function &F) {
  F.setLinkage(llvm::GlobalValue::InternalLinkage);
  F.setCallingConv(llvm::CallingConv::C);
  F.setAttributes(llvm::AttributeList());
  F.addFnAttr(llvm::Attribute::AlwaysInline);
  F.addFnAttr(llvm::Attribute::NoUnwind);
  return llvm::IRBuilder<>(llvm::BasicBlock::Create(F.getContext(), "entry", &F));
}

void undoDefinition(llvm::Function &F) {
  F.deleteBody();
  F.setLinkage(llvm::GlobalValue::ExternalLinkage);
}

unsigned widthOf(llvm::Type *T) {
  if (auto *Vector = llvm::dyn_cast<llvm::FixedVectorType>(T))
    return Vector->getNumElements();
  return 1;
}

// F defined lane by lane: each vector argument's lane, each scalar argument as it is
// (min(float4, float)), each pointer argument as a pointer to the lane's element.
bool defineLanes(Emit &E, llvm::Function &F, const Builtin &How) {
  llvm::Type *Returns = F.getReturnType();
  unsigned Width = widthOf(Returns);
  for (llvm::Argument &Argument : F.args())
    Width = std::max(Width, widthOf(Argument.getType()));
  E.Vector = Width > 1 || Returns->isVectorTy();
  E.Result = Returns->getScalarType();
  if (Returns->isVoidTy())
    return false;
  std::vector<Value *> Lanes;
  for (unsigned I = 0; I < Width; ++I) {
    std::vector<Value *> Arguments;
    for (llvm::Argument &Argument : F.args()) {
      llvm::Type *T = Argument.getType();
      if (T->isVectorTy()) {
        Arguments.push_back(E.B.CreateExtractElement(&Argument, I));
      } else if (T->isPointerTy()) {
        llvm::Type *Element = How.PointerToInt ? E.int32() : E.Result;
        Arguments.push_back(E.B.CreateConstGEP1_32(Element, &Argument, I));
      } else {
        Arguments.push_back(&Argument);
      }
    }
    Value *Made = How.Lane(E, Arguments);
    if (Made == nullptr)
      return false;
    if (How.What == Class::Relational)
      Made = E.Vector ? E.B.CreateSExt(Made, E.Result) : E.B.CreateZExt(Made, E.Result);
    if (Made->getType() != E.Result)
      return false;
    Lanes.push_back(Made);
  }
  E.B.CreateRet(vectorOf(E, Returns, Lanes));
  return true;
}

// How many arguments the builtin takes (the table's lane functions read that many).
unsigned arityOf(llvm::StringRef Name) {
  static const std::set<std::string, std::less<>> Two = {
      "copysign",      "fmin",      "fmax",           "fdim",          "maxmag",
      "minmag",        "fract",     "step",           "abs_diff",      "add_sat",
      "sub_sat",       "hadd",      "rhadd",          "max",           "min",
      "mul_hi",        "mul24",     "rotate",         "upsample",      "isequal",
      "isnotequal",    "isgreater", "isgreaterequal", "isless",        "islessequal",
      "islessgreater", "isordered", "isunordered",    "native_divide", "native_powr",
      "half_divide",   "half_powr", "atan2",          "fmod",          "hypot",
      "nextafter",     "pow",       "remainder",      "atan2pi",       "pown",
      "powr",          "rootn",     "ldexp",          "frexp",         "modf",
      "sincos",        "dot",       "distance",       "cross",         "fast_distance"};
  static const std::set<std::string, std::less<>> Three = {
      "fma",     "mix",   "smoothstep", "clamp",  "mad_hi",
      "mad_sat", "mad24", "bitselect",  "select", "remquo"};
  if (Name.startswith("vload"))
    return 2;
  if (Name.startswith("vstore"))
    return 3;
  if (Two.count(Name) != 0)
    return 2;
  if (Three.count(Name) != 0)
    return 3;
  return 1;
}

// Whether F's vector arguments and result agree in width (or are scalar): what the lane
// functions assume.
bool consistentWidths(const llvm::Function &F) {
  unsigned Width = 0;
  auto Agrees = [&Width](llvm::Type *T) {
    auto *Vector = llvm::dyn_cast<llvm::FixedVectorType>(T);
    if (Vector == nullptr)
      return !T->isVectorTy();
    if (Width == 0)
      Width = Vector->getNumElements();
    return Width == Vector->getNumElements();
  };
  bool Agreed = Agrees(F.getReturnType());
  for (const llvm::Argument &Argument : F.args())
    Agreed = Agreed && Agrees(Argument.getType());
  return Agreed;
}

bool defineOne(llvm::Function &F, llvm::StringRef Name, const std::vector<char> &Elements,
               const Builtin &How, bool &UsesLibdevice) {
  // Declarations of another shape than OpenCL's (a module may declare anything) are not
  // defined: the builtin is then refused by name.
  if (F.arg_size() != arityOf(Name) || F.isVarArg() ||
      (How.Lane != nullptr && !consistentWidths(F)))
    return false;
  llvm::IRBuilder<> B = startDefinition(F);
  Emit E{B, *F.getParent(), Name.str(), Elements, F.getReturnType()->getScalarType()};
  E.Signed = !Elements.empty() && signedCode(Elements[0]);
  bool Done = false;
  if (How.Lane != nullptr) {
    Done = defineLanes(E, F, How);
  } else {
    E.Vector = F.getReturnType()->isVectorTy();
    Value *Made = How.Whole(E, F);
    if (Made != nullptr && F.getReturnType()->isVoidTy()) {
      B.CreateRetVoid();
      Done = true;
    } else if (Made != nullptr && Made->getType() == F.getReturnType()) {
      B.CreateRet(Made);
      Done = true;
    }
  }
  // A definition that does not verify (argument types the lanes do not expect) is dropped.
  if (!Done || llvm::verifyFunction(F)) {
    undoDefinition(F);
    return false;
  }
  UsesLibdevice = UsesLibdevice || E.UsesLibdevice;
  return true;
}

// libdevice read into M's context and linked in: only the functions M calls, made internal
// so that the PTX defines nothing beyond the module's own functions. __nvvm_reflect
// ("__CUDA_FTZ") reads the module flag nvvm-reflect-ftz: 0, OpenCL's default of
// preserved denormals; NVPTX's NVVMReflect pass (-O2 and the code generator) folds it.
bool linkLibdevice(llvm::Module &M, const std::string &Bytes, const std::string &Path,
                   std::string &Error) {
  llvm::Expected<std::unique_ptr<llvm::Module>> Library = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(llvm::StringRef(Bytes.data(), Bytes.size()), Path), M.getContext());
  if (!Library) {
    Error = "libdevice '" + Path + "' cannot be read: " + llvm::toString(Library.takeError());
    return false;
  }
  (*Library)->setTargetTriple(M.getTargetTriple());
  (*Library)->setDataLayout(M.getDataLayout());
  std::set<std::string> Own;
  for (const llvm::GlobalValue &Value : M.global_values())
    if (!Value.isDeclaration())
      Own.insert(Value.getName().str());
  if (llvm::Linker::linkModules(M, std::move(*Library), llvm::Linker::Flags::LinkOnlyNeeded)) {
    Error = "libdevice '" + Path + "' cannot be linked into the module";
    return false;
  }
  for (llvm::GlobalValue &Value : M.global_values())
    if (!Value.isDeclaration() && Own.count(Value.getName().str()) == 0)
      Value.setLinkage(llvm::GlobalValue::InternalLinkage);
  if (M.getModuleFlag("nvvm-reflect-ftz") == nullptr)
    M.addModuleFlag(llvm::Module::Override, "nvvm-reflect-ftz", uint32_t{0});
  // libdevice's inline assembly (rsqrt.approx.ftz.f64) needs PTX ISA 4.0; the NVPTX
  // backend writes 3.2 for the nvcl target (sm_20).
  if (M.getModuleFlag(PtxVersionFlag) == nullptr)
    M.addModuleFlag(llvm::Module::Max, PtxVersionFlag, uint32_t{40});
  return true;
}

} // namespace

std::string libdevicePath(std::string &Why) {
  const std::string File = "nvvm/libdevice/libdevice.10.bc";
  if (const char *Named = std::getenv("DGLINK_LIBDEVICE"); Named != nullptr && *Named != 0) {
    if (std::ifstream(Named).good())
      return Named;
    Why = std::string("DGLINK_LIBDEVICE names '") + Named + "', which cannot be read";
    return {};
  }
  std::vector<std::string> Tried;
  for (const char *Variable : {"CUDA_PATH", "CUDA_HOME"})
    if (const char *Root = std::getenv(Variable); Root != nullptr && *Root != 0)
      Tried.push_back(std::string(Root) + "/" + File);
  Tried.push_back("/usr/local/cuda/" + File);
  for (const std::string &Path : Tried)
    if (std::ifstream(Path).good())
      return Path;
  Why = "no libdevice found (DGLINK_LIBDEVICE unset; tried";
  for (const std::string &Path : Tried)
    Why += " " + Path;
  Why += ")";
  return {};
}

bool defineMathBuiltins(llvm::Module &M, std::string &Error) {
  std::string Path, Why;
  std::vector<std::string> NoLibdevice, Uncovered;
  bool UsesLibdevice = false;
  std::vector<llvm::Function *> Declared;
  for (llvm::Function &F : M)
    if (F.isDeclaration() && !F.isIntrinsic())
      Declared.push_back(&F);
  for (llvm::Function *F : Declared) {
    std::string Name;
    std::vector<char> Elements;
    if (!readName(F->getName(), Name, Elements))
      continue;
    const Builtin *How = entryFor(Name);
    if (How == nullptr) {
      if (knownUndefined(Name))
        Uncovered.push_back(F->getName().str());
      continue;
    }
    if (How->NeedsLibdevice && libdeviceBytes(Path, Why).empty()) {
      NoLibdevice.push_back(F->getName().str());
      continue;
    }
    bool Needed = false;
    if (!defineOne(*F, Name, Elements, *How, Needed)) {
      Uncovered.push_back(F->getName().str());
      continue;
    }
    if (Needed && libdeviceBytes(Path, Why).empty()) {
      // A builtin of another class that reached libdevice for one of its forms.
      undoDefinition(*F);
      NoLibdevice.push_back(F->getName().str());
    }
    UsesLibdevice = UsesLibdevice || Needed;
  }
  auto Join = [](const std::vector<std::string> &Names) {
    std::string Out;
    for (const std::string &Name : Names)
      Out += (Out.empty() ? "" : ", ") + Name;
    return Out;
  };
  if (!NoLibdevice.empty() || !Uncovered.empty()) {
    Error = "NVIDIA's OpenCL does not resolve OpenCL builtins in a PTX binary, and the "
            "translation cannot define ";
    if (!NoLibdevice.empty())
      Error += "these without NVIDIA's libdevice: " + Join(NoLibdevice) + " (" + Why +
               "; set DGLINK_LIBDEVICE to libdevice.10.bc, or CUDA_PATH to a CUDA toolkit)";
    if (!NoLibdevice.empty() && !Uncovered.empty())
      Error += "; nor ";
    if (!Uncovered.empty())
      Error += "these forms, which it does not cover: " + Join(Uncovered);
    return false;
  }
  if (UsesLibdevice && !linkLibdevice(M, libdeviceBytes(Path, Why), Path, Error))
    return false;
  // Declarations of libdevice functions nothing called any more.
  for (llvm::Function &F : llvm::make_early_inc_range(M))
    if (F.isDeclaration() && F.use_empty() && F.getName().startswith("__nv_"))
      F.eraseFromParent();
  return true;
}

} // namespace dglink::device_code

namespace dglink::device_code {

void raisePtxVersion(const llvm::Module &M, std::vector<uint8_t> &Ptx) {
  const auto *Least =
      llvm::mdconst::extract_or_null<llvm::ConstantInt>(M.getModuleFlag(PtxVersionFlag));
  if (Least == nullptr)
    return;
  const std::string Text(Ptx.begin(), Ptx.end());
  const size_t At = Text.find(".version ");
  if (At == std::string::npos)
    return;
  const size_t End = Text.find('\n', At);
  unsigned Major = 0, Minor = 0;
  if (std::sscanf(Text.c_str() + At, ".version %u.%u", &Major, &Minor) != 2 ||
      Major * 10 + Minor >= Least->getZExtValue())
    return;
  const std::string Line = ".version " + std::to_string(Least->getZExtValue() / 10) + "." +
                           std::to_string(Least->getZExtValue() % 10);
  const std::string Raised = Text.substr(0, At) + Line + Text.substr(End);
  Ptx.assign(Raised.begin(), Raised.end());
}

} // namespace dglink::device_code
