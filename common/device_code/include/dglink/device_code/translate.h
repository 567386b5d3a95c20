// SPIR-V turned into what a device takes when its driver does not take SPIR-V: SPIR 1.2
// bitcode for cl_khr_spir devices (PoCL 3.1). The front checks the module
// (spirv_module.h), answers from the process's translation cache, and otherwise hands
// the module to the LLVM side, libdglink_device_code_llvm.so (LLVM 15 and
// LLVMSPIRVLib), which it opens on first use from beside the library that calls it, so
// that an adapter loads, and serves everything else, on a host without LLVM. The LLVM
// side runs in a child process (translator_process.h): what aborts or exits there is
// the module's failure, not the caller's.
#pragma once

#include <dglink/device_code/translation_cache.h>
#include <dglink/pi.h>
#include <dglink/support/device_code.h>

#include <cstddef>
#include <string>

namespace dglink::device_code {

// The kinds of device code SPIR-V can be translated into here (Spir only, for now).
bool canTranslateSpirvInto(DeviceCode To);

// Out = the module Data in the form To. Errors, with messages naming Function:
// PI_ERROR_INVALID_BINARY for a malformed module (checkSpirvModule) or one the
// translator refuses (its reason); PI_ERROR_INVALID_OPERATION where no translation into
// To exists or the LLVM side cannot be loaded (dlerror's reason).
pi_result translateSpirv(const char *Function, const void *Data, size_t Size, DeviceCode To,
                         Bytes &Out);

// The process's cache of translations (its counters, for tests and benchmarks).
TranslationCache &translationCache();

// Whether the LLVM side can be loaded here; Why says why not.
bool translatorAvailable(std::string &Why);

// How many times the translator's process has been started in this process (it starts
// at the first translation and again after it dies); for tests.
size_t translatorStarts();

} // namespace dglink::device_code
