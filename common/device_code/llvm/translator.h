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

} // namespace dglink::device_code
