// What the driver interface defines itself (no part of the backend, so that programs
// that use a driver without the adapter core link it alone).
#include <dglink/stream/driver.h>

namespace dglink::stream {

Driver::~Driver() = default;
bool Driver::nativeDevice(int /*Ordinal*/, uintptr_t & /*Handle*/) { return false; }
bool Driver::nativeContext(int /*Ordinal*/, uintptr_t & /*Handle*/) { return false; }
bool Driver::canAccessPeer(int /*From*/, int /*To*/) { return false; }
bool Driver::pageableHost(const void * /*Host*/) { return false; }
pi_result Driver::enablePeerAccess(int /*From*/, int /*To*/) { return PI_SUCCESS; }

const char *codeKindName(CodeKind Kind) {
  switch (Kind) {
  case CodeKind::Ptx:
    return "PTX";
  case CodeKind::Cubin:
    return "cubin";
  case CodeKind::Fatbin:
    return "fatbin";
  case CodeKind::CodeObject:
    return "code object";
  case CodeKind::Relocatable:
    return "relocatable code object";
  }
  return "unknown";
}

} // namespace dglink::stream
