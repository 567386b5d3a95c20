// What a USM pointer is (piextUSMGetMemAllocInfo; urUSMGetMemAllocInfo through the UR
// face): the allocation's kind, start, size and device for any pointer into it, and
// "unknown" for memory that is no USM of the context.
#include "fixtures.h"

#include <vector>

namespace dglink::conformance {
namespace {

class UsmInfo : public ContextTest {
protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(ContextTest::SetUp());
    if (IsSkipped())
      return;
    if (usmMechanism() == PI_USM_MECHANISM_NONE)
      GTEST_SKIP() << "device has no USM (PI_EXT_DEVICE_INFO_USM_MECHANISM is NONE)";
  }

  pi_usm_capabilities capabilities(pi_device_info Kind) {
    pi_usm_capabilities Caps = 0;
    EXPECT_PI_SUCCESS(piDeviceGetInfo(Device, Kind, sizeof(Caps), &Caps, nullptr));
    return Caps;
  }

  template <typename T> T info(const void *Pointer, pi_mem_alloc_info Name) {
    T Value{};
    size_t Size = 0;
    EXPECT_PI_SUCCESS(piextUSMGetMemAllocInfo(Context.get(), Pointer, Name, 0, nullptr, &Size));
    EXPECT_EQ(Size, sizeof(T));
    EXPECT_PI_SUCCESS(
        piextUSMGetMemAllocInfo(Context.get(), Pointer, Name, sizeof(T), &Value, nullptr));
    return Value;
  }
};

TEST_P(UsmInfo, EveryKindAnswersItsAllocation) {
  struct Case {
    pi_device_info Support;
    pi_usm_type Type;
  };
  const Case Cases[] = {{PI_DEVICE_INFO_USM_HOST_SUPPORT, PI_MEM_TYPE_HOST},
                        {PI_DEVICE_INFO_USM_DEVICE_SUPPORT, PI_MEM_TYPE_DEVICE},
                        {PI_DEVICE_INFO_USM_SINGLE_SHARED_SUPPORT, PI_MEM_TYPE_SHARED}};
  constexpr size_t Bytes = 4096 + 12;
  size_t Checked = 0;
  for (const Case &Each : Cases) {
    if (capabilities(Each.Support) == 0)
      continue;
    void *Pointer = nullptr;
    if (Each.Type == PI_MEM_TYPE_HOST)
      ASSERT_PI_SUCCESS(piextUSMHostAlloc(&Pointer, Context.get(), nullptr, Bytes, 0));
    else if (Each.Type == PI_MEM_TYPE_DEVICE)
      ASSERT_PI_SUCCESS(piextUSMDeviceAlloc(&Pointer, Context.get(), Device, nullptr, Bytes, 0));
    else
      ASSERT_PI_SUCCESS(piextUSMSharedAlloc(&Pointer, Context.get(), Device, nullptr, Bytes, 0));
    ++Checked;
    // The start, a byte inside and the last byte all name the same allocation.
    for (const size_t Offset : {size_t{0}, size_t{100}, Bytes - 1}) {
      const void *Inside = static_cast<const char *>(Pointer) + Offset;
      SCOPED_TRACE(testing::Message() << "type " << Each.Type << ", offset " << Offset);
      EXPECT_EQ(info<pi_usm_type>(Inside, PI_MEM_ALLOC_TYPE), Each.Type);
      EXPECT_EQ(info<void *>(Inside, PI_MEM_ALLOC_BASE_PTR), Pointer);
      EXPECT_EQ(info<size_t>(Inside, PI_MEM_ALLOC_SIZE), Bytes);
      EXPECT_EQ(info<pi_device>(Inside, PI_MEM_ALLOC_DEVICE),
                Each.Type == PI_MEM_TYPE_HOST ? nullptr : Device);
    }
    // One past the end is not in it (unless another allocation starts there).
    const void *Past = static_cast<const char *>(Pointer) + Bytes;
    const auto PastBase = info<void *>(Past, PI_MEM_ALLOC_BASE_PTR);
    EXPECT_NE(PastBase, Pointer);
    ASSERT_PI_SUCCESS(piextUSMFree(Context.get(), Pointer));
  }
  EXPECT_GT(Checked, 0u) << "the device has USM but no kind of allocation";
}

TEST_P(UsmInfo, UnknownMemoryAndBadInput) {
  std::vector<char> Host(64);
  EXPECT_EQ(info<pi_usm_type>(Host.data(), PI_MEM_ALLOC_TYPE), PI_MEM_TYPE_UNKNOWN);
  EXPECT_EQ(info<void *>(Host.data(), PI_MEM_ALLOC_BASE_PTR), nullptr);
  EXPECT_EQ(info<size_t>(Host.data(), PI_MEM_ALLOC_SIZE), 0u);
  EXPECT_EQ(info<pi_device>(Host.data(), PI_MEM_ALLOC_DEVICE), nullptr);

  // A freed allocation is no longer known.
  void *Freed = nullptr;
  ASSERT_PI_SUCCESS(piextUSMDeviceAlloc(&Freed, Context.get(), Device, nullptr, 256, 0));
  ASSERT_PI_SUCCESS(piextUSMFree(Context.get(), Freed));
  EXPECT_EQ(info<pi_usm_type>(Freed, PI_MEM_ALLOC_TYPE), PI_MEM_TYPE_UNKNOWN);

  pi_usm_type Type = PI_MEM_TYPE_UNKNOWN;
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_CONTEXT, "Context",
                         piextUSMGetMemAllocInfo(nullptr, Host.data(), PI_MEM_ALLOC_TYPE,
                                                 sizeof(Type), &Type, nullptr));
  EXPECT_PI_ERROR(PI_ERROR_INVALID_VALUE,
                  piextUSMGetMemAllocInfo(Context.get(), nullptr, PI_MEM_ALLOC_TYPE, sizeof(Type),
                                          &Type, nullptr));
  EXPECT_PI_ERROR(
      PI_ERROR_INVALID_VALUE,
      piextUSMGetMemAllocInfo(Context.get(), Host.data(), PI_MEM_ALLOC_TYPE, 1, &Type, nullptr));
}

DGLINK_INSTANTIATE_FOR_DEVICES(UsmInfo);

} // namespace
} // namespace dglink::conformance
