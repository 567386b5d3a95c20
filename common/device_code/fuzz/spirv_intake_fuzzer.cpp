// libFuzzer target: the SPIR-V intake of OpenCL devices without IL (the module check,
// the translation cache, the translator run in its child process). Any input must be
// translated into SPIR bitcode or refused with PI_ERROR_INVALID_BINARY and a message;
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
  size_t Translated = 0, Malformed = 0, Refused = 0, Stopped = 0, Ended = 0;
  ~Tally() {
    std::fprintf(stderr,
                 "spirv intake: %zu translated, %zu refused by the module check, %zu refused by "
                 "the translator, %zu stopped the translator (signal), %zu ended its process\n",
                 Translated, Malformed, Refused, Stopped, Ended);
  }
} Seen;

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  dglink::device_code::Bytes Out;
  const pi_result Result =
      dglink::device_code::translateSpirv("fuzz", Data, Size, dglink::DeviceCode::Spir, Out);
  if (Result == PI_SUCCESS) {
    // SPIR bitcode starts with the bitcode magic.
    if (Out == nullptr || Out->size() < 4 || (*Out)[0] != 'B' || (*Out)[1] != 'C')
      std::abort();
    ++Seen.Translated;
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
