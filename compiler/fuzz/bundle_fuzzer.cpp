// libFuzzer target: the bundle reader and, through it, the property-set reader the
// adapters use (readImageMetadata). Any input must be accepted or rejected with
// PI_ERROR_INVALID_BINARY; an accepted bundle must write back to a bundle that reads.
#include <dglink/compiler/bundle.h>

#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  dglink::Bundle Out;
  const pi_result Result = dglink::readBundle(Data, Size, Out);
  if (Result != PI_SUCCESS) {
    if (Result != PI_ERROR_INVALID_BINARY)
      std::abort();
    return 0;
  }
  const std::vector<uint8_t> Rewritten = dglink::writeBundle(Out);
  dglink::Bundle Again;
  if (dglink::readBundle(Rewritten.data(), Rewritten.size(), Again) != PI_SUCCESS ||
      dglink::writeBundle(Again) != Rewritten)
    std::abort();
  return 0;
}
