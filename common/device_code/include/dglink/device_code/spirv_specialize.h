// Specialization constants of a SPIR-V module, set the way SPIR-V defines them: each
// OpSpecConstant* that carries a SpecId decoration gets the caller's value as its
// default, so that every consumer of the module (a driver, the translator) sees the
// specialized value. No LLVM: the module's words are read and rewritten in place.
#pragma once

#include <dglink/pi.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace dglink::device_code {

// The module's specialization constants: SpecId -> the bytes of its value (bool: 1;
// an integer or float: its width / 8). The module must have passed checkSpirvModule.
std::map<uint32_t, size_t> spirvSpecConstants(const void *Data, size_t Size);

// Out = the module with each constant of Values (SpecId -> the value's bytes, little
// endian) as its new default. An id the module does not have is
// PI_ERROR_INVALID_SPEC_ID-like: PI_ERROR_INVALID_VALUE with "... has no specialization
// constant with SpecId N"; a value of another size PI_ERROR_INVALID_VALUE naming both
// sizes; Out is then untouched. Messages name Function.
pi_result specializeSpirv(const char *Function, const void *Data, size_t Size,
                          const std::map<uint32_t, std::vector<uint8_t>> &Values,
                          std::vector<uint8_t> &Out);

} // namespace dglink::device_code
