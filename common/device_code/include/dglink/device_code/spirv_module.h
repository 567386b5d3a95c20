// The first look at a SPIR-V module from outside (an IL a runtime hands an adapter):
// its physical layout checked word by word before any driver or translator reads it,
// so that a malformed module is refused the same way on every device.
#pragma once

#include <dglink/pi.h>

#include <cstddef>
#include <cstdint>

namespace dglink::device_code {

inline constexpr uint32_t SpirvMagic = 0x07230203u;
inline constexpr size_t SpirvHeaderWords = 5;
// One more than the largest id SPIR-V's universal limits allow (section 2.17).
inline constexpr uint32_t MaxIdBound = 0x400000;

// PI_SUCCESS where Data holds a SPIR-V module whose physical layout is sound (SPIR-V
// 1.0-1.6, section 2.3): a whole number of little-endian words; the 5-word header (magic,
// a SPIR-V version, generator, an id bound within SPIR-V's limits, schema 0);
// instructions whose word counts tile the rest exactly; the ids of type, constant,
// variable, function, label, name and decoration instructions inside the bound, each
// result defined once; functions closed by OpFunctionEnd and not nested; one
// OpMemoryModel. Else PI_ERROR_INVALID_BINARY and the last error
// "<Function>: the SPIR-V module is malformed: <what, at which word>". What the words mean
// is left to the reader of the module (a driver, or the translator, which runs apart).
pi_result checkSpirvModule(const char *Function, const void *Data, size_t Size);

} // namespace dglink::device_code
