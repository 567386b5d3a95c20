// The one entry point between the front of common/device_code (no LLVM) and its LLVM
// side, libdglink_device_code_llvm.so, which the front opens with dlopen and resolves
// by this name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dglink::device_code {

inline constexpr const char *TranslatorLibrary = "libdglink_device_code_llvm.so";
inline constexpr const char *TranslateSymbol = "dglinkTranslateSpirv";

// Translates the SPIR-V module Data (already checked by checkSpirvModule) into the
// DeviceCode numbered To; true with Out set, or false with Error saying why. Never
// throws. Calls are serialised by the caller.
using TranslateFunction = bool (*)(const uint8_t *Data, size_t Size, int To,
                                   std::vector<uint8_t> *Out, std::string *Error);

// Asked together with To: lower the module's device globals (every mutable program-scope
// variable of the global address space) into storage the adapter owns, as the shim's
// `--lower-device-globals` does (docs/opencl-lowering.md). Out is then a lowered answer:
//   "DGLOWER1", u64 code bytes, the code, u64 storage bytes, u32 reason bytes, the reason
//   (why the variables could not be lowered: the code is then the plain translation),
//   u32 variables, each: u32 symbol bytes, the symbol, u64 offset, u64 size,
//   u32 initializer bytes, the initializer (empty: zeros).
// Integers little-endian. No variables and no reason: the module had nothing to lower.
inline constexpr int LowerDeviceGlobalsFlag = 0x100;
inline constexpr char LoweredAnswerMagic[8] = {'D', 'G', 'L', 'O', 'W', 'E', 'R', '1'};

} // namespace dglink::device_code
