// Specialization constants set in a SPIR-V module's words (SPIR-V 1.6 sections 2.12 and
// 3.42.7): OpSpecConstantTrue/False swap for a bool, OpSpecConstant's literal words take
// the value for an integer or float.
#include <dglink/device_code/spirv_module.h>
#include <dglink/device_code/spirv_specialize.h>
#include <dglink/support/error.h>

#include <cstring>
#include <string>

namespace dglink::device_code {
namespace {

enum : uint16_t {
  OpTypeBool = 20,
  OpTypeInt = 21,
  OpTypeFloat = 22,
  OpSpecConstantTrue = 48,
  OpSpecConstantFalse = 49,
  OpSpecConstant = 50,
  OpDecorate = 71,
};
constexpr uint32_t SpecIdDecoration = 1;

struct Scalar {
  uint32_t Width = 0; // bits; 0 for bool
  bool Signed = false;
  bool Bool = false;
};

// One specialization constant: where its instruction is and what it holds.
struct Constant {
  size_t At = 0; // word index of its instruction
  uint32_t Words = 0;
  Scalar Type;
  size_t bytes() const { return Type.Bool ? 1 : Type.Width / 8; }
};

class Words {
public:
  Words(const void *Data, size_t Size)
      : Bytes(static_cast<const unsigned char *>(Data)), Count(Data == nullptr ? 0 : Size / 4) {}
  uint32_t operator[](size_t Index) const {
    uint32_t Value;
    std::memcpy(&Value, Bytes + Index * 4, 4);
    return Value;
  }
  size_t size() const { return Count; }

private:
  const unsigned char *Bytes;
  size_t Count;
};

// Every constant with a SpecId whose type is a scalar this code can set, by SpecId.
std::map<uint32_t, Constant> constantsOf(const void *Data, size_t Size) {
  const Words W(Data, Size);
  std::map<uint32_t, uint32_t> SpecIds;  // result id -> SpecId
  std::map<uint32_t, Scalar> Types;      // result id -> scalar type
  std::map<uint32_t, Constant> ByResult; // result id -> constant
  for (size_t At = SpirvHeaderWords; At < W.size();) {
    const uint32_t Count = W[At] >> 16;
    const auto Op = static_cast<uint16_t>(W[At] & 0xFFFF);
    if (Count == 0 || Count > W.size() - At)
      break;
    if (Op == OpDecorate && Count >= 4 && W[At + 2] == SpecIdDecoration)
      SpecIds[W[At + 1]] = W[At + 3];
    else if (Op == OpTypeBool && Count >= 2)
      Types[W[At + 1]] = Scalar{0, false, true};
    else if ((Op == OpTypeInt && Count >= 4) || (Op == OpTypeFloat && Count >= 3))
      Types[W[At + 1]] = Scalar{W[At + 2], Op == OpTypeInt && W[At + 3] != 0, false};
    else if ((Op == OpSpecConstantTrue || Op == OpSpecConstantFalse || Op == OpSpecConstant) &&
             Count >= 3) {
      const auto Type = Types.find(W[At + 1]);
      if (Type != Types.end())
        ByResult[W[At + 2]] = Constant{At, Count, Type->second};
    }
    At += Count;
  }
  std::map<uint32_t, Constant> BySpecId;
  for (const auto &[Result, Constant] : ByResult) {
    const auto Id = SpecIds.find(Result);
    if (Id == SpecIds.end())
      continue;
    const bool Settable =
        Constant.Type.Bool || ((Constant.Type.Width == 8 || Constant.Type.Width == 16 ||
                                Constant.Type.Width == 32 || Constant.Type.Width == 64) &&
                               Constant.Words == 3 + (Constant.Type.Width == 64 ? 2u : 1u));
    if (Settable)
      BySpecId[Id->second] = Constant;
  }
  return BySpecId;
}

} // namespace

std::map<uint32_t, size_t> spirvSpecConstants(const void *Data, size_t Size) {
  std::map<uint32_t, size_t> Result;
  for (const auto &[Id, Constant] : constantsOf(Data, Size))
    Result[Id] = Constant.bytes();
  return Result;
}

pi_result specializeSpirv(const char *Function, const void *Data, size_t Size,
                          const std::map<uint32_t, std::vector<uint8_t>> &Values,
                          std::vector<uint8_t> &Out) {
  const std::map<uint32_t, Constant> Constants = constantsOf(Data, Size);
  for (const auto &[Id, Value] : Values) {
    const auto Found = Constants.find(Id);
    if (Found == Constants.end())
      return fail(PI_ERROR_INVALID_SPEC_ID,
                  "{}: the SPIR-V module has no specialization constant with SpecId {}", Function,
                  Id);
    if (Value.size() != Found->second.bytes())
      return fail(PI_ERROR_INVALID_VALUE,
                  "{}: specialization constant {} has {} bytes in the module, the value {}",
                  Function, Id, Found->second.bytes(), Value.size());
  }
  std::vector<uint8_t> Made(static_cast<const uint8_t *>(Data),
                            static_cast<const uint8_t *>(Data) + Size);
  const auto SetWord = [&Made](size_t Index, uint32_t Word) {
    std::memcpy(Made.data() + Index * 4, &Word, 4);
  };
  for (const auto &[Id, Value] : Values) {
    const Constant &C = Constants.at(Id);
    if (C.Type.Bool) {
      const uint16_t Op = Value[0] != 0 ? OpSpecConstantTrue : OpSpecConstantFalse;
      SetWord(C.At, (C.Words << 16) | Op);
      continue;
    }
    // The literal: low-order word first; a narrower integer fills its word, sign-extended
    // where the type is signed (section 2.2.1, "Literal").
    uint64_t Bits = 0;
    std::memcpy(&Bits, Value.data(), Value.size());
    if (C.Type.Signed && C.Type.Width < 64 && ((Bits >> (C.Type.Width - 1)) & 1) != 0)
      Bits |= ~uint64_t(0) << C.Type.Width;
    else if (C.Type.Width < 32)
      Bits &= (uint64_t(1) << C.Type.Width) - 1;
    SetWord(C.At + 3, static_cast<uint32_t>(Bits));
    if (C.Type.Width == 64)
      SetWord(C.At + 4, static_cast<uint32_t>(Bits >> 32));
  }
  Out = std::move(Made);
  return PI_SUCCESS;
}

} // namespace dglink::device_code
