// SPIR-V into what a device takes: the check, the cache, and the LLVM side opened on
// first use and run in its own process (translate.h, translator_process.h).
#include "translator_process.h"
#include "llvm/translator.h"

#include <dglink/device_code/spirv_module.h>
#include <dglink/device_code/translate.h>
#include <dglink/support/error.h>

#include <dlfcn.h>

#include <memory>
#include <mutex>
#include <string>

namespace dglink::device_code {
namespace {

// The LLVM side, opened once per process: from the folder of the library this code is
// in (an adapter, beside which it is built and installed), else by the loader's search.
struct Translator {
  TranslateFunction Translate = nullptr;
  std::string Why;                            // why it could not be loaded
  std::unique_ptr<TranslatorProcess> Process; // where it runs (translator_process.h)
};

Translator &translator() {
  static Translator Loaded;
  static std::once_flag Once;
  std::call_once(Once, [] {
    std::string Path = TranslatorLibrary;
    Dl_info Info{};
    if (dladdr(reinterpret_cast<void *>(&translator), &Info) != 0 && Info.dli_fname != nullptr) {
      const std::string Self = Info.dli_fname;
      const size_t Slash = Self.rfind('/');
      if (Slash != std::string::npos)
        Path = Self.substr(0, Slash + 1) + TranslatorLibrary;
    }
    void *Handle = dlopen(Path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (Handle == nullptr && Path != TranslatorLibrary) {
      const std::string Beside = dlerror();
      Handle = dlopen(TranslatorLibrary, RTLD_NOW | RTLD_LOCAL);
      if (Handle == nullptr)
        Loaded.Why = Beside + "; " + dlerror();
    } else if (Handle == nullptr) {
      Loaded.Why = dlerror();
    }
    if (Handle == nullptr)
      return;
    // Kept open for the life of the process: LLVM registers process-wide state.
    Loaded.Translate = reinterpret_cast<TranslateFunction>(dlsym(Handle, TranslateSymbol));
    if (Loaded.Translate == nullptr)
      Loaded.Why = std::string(TranslatorLibrary) + " has no " + TranslateSymbol;
    else
      Loaded.Process = std::make_unique<TranslatorProcess>(Loaded.Translate);
  });
  return Loaded;
}

// What a kind of device code is, in words, for messages.
std::string describe(DeviceCode Code) {
  switch (Code) {
  case DeviceCode::Spir:
    return "SPIR 1.2 bitcode (spir64)";
  case DeviceCode::Ptx:
    return "PTX (nvptx64)";
  default:
    return deviceCodeName(Code);
  }
}

} // namespace

bool canTranslateSpirvInto(DeviceCode To) { return To == DeviceCode::Spir; }

TranslationCache &translationCache() {
  static TranslationCache Cache;
  return Cache;
}

bool translatorAvailable(std::string &Why) {
  Translator &Side = translator();
  Why = Side.Why;
  return Side.Translate != nullptr;
}

size_t translatorStarts() {
  const Translator &Side = translator();
  return Side.Process ? Side.Process->starts() : 0;
}

pi_result translateSpirv(const char *Function, const void *Data, size_t Size, DeviceCode To,
                         Bytes &Out) {
  if (!canTranslateSpirvInto(To))
    return fail(PI_ERROR_INVALID_OPERATION, "{}: SPIR-V cannot be translated into {} here",
                Function, describe(To));
  // Only checked modules are kept, so a hit needs no second look at the words.
  if (Bytes Cached = translationCache().find(Data, Size, To)) {
    Out = std::move(Cached);
    return PI_SUCCESS;
  }
  DGLINK_TRY(checkSpirvModule(Function, Data, Size));
  Translator &Side = translator();
  if (Side.Translate == nullptr)
    return fail(PI_ERROR_INVALID_OPERATION,
                "{}: the device does not take SPIR-V and the SPIR-V translator ({}) cannot be "
                "loaded: {}",
                Function, TranslatorLibrary, Side.Why);
  auto Made = std::make_shared<std::vector<uint8_t>>();
  std::string Why;
  if (!Side.Process->translate(Data, Size, To, *Made, Why))
    return fail(PI_ERROR_INVALID_BINARY, "{}: the SPIR-V module cannot be translated into {}: {}",
                Function, describe(To), Why);
  Out = std::move(Made);
  translationCache().insert(Data, Size, To, Out);
  return PI_SUCCESS;
}

} // namespace dglink::device_code
