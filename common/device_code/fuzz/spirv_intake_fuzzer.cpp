// libFuzzer target: the SPIR-V intake of OpenCL devices without IL (the module check,
// the translation cache, the translator run in its child process, the lowering of
// device globals). Any input must be
// translated into SPIR bitcode or refused with PI_ERROR_INVALID_BINARY and a message; one
// that is translated must also be translated into PTX (NVIDIA's OpenCL) or refused so;
// nothing may crash or hang the caller.
#include <dglink/device_code/translate.h>
#include <dglink/support/error.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

// What the inputs came to, printed when the run ends (for the report of a long run).
struct Tally {
  size_t Translated = 0, Malformed = 0, Refused = 0, Stopped = 0, Ended = 0, Ptx = 0,
         PtxRefused = 0;
  ~Tally() {
    std::fprintf(stderr,
                 "spirv intake: %zu translated, %zu refused by the module check, %zu refused by "
                 "the translator, %zu stopped the translator (signal), %zu ended its process; "
                 "of the translated, %zu also into PTX, %zu refused there\n",
                 Translated, Malformed, Refused, Stopped, Ended, Ptx, PtxRefused);
  }
} Seen;

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  // The intake with the lowering of device globals, what an OpenCL device without
  // device-global access gets (the plain translation is its first half).
  dglink::device_code::LoweredTranslation Lowered;
  const pi_result Result = dglink::device_code::translateSpirvLowered(
      "fuzz", Data, Size, dglink::DeviceCode::Spir, Lowered);
  if (Result == PI_SUCCESS) {
    // SPIR bitcode starts with the bitcode magic; every lowered variable lies inside
    // the storage.
    const dglink::device_code::Bytes &Out = Lowered.Code;
    if (Out == nullptr || Out->size() < 4 || (*Out)[0] != 'B' || (*Out)[1] != 'C')
      std::abort();
    if (Lowered.Lowered)
      for (const auto &[Name, Variable] : Lowered.Lowered->Variables)
        if (Variable.Offset + Variable.Size > Lowered.Lowered->Size)
          std::abort();
    ++Seen.Translated;
    // A module the reader took also goes the way of NVIDIA's OpenCL: PTX (text with a
    // .target line), or a refusal with a message.
    dglink::device_code::LoweredTranslation Ptx;
    const pi_result PtxResult = dglink::device_code::translateSpirvLowered(
        "fuzz", Data, Size, dglink::DeviceCode::Ptx, Ptx);
    if (PtxResult == PI_SUCCESS) {
      if (Ptx.Code == nullptr ||
          std::string(Ptx.Code->begin(), Ptx.Code->end()).find(".target") == std::string::npos)
        std::abort();
      ++Seen.Ptx;
    } else if (PtxResult != PI_ERROR_INVALID_BINARY || dglink::lastErrorMessage().empty()) {
      std::fprintf(stderr, "unexpected PTX result %d: %s\n", static_cast<int>(PtxResult),
                   dglink::lastErrorMessage().c_str());
      std::abort();
    } else {
      ++Seen.PtxRefused;
    }
    return 0;
  }
  if (Result != PI_ERROR_INVALID_BINARY || dglink::lastErrorMessage().empty()) {
    std::fprintf(stderr, "unexpected result %d: %s\n", static_cast<int>(Result),
                 dglink::lastErrorMessage().c_str());
    std::abort();
  }
  const std::string &Message = dglink::lastErrorMessage();
  if (Message.find("is malformed") != std::string::npos)
    ++Seen.Malformed;
  else if (Message.find("stopped on it with signal") != std::string::npos)
    ++Seen.Stopped;
  else if (Message.find("ended its process") != std::string::npos)
    ++Seen.Ended;
  else
    ++Seen.Refused;
  return 0;
}
