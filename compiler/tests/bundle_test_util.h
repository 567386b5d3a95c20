// A sample bundle and byte patching helpers shared by the bundle tests.
#pragma once

#include <dglink/compiler/bundle.h>

#include <cstdint>
#include <vector>

namespace dglink::test {

// Two images: "counter" (spir64 SPIR-V, two kernels, every set dglink reads) and
// "ptx_image" (nvptx64 PTX, no entries, one empty set).
inline Bundle sampleBundle() {
  Bundle Result;
  BundleImage Counter;
  Counter.Name = "counter";
  Counter.Target = PI_DEVICE_BINARY_TARGET_SPIRV64;
  Counter.Format = PI_DEVICE_BINARY_TYPE_SPIRV;
  Counter.CompileOptions = "-cl-std=CL2.0";
  Counter.Binary = {0x03, 0x02, 0x23, 0x07, 0x00, 0x00, 0x01, 0x00};
  Counter.Entries = {"read_counter", "write_counter"};
  DeviceGlobalInfo Info;
  Info.UniqueId = "counter_uid";
  Info.Size = 4;
  Info.Access = HostAccess::Read;
  Counter.PropertySets.push_back(
      {PI_PROPERTY_SET_DEVICE_GLOBALS, {BundleProperty::deviceGlobal(Info)}});
  Counter.PropertySets.push_back(
      {PI_PROPERTY_SET_EXPORTED_SYMBOLS, {BundleProperty::uint32("helper", 1)}});
  Counter.PropertySets.push_back(
      {PI_PROPERTY_SET_IMPORTED_SYMBOLS, {BundleProperty::uint32("library_function", 1)}});
  Counter.PropertySets.push_back(
      {"SYCL/device global symbols", {BundleProperty::string("counter_uid", "counter")}});
  Result.Images.push_back(Counter);

  BundleImage Ptx;
  Ptx.Name = "ptx_image";
  Ptx.Target = PI_DEVICE_BINARY_TARGET_NVPTX64;
  Ptx.Format = PI_DEVICE_BINARY_TYPE_NATIVE;
  Ptx.LinkOptions = "-O3";
  const char Text[] = ".version 7.5\n.target sm_75\n.address_size 64\n";
  Ptx.Binary.assign(Text, Text + sizeof(Text) - 1);
  Ptx.PropertySets.push_back({PI_PROPERTY_SET_EXPORTED_SYMBOLS, {}});
  Result.Images.push_back(Ptx);
  return Result;
}

inline uint64_t readLittle(const std::vector<uint8_t> &Bytes, uint64_t At, int Count) {
  uint64_t Value = 0;
  for (int I = 0; I < Count; ++I)
    Value |= static_cast<uint64_t>(Bytes.at(At + I)) << (8 * I);
  return Value;
}
inline uint64_t read32(const std::vector<uint8_t> &Bytes, uint64_t At) {
  return readLittle(Bytes, At, 4);
}
inline uint64_t read64(const std::vector<uint8_t> &Bytes, uint64_t At) {
  return readLittle(Bytes, At, 8);
}
inline void patchLittle(std::vector<uint8_t> &Bytes, uint64_t At, uint64_t Value, int Count) {
  for (int I = 0; I < Count; ++I)
    Bytes.at(At + I) = static_cast<uint8_t>(Value >> (8 * I));
}
inline void patch32(std::vector<uint8_t> &Bytes, uint64_t At, uint64_t Value) {
  patchLittle(Bytes, At, Value, 4);
}
inline void patch64(std::vector<uint8_t> &Bytes, uint64_t At, uint64_t Value) {
  patchLittle(Bytes, At, Value, 8);
}

} // namespace dglink::test
