// Shared pieces of the CUDA adapter's unit tests: the adapter opened with dlopen
// (as the dispatch layer does) and called through its function table, a device
// fixture that skips without a CUDA device, and a builder of device images.
#pragma once

#include "../../test_support/loaded_adapter.h"

#include <dglink/pi.h>
#include <dglink/support/image.h>

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <string>
#include <vector>

// Device code embedded at build time (embedded_device_code.cpp); PTX arrays end
// with a NUL that Size does not count.
#if DGLINK_TEST_NVCC_CODE
extern const unsigned char CudaGlobalsPtx[];
extern const size_t CudaGlobalsPtxSize;
extern const unsigned char CudaLinkMainPtx[];
extern const size_t CudaLinkMainPtxSize;
extern const unsigned char CudaLinkLibPtx[];
extern const size_t CudaLinkLibPtxSize;
#endif
#if DGLINK_TEST_NVCL_CODE
extern const unsigned char OpenClGlobalsPtx[];
extern const size_t OpenClGlobalsPtxSize;
extern const unsigned char OpenClLinkMainPtx[];
extern const size_t OpenClLinkMainPtxSize;
extern const unsigned char OpenClLinkLibPtx[];
extern const size_t OpenClLinkLibPtxSize;
extern const unsigned char OpenClBuiltinsPtx[];
extern const size_t OpenClBuiltinsPtxSize;
#endif

namespace dglink::cuda::test {

// The adapter library, opened once; null (and a failed test) if it cannot be.
using LoadedAdapter = dglink::test::LoadedAdapter;
const LoadedAdapter &adapter();
inline const pi_plugin_functions &pi() { return adapter().Plugin.PiFunctionTable; }

// The adapter's last-error message.
std::string lastError();

// A device image with property sets, for piextProgramCreateWithImage.
class ImageBuilder {
public:
  ImageBuilder(const unsigned char *Bytes, size_t Size);
  ImageBuilder &deviceGlobal(const std::string &UniqueId, uint32_t Size,
                             HostAccess Access = HostAccess::ReadWrite,
                             const std::string &Symbol = "");
  ImageBuilder &exported(const std::string &Symbol);
  ImageBuilder &imported(const std::string &Symbol);
  const _pi_device_binary_struct &image();

private:
  char *keep(const std::string &Text);
  void add(const std::string &Set, const std::string &Name, pi_uint32 Type,
           std::vector<uint8_t> Value, pi_uint64 UintValue);

  const unsigned char *Bytes;
  size_t Size;
  std::deque<std::string> Strings;
  std::deque<std::vector<uint8_t>> Values;
  std::map<std::string, std::vector<_pi_device_binary_property_struct>> Sets;
  std::vector<_pi_device_binary_property_set_struct> SetStructs;
  _pi_device_binary_struct Image{};
};

// A context and queue on the first CUDA device; skips without one.
class CudaDeviceTest : public ::testing::Test {
protected:
  void SetUp() override;
  void TearDown() override;

  // Program from an image, built; fails the test on error.
  pi_program buildImage(const _pi_device_binary_struct &Image);
  std::string buildLog(pi_program Program);

  pi_platform Platform = nullptr;
  pi_device Device = nullptr;
  pi_context Context = nullptr;
  pi_queue Queue = nullptr;
};

} // namespace dglink::cuda::test

#define ASSERT_PI(Call) ASSERT_EQ(PI_SUCCESS, (Call)) << ::dglink::cuda::test::lastError()
#define EXPECT_PI(Call) EXPECT_EQ(PI_SUCCESS, (Call)) << ::dglink::cuda::test::lastError()
