// SPIR-V into what a device takes: the check, the cache, and the LLVM side opened on
// first use and run in its own process (translate.h, translator_process.h).
#include "translator_process.h"
#include "llvm/translator.h"

#include <dglink/device_code/spirv_module.h>
#include <dglink/device_code/translate.h>
#include <dglink/support/error.h>
#include <dglink/support/image.h>

#include <dlfcn.h>

#include <cstring>
#include <map>
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

bool canTranslateSpirvInto(DeviceCode To) {
  return To == DeviceCode::Spir || To == DeviceCode::Ptx;
}

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

namespace {

// One request to the LLVM side (To, perhaps with LowerDeviceGlobalsFlag), through the
// cache: Out is its answer.
pi_result request(const char *Function, const void *Data, size_t Size, DeviceCode To, bool Lower,
                  Bytes &Out) {
  // The cache keys a lowering request apart from a plain one of the same target.
  const int Request = static_cast<int>(To) | (Lower ? LowerDeviceGlobalsFlag : 0);
  const auto Key = static_cast<DeviceCode>(Request);
  // Only checked modules are kept, so a hit needs no second look at the words.
  if (Bytes Cached = translationCache().find(Data, Size, Key)) {
    Out = std::move(Cached);
    return PI_SUCCESS;
  }
  DGLINK_TRY(checkSpirvModule(Function, Data, Size));
  Translator &Side = translator();
  if (Side.Translate == nullptr)
    return fail(PI_ERROR_INVALID_OPERATION,
                "{}: the device does not take SPIR-V {}and the SPIR-V translator ({}) cannot be "
                "loaded: {}",
                Function, Lower ? "with device globals it can reach " : "", TranslatorLibrary,
                Side.Why);
  auto Made = std::make_shared<std::vector<uint8_t>>();
  std::string Why;
  if (!Side.Process->translate(Data, Size, Key, *Made, Why))
    return fail(PI_ERROR_INVALID_BINARY, "{}: the SPIR-V module cannot be translated into {}: {}",
                Function, describe(To), Why);
  Out = std::move(Made);
  translationCache().insert(Data, Size, Key, Out);
  return PI_SUCCESS;
}

// Reads the lowered answer (llvm/translator.h) from our own translator process; still
// checked field by field, so that a damaged answer is an error, never an overread.
class AnswerReader {
public:
  explicit AnswerReader(const std::vector<uint8_t> &Answer) : Data(Answer) {}
  bool bytes(size_t Count, const uint8_t *&Out) {
    if (Count > Data.size() - At)
      return false;
    Out = Data.data() + At;
    At += Count;
    return true;
  }
  template <typename Integer> bool integer(Integer &Out) {
    const uint8_t *Raw = nullptr;
    if (!bytes(sizeof(Integer), Raw))
      return false;
    uint64_t Value = 0;
    for (size_t I = 0; I < sizeof(Integer); ++I)
      Value |= static_cast<uint64_t>(Raw[I]) << (8 * I);
    Out = static_cast<Integer>(Value);
    return true;
  }
  template <typename Container> bool sized(Container &Out) {
    uint32_t Count = 0;
    const uint8_t *Raw = nullptr;
    if (!integer(Count) || !bytes(Count, Raw))
      return false;
    Out.assign(Raw, Raw + Count);
    return true;
  }
  bool done() const { return At == Data.size(); }

private:
  const std::vector<uint8_t> &Data;
  size_t At = 0;
};

bool decodeAnswer(const std::vector<uint8_t> &Answer, const std::vector<uint8_t> *&CodeAt,
                  size_t &CodeOffset, uint64_t &CodeSize, LoweredTranslation &Out,
                  std::map<std::string, LoweredVariable> &BySymbol, uint64_t &StorageSize) {
  AnswerReader Reader(Answer);
  const uint8_t *Magic = nullptr;
  const uint8_t *Code = nullptr;
  if (!Reader.bytes(sizeof(LoweredAnswerMagic), Magic) ||
      std::memcmp(Magic, LoweredAnswerMagic, sizeof(LoweredAnswerMagic)) != 0 ||
      !Reader.integer(CodeSize) || !Reader.bytes(CodeSize, Code) || !Reader.integer(StorageSize) ||
      !Reader.sized(Out.NotLowered))
    return false;
  CodeAt = &Answer;
  CodeOffset = static_cast<size_t>(Code - Answer.data());
  uint32_t Count = 0;
  if (!Reader.integer(Count))
    return false;
  for (uint32_t I = 0; I < Count; ++I) {
    std::string Symbol;
    LoweredVariable Variable;
    if (!Reader.sized(Symbol) || !Reader.integer(Variable.Offset) ||
        !Reader.integer(Variable.Size) || !Reader.sized(Variable.Initializer) ||
        Variable.Offset > StorageSize || Variable.Size > StorageSize - Variable.Offset ||
        (!Variable.Initializer.empty() && Variable.Initializer.size() != Variable.Size))
      return false;
    BySymbol[Symbol] = std::move(Variable);
  }
  return Reader.done();
}

} // namespace

pi_result translateSpirv(const char *Function, const void *Data, size_t Size, DeviceCode To,
                         Bytes &Out) {
  if (!canTranslateSpirvInto(To))
    return fail(PI_ERROR_INVALID_OPERATION, "{}: SPIR-V cannot be translated into {} here",
                Function, describe(To));
  return request(Function, Data, Size, To, false, Out);
}

pi_result translateSpirvLowered(const char *Function, const void *Data, size_t Size, DeviceCode To,
                                LoweredTranslation &Out) {
  if (!canTranslateSpirvInto(To) && To != DeviceCode::SpirV)
    return fail(PI_ERROR_INVALID_OPERATION, "{}: SPIR-V cannot be translated into {} here",
                Function, describe(To));
  Bytes Answer;
  DGLINK_TRY(request(Function, Data, Size, To, true, Answer));
  LoweredTranslation Made;
  std::map<std::string, LoweredVariable> BySymbol;
  const std::vector<uint8_t> *CodeAt = nullptr;
  size_t CodeOffset = 0;
  uint64_t CodeSize = 0, StorageSize = 0;
  if (!decodeAnswer(*Answer, CodeAt, CodeOffset, CodeSize, Made, BySymbol, StorageSize))
    return fail(PI_ERROR_INVALID_OPERATION,
                "{}: the SPIR-V translator's answer for a lowered module is damaged ({} bytes)",
                Function, Answer->size());
  Made.Code = std::make_shared<const std::vector<uint8_t>>(
      CodeAt->begin() + static_cast<std::ptrdiff_t>(CodeOffset),
      CodeAt->begin() + static_cast<std::ptrdiff_t>(CodeOffset + CodeSize));
  if (!BySymbol.empty()) {
    // The runtime names a variable by its unique id: the HostAccessINTEL name where the
    // module gives one (the reader drops it), else its symbol.
    const std::map<std::string, std::string> HostNames = spirvHostAccessNames(Data, Size);
    LoweredStorage Storage;
    Storage.Size = StorageSize;
    for (auto &[Symbol, Variable] : BySymbol) {
      const auto Named = HostNames.find(Symbol);
      Variable.Symbol = Symbol;
      Storage.Variables[Named != HostNames.end() ? Named->second : Symbol] = std::move(Variable);
    }
    Made.Lowered = std::move(Storage);
  }
  Out = std::move(Made);
  return PI_SUCCESS;
}

} // namespace dglink::device_code
