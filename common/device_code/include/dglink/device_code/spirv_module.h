// The first look at a SPIR-V module from outside (an IL a runtime hands an adapter):
// its physical layout checked word by word before any driver or translator reads it,
// so that a malformed module is refused the same way on every device.
#pragma once

#include <dglink/pi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>

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

// The host names of a checked module's variables, by symbol (the variable's linkage
// name, else its OpName): the name of each HostAccessINTEL decoration, which DPC++ gives
// a device global (its unique id, by which the runtime reads and writes it) and which
// LLVMSPIRVLib 15 drops when it reads the module back.
std::map<std::string, std::string> spirvHostAccessNames(const void *Data, size_t Size);

// The work-group size each entry point of a checked module requires by its own code (an
// OpExecutionMode LocalSize, x y z, which OpenCL C's reqd_work_group_size becomes), by the
// entry point's name; entry points without one are not in the map.
std::map<std::string, std::array<uint32_t, 3>> spirvRequiredGroupSizes(const void *Data,
                                                                       size_t Size);

// Whether a checked module has module-scope variables of the global address space
// (storage class CrossWorkgroup): the only ones the lowering of device globals moves.
bool spirvHasGlobalVariables(const void *Data, size_t Size);

} // namespace dglink::device_code
