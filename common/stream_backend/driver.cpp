// What the driver interface defines itself (no part of the backend, so that programs
// that use a driver without the adapter core link it alone).
#include <dglink/stream/driver.h>

namespace dglink::stream {

Driver::~Driver() = default;
bool Driver::nativeDevice(int /*Ordinal*/, uintptr_t & /*Handle*/) { return false; }
bool Driver::nativeContext(int /*Ordinal*/, uintptr_t & /*Handle*/) { return false; }
bool Driver::canAccessPeer(int /*From*/, int /*To*/) { return false; }
bool Driver::freeMemory(int /*Ordinal*/, size_t & /*Bytes*/) { return false; }
bool Driver::pageableHost(const void * /*Host*/) { return false; }
bool Driver::functionName(FunctionHandle /*F*/, std::string & /*Name*/) { return false; }
bool Driver::pointerRange(const void * /*Pointer*/, PointerRange & /*Out*/) { return false; }
pi_result Driver::enablePeerAccess(int /*From*/, int /*To*/) { return PI_SUCCESS; }
pi_result Driver::registerHost(void * /*Host*/, size_t /*Size*/, void *& /*Device*/) {
  return PI_ERROR_UNSUPPORTED_FEATURE;
}
void Driver::unregisterHost(void * /*Host*/) {}
pi_result Driver::streamDevice(Stream /*S*/, int & /*Ordinal*/, bool &Known) {
  Known = false;
  return PI_SUCCESS;
}
pi_result Driver::reserveDynamicShared(FunctionHandle /*F*/, size_t /*DynamicBytes*/) {
  return PI_SUCCESS;
}
pi_result Driver::createTimedEvent(Event & /*Out*/) { return PI_ERROR_UNSUPPORTED_FEATURE; }
pi_result Driver::elapsed(Event /*From*/, Event /*To*/, float & /*Milliseconds*/) {
  return PI_ERROR_UNSUPPORTED_FEATURE;
}

pi_result Driver::memoryGranularity(int /*Ordinal*/, bool /*Recommended*/, size_t & /*Out*/) {
  return PI_ERROR_UNSUPPORTED_FEATURE;
}
pi_result Driver::reserveAddresses(const void * /*Hint*/, size_t /*Size*/, void *& /*Start*/) {
  return PI_ERROR_UNSUPPORTED_FEATURE;
}
pi_result Driver::freeAddresses(const void * /*Start*/, size_t /*Size*/) {
  return PI_ERROR_UNSUPPORTED_FEATURE;
}
pi_result Driver::createPhysical(int /*Ordinal*/, size_t /*Size*/, bool /*Shareable*/,
                                 PhysicalHandle & /*Out*/) {
  return PI_ERROR_UNSUPPORTED_FEATURE;
}
void Driver::releasePhysical(PhysicalHandle /*Handle*/) {}
pi_result Driver::mapAddresses(const void * /*Start*/, size_t /*Size*/, PhysicalHandle /*Physical*/,
                               size_t /*Offset*/) {
  return PI_ERROR_UNSUPPORTED_FEATURE;
}
pi_result Driver::unmapAddresses(const void * /*Start*/, size_t /*Size*/) {
  return PI_ERROR_UNSUPPORTED_FEATURE;
}
pi_result Driver::setAccess(const void * /*Start*/, size_t /*Size*/,
                            const std::vector<int> & /*Ordinals*/, VirtualAccess /*Access*/) {
  return PI_ERROR_UNSUPPORTED_FEATURE;
}
pi_result Driver::access(const void * /*Start*/, int /*Ordinal*/, VirtualAccess & /*Out*/) {
  return PI_ERROR_UNSUPPORTED_FEATURE;
}

pi_result Driver::createArray(const ArrayShape & /*Shape*/, ImageArray & /*Out*/) {
  return PI_ERROR_UNSUPPORTED_FEATURE;
}
void Driver::destroyArray(ImageArray /*Array*/) {}
pi_result Driver::describeArray(ImageArray /*Array*/, ArrayShape & /*Out*/) {
  return PI_ERROR_UNSUPPORTED_FEATURE;
}
pi_result Driver::copyArray(const ArrayCopy & /*Copy*/, int /*StreamOrdinal*/, Stream /*S*/) {
  return PI_ERROR_UNSUPPORTED_FEATURE;
}
pi_result Driver::createSurface(ImageArray /*Array*/, uint64_t & /*Out*/) {
  return PI_ERROR_UNSUPPORTED_FEATURE;
}
void Driver::destroySurface(uint64_t /*Surface*/) {}

pi_result Driver::launchCooperative(FunctionHandle /*F*/, const unsigned * /*Grid*/,
                                    const unsigned * /*Block*/, size_t /*SharedBytes*/,
                                    Stream /*S*/, void ** /*Params*/) {
  return PI_ERROR_UNSUPPORTED_FEATURE;
}
pi_result Driver::maxActiveBlocks(FunctionHandle /*F*/, int /*BlockSize*/, size_t /*SharedBytes*/,
                                  int & /*PerMultiprocessor*/) {
  return PI_ERROR_UNSUPPORTED_FEATURE;
}

pi_result Driver::fill2D(void *Dst, size_t Pitch, uint32_t Value, unsigned ElementSize,
                         size_t Count, size_t Height, Stream S) {
  for (size_t Row = 0; Row < Height; ++Row) {
    const pi_result Result =
        fill(static_cast<char *>(Dst) + Row * Pitch, Value, ElementSize, Count, S);
    if (Result != PI_SUCCESS)
      return Result;
  }
  return PI_SUCCESS;
}

pi_result Driver::copy2D(void *Dst, size_t DstPitch, const void *Src, size_t SrcPitch, size_t Width,
                         size_t Height, Stream S) {
  for (size_t Row = 0; Row < Height; ++Row) {
    const pi_result Result = copy(static_cast<char *>(Dst) + Row * DstPitch,
                                  static_cast<const char *>(Src) + Row * SrcPitch, Width, S);
    if (Result != PI_SUCCESS)
      return Result;
  }
  return PI_SUCCESS;
}

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
