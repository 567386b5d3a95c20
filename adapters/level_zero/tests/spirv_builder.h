// A few lines of SPIR-V assembly for tests: words built by hand, so that a test
// says exactly which instructions a module holds (and can break any of them).
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>

namespace dglink::ze_test {

class SpirvBuilder {
public:
  explicit SpirvBuilder(uint32_t Bound = 100, uint32_t Version = 0x00010400)
      : Words{0x07230203, Version, 0, Bound, 0} {
    op(17, {4});    // OpCapability Addresses
    op(17, {5});    // OpCapability Linkage
    op(17, {6});    // OpCapability Kernel
    op(14, {2, 2}); // OpMemoryModel Physical64 OpenCL
  }
  // An instruction: opcode and operands (the word count is computed).
  SpirvBuilder &op(uint32_t Opcode, std::initializer_list<uint32_t> Operands) {
    return op(Opcode, std::vector<uint32_t>(Operands));
  }
  SpirvBuilder &op(uint32_t Opcode, const std::vector<uint32_t> &Operands) {
    Words.push_back(static_cast<uint32_t>(Operands.size() + 1) << 16 | Opcode);
    Words.insert(Words.end(), Operands.begin(), Operands.end());
    return *this;
  }
  // A literal string's words (NUL-terminated, zero-padded).
  static std::vector<uint32_t> string(const std::string &Text) {
    std::vector<uint32_t> Out(Text.size() / 4 + 1, 0);
    std::memcpy(Out.data(), Text.data(), Text.size());
    return Out;
  }
  static std::vector<uint32_t> join(std::vector<uint32_t> A, const std::vector<uint32_t> &B) {
    A.insert(A.end(), B.begin(), B.end());
    return A;
  }
  // OpDecorate Target LinkageAttributes "Name" Export(0) / Import(1)
  SpirvBuilder &linkage(uint32_t Target, const std::string &Name, uint32_t Type) {
    return op(71, join(join({Target, 41}, string(Name)), {Type}));
  }
  // OpDecorate Target HostAccessINTEL Mode "Name" (llvm-spirv 15's 6147)
  SpirvBuilder &hostAccess(uint32_t Target, uint32_t Mode, const std::string &Name) {
    return op(71, join({Target, 6147, Mode}, string(Name)));
  }
  const std::vector<uint32_t> &words() const { return Words; }
  std::vector<uint8_t> bytes() const {
    std::vector<uint8_t> Out(Words.size() * 4);
    std::memcpy(Out.data(), Words.data(), Out.size());
    return Out;
  }

private:
  std::vector<uint32_t> Words;
};

// A SPIR-V file of the conformance device code (empty if it is not there).
inline std::vector<uint8_t> readSpirvFile(const std::string &Directory, const std::string &Name) {
  std::ifstream File(Directory + "/" + Name + ".spv", std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(File), {});
}

} // namespace dglink::ze_test
