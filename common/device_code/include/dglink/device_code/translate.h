// SPIR-V turned into what a device takes when its driver does not take SPIR-V: SPIR 1.2
// bitcode for cl_khr_spir devices (PoCL 3.1), PTX (nvptx64-nvidia-nvcl, as clang-15
// writes OpenCL C for it) for NVIDIA's OpenCL. The front checks the module
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
#include <dglink/support/image.h>

#include <cstddef>
#include <optional>
#include <string>

namespace dglink::device_code {

// The kinds of device code SPIR-V can be translated into here: Spir and Ptx.
bool canTranslateSpirvInto(DeviceCode To);

// Out = the module Data in the form To. Errors, with messages naming Function:
// PI_ERROR_INVALID_BINARY for a malformed module (checkSpirvModule) or one the
// translator refuses (its reason); PI_ERROR_INVALID_OPERATION where no translation into
// To exists or the LLVM side cannot be loaded (dlerror's reason).
pi_result translateSpirv(const char *Function, const void *Data, size_t Size, DeviceCode To,
                         Bytes &Out);

// A module made ready for an OpenCL device that cannot reach device globals by name:
// its device globals (every mutable program-scope variable of the global address space)
// lowered into storage the adapter owns, as `dglink compile --lower-device-globals`
// does (docs/opencl-lowering.md), so that every kernel takes the storage as its last
// argument.
struct LoweredTranslation {
  Bytes Code; // the module in the form asked for
  // Where each variable lives, by unique id (the HostAccessINTEL name DPC++ gives a
  // device global, else the variable's symbol); empty where nothing was lowered.
  std::optional<LoweredStorage> Lowered;
  // Why the module's variables could not be lowered (the code is then the plain
  // translation); empty where they were, or where there were none.
  std::string NotLowered;
};

// Out = the module Data in the form To (Spir, Ptx; or SpirV, the module itself where
// nothing was lowered) with its device globals lowered. Errors as translateSpirv's; a module
// whose variables cannot be lowered is not an error (Out.NotLowered says why).
pi_result translateSpirvLowered(const char *Function, const void *Data, size_t Size, DeviceCode To,
                                LoweredTranslation &Out);

// The process's cache of translations (its counters, for tests and benchmarks).
TranslationCache &translationCache();

// Whether the LLVM side can be loaded here; Why says why not.
bool translatorAvailable(std::string &Why);

// How many times the translator's process has been started in this process (it starts
// at the first translation and again after it dies); for tests.
size_t translatorStarts();

} // namespace dglink::device_code
