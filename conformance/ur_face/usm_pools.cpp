// UR's USM pools, served by the adapter core on every backend (docs/ur.md): data through
// pooled allocations of each kind, pointer and pool queries, reference counts, zeroed
// blocks, a release with allocations still live, bad input with the spec's codes, and
// allocations and frees from many threads. A scenario of dglink_conformance_ur only.
#include "fixtures.h"
#include "ur_handles.h"

#include <unified-runtime/ur_api.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace dglink::conformance {
namespace {

// UR 0.12's validation layer reports every use of a released or foreign handle; the
// scenarios leave those checks out under it.
bool validationLayerOn() {
  const char *Layers = std::getenv("UR_ENABLE_LAYERS");
  return Layers != nullptr && std::strstr(Layers, "VALIDATION") != nullptr;
}

enum class Kind { Host, Device, Shared };

const char *kindName(Kind K) {
  return K == Kind::Host ? "host" : K == Kind::Device ? "device" : "shared";
}

class UrUsmPools : public QueueTest {
protected:
  void SetUp() override {
    QueueTest::SetUp();
    if (IsSkipped() || HasFatalFailure())
      return;
    ur_bool_t Supported = false;
    ASSERT_EQ(urDeviceGetInfo(asUr(Device), UR_DEVICE_INFO_USM_POOL_SUPPORT, sizeof(Supported),
                              &Supported, nullptr),
              UR_RESULT_SUCCESS);
    // Pools serve what USM the device has: none without USM, all of it with.
    ASSERT_EQ(Supported != 0, usmMechanism() != PI_USM_MECHANISM_NONE);
    if (!Supported)
      GTEST_SKIP() << "device has no USM (PI_EXT_DEVICE_INFO_USM_MECHANISM is NONE): no pools";
    ASSERT_FALSE(kinds().empty()) << "USM_POOL_SUPPORT without any kind of USM";
  }

  ur_context_handle_t context() { return asUr(Context.get()); }

  // The kinds of USM the device serves.
  std::vector<Kind> kinds() {
    std::vector<Kind> Out;
    const std::pair<Kind, ur_device_info_t> Queries[] = {
        {Kind::Host, UR_DEVICE_INFO_USM_HOST_SUPPORT},
        {Kind::Device, UR_DEVICE_INFO_USM_DEVICE_SUPPORT},
        {Kind::Shared, UR_DEVICE_INFO_USM_SINGLE_SHARED_SUPPORT}};
    for (const auto &[K, Query] : Queries) {
      ur_device_usm_access_capability_flags_t Flags = 0;
      EXPECT_EQ(urDeviceGetInfo(asUr(Device), Query, sizeof(Flags), &Flags, nullptr),
                UR_RESULT_SUCCESS);
      if (Flags != 0)
        Out.push_back(K);
    }
    return Out;
  }

  ur_result_t allocate(Kind K, ur_usm_pool_handle_t Pool, size_t Size, void **Out,
                       uint32_t Alignment = 0) {
    const ur_usm_desc_t Desc{UR_STRUCTURE_TYPE_USM_DESC, nullptr, UR_USM_ADVICE_FLAG_DEFAULT,
                             Alignment};
    switch (K) {
    case Kind::Host:
      return urUSMHostAlloc(context(), &Desc, Pool, Size, Out);
    case Kind::Device:
      return urUSMDeviceAlloc(context(), asUr(Device), &Desc, Pool, Size, Out);
    case Kind::Shared:
      return urUSMSharedAlloc(context(), asUr(Device), &Desc, Pool, Size, Out);
    }
    return UR_RESULT_ERROR_INVALID_VALUE;
  }

  ur_usm_pool_handle_t makePool(ur_usm_pool_flags_t Flags = 0, size_t MaxPoolable = 0,
                                size_t MinDriverAlloc = 0) {
    ur_usm_pool_limits_desc_t Limits{UR_STRUCTURE_TYPE_USM_POOL_LIMITS_DESC, nullptr, MaxPoolable,
                                     MinDriverAlloc};
    ur_usm_pool_desc_t Desc{UR_STRUCTURE_TYPE_USM_POOL_DESC, MaxPoolable != 0 ? &Limits : nullptr,
                            Flags};
    ur_usm_pool_handle_t Pool = nullptr;
    EXPECT_EQ(urUSMPoolCreate(context(), &Desc, &Pool), UR_RESULT_SUCCESS) << urLastError(Platform);
    return Pool;
  }

  template <typename T> T allocInfo(const void *Pointer, ur_usm_alloc_info_t Name) {
    T Value{};
    const size_t Bytes = sizeof(T); // NOLINT(bugprone-sizeof-expression): handles too
    EXPECT_EQ(urUSMGetMemAllocInfo(context(), Pointer, Name, Bytes, &Value, nullptr),
              UR_RESULT_SUCCESS);
    return Value;
  }

  uint32_t poolReferences(ur_usm_pool_handle_t Pool) {
    uint32_t Count = 0;
    EXPECT_EQ(
        urUSMPoolGetInfo(Pool, UR_USM_POOL_INFO_REFERENCE_COUNT, sizeof(Count), &Count, nullptr),
        UR_RESULT_SUCCESS);
    return Count;
  }
};

// Sizes below, at and above the pool's largest pooled size (4 KiB here, so that both
// paths run: chunks of blocks, and the driver's memory directly), each written and read
// back, alive together: no two overlap. The pointer queries name the pool.
TEST_P(UrUsmPools, DataThroughPooledAllocationsOfEveryKind) {
  const ur_queue_handle_t Q = asUr(Queue.get());
  for (const Kind K : kinds()) {
    SCOPED_TRACE(kindName(K));
    ur_usm_pool_handle_t Pool = makePool(0, 4096, 16384);
    ASSERT_NE(Pool, nullptr);
    const size_t Sizes[] = {1, 4, 63, 64, 100, 1000, 4096, 5000, 70000};
    std::vector<void *> Pointers;
    for (size_t I = 0; I < std::size(Sizes); ++I) {
      void *Pointer = nullptr;
      ASSERT_EQ(allocate(K, Pool, Sizes[I], &Pointer, I % 2 == 0 ? 64 : 0), UR_RESULT_SUCCESS)
          << Sizes[I] << " bytes: " << urLastError(Platform);
      ASSERT_NE(Pointer, nullptr);
      if (I % 2 == 0) {
        EXPECT_EQ(reinterpret_cast<uintptr_t>(Pointer) % 64, 0u) << Sizes[I] << " bytes";
      }
      std::vector<uint8_t> Data(Sizes[I], static_cast<uint8_t>(0x31 + I));
      ASSERT_EQ(urEnqueueUSMMemcpy(Q, true, Pointer, Data.data(), Sizes[I], 0, nullptr, nullptr),
                UR_RESULT_SUCCESS)
          << urLastError(Platform);
      Pointers.push_back(Pointer);
    }
    for (size_t I = 0; I < Pointers.size(); ++I) {
      std::vector<uint8_t> Back(Sizes[I]);
      ASSERT_EQ(
          urEnqueueUSMMemcpy(Q, true, Back.data(), Pointers[I], Sizes[I], 0, nullptr, nullptr),
          UR_RESULT_SUCCESS);
      EXPECT_EQ(Back, std::vector<uint8_t>(Sizes[I], static_cast<uint8_t>(0x31 + I)))
          << Sizes[I] << " bytes: an allocation overlaps another";
      const void *Inside = static_cast<const char *>(Pointers[I]) + Sizes[I] - 1;
      EXPECT_EQ(allocInfo<ur_usm_pool_handle_t>(Inside, UR_USM_ALLOC_INFO_POOL), Pool);
      EXPECT_EQ(allocInfo<void *>(Inside, UR_USM_ALLOC_INFO_BASE_PTR), Pointers[I]);
      EXPECT_EQ(allocInfo<size_t>(Pointers[I], UR_USM_ALLOC_INFO_SIZE), Sizes[I]);
      EXPECT_EQ(allocInfo<ur_usm_type_t>(Pointers[I], UR_USM_ALLOC_INFO_TYPE),
                K == Kind::Host     ? UR_USM_TYPE_HOST
                : K == Kind::Device ? UR_USM_TYPE_DEVICE
                                    : UR_USM_TYPE_SHARED);
      EXPECT_EQ(allocInfo<ur_device_handle_t>(Pointers[I], UR_USM_ALLOC_INFO_DEVICE),
                K == Kind::Host ? nullptr : asUr(Device));
    }
    // A freed pointer is no allocation any more (the pool keeps the memory).
    for (void *Pointer : Pointers)
      EXPECT_EQ(urUSMFree(context(), Pointer), UR_RESULT_SUCCESS) << urLastError(Platform);
    EXPECT_EQ(allocInfo<ur_usm_type_t>(Pointers[0], UR_USM_ALLOC_INFO_TYPE), UR_USM_TYPE_UNKNOWN);
    EXPECT_EQ(allocInfo<ur_usm_pool_handle_t>(Pointers[0], UR_USM_ALLOC_INFO_POOL), nullptr);
    // Freed memory serves again (after the queue finished).
    void *Again = nullptr;
    ASSERT_EQ(allocate(K, Pool, 64, &Again), UR_RESULT_SUCCESS) << urLastError(Platform);
    const uint32_t Word = 0xC0FFEE;
    ASSERT_EQ(urEnqueueUSMMemcpy(Q, true, Again, &Word, sizeof(Word), 0, nullptr, nullptr),
              UR_RESULT_SUCCESS);
    EXPECT_EQ(urUSMFree(context(), Again), UR_RESULT_SUCCESS);
    // Memory not from a pool still answers no pool.
    void *Plain = nullptr;
    ASSERT_EQ(allocate(K, nullptr, 64, &Plain), UR_RESULT_SUCCESS);
    EXPECT_EQ(allocInfo<ur_usm_pool_handle_t>(Plain, UR_USM_ALLOC_INFO_POOL), nullptr);
    EXPECT_EQ(urUSMFree(context(), Plain), UR_RESULT_SUCCESS);
    EXPECT_EQ(urUSMPoolRelease(Pool), UR_RESULT_SUCCESS);
  }
}

// A freed chunk is handed out again, but only once the context's queues finished: the
// command that used it before the free is complete when the next allocation returns it.
// Blocks of one chunk here (4 KiB), so that the second allocation needs the freed one.
TEST_P(UrUsmPools, FreedMemoryIsReusedAfterTheQueuesFinished) {
  const ur_queue_handle_t Q = asUr(Queue.get());
  const Kind K = kinds().front();
  ur_usm_pool_handle_t Pool = makePool(0, 4096, 4096);
  ASSERT_NE(Pool, nullptr);
  void *First = nullptr;
  void *Second = nullptr;
  ASSERT_EQ(allocate(K, Pool, 4096, &First), UR_RESULT_SUCCESS) << urLastError(Platform);
  ASSERT_EQ(allocate(K, Pool, 4096, &Second), UR_RESULT_SUCCESS) << urLastError(Platform);
  EXPECT_NE(First, Second);
  const uint32_t Pattern = 0x5A5A5A5A;
  ur_event_handle_t Fill = nullptr;
  ASSERT_EQ(urEnqueueUSMFill(Q, First, sizeof(Pattern), &Pattern, 4096, 0, nullptr, &Fill),
            UR_RESULT_SUCCESS);
  ASSERT_EQ(urUSMFree(context(), First), UR_RESULT_SUCCESS);
  // The block of Second goes back to the driver when Second is freed (First's block has
  // room again); the next allocation takes First's chunk.
  ASSERT_EQ(urUSMFree(context(), Second), UR_RESULT_SUCCESS);
  void *Again = nullptr;
  ASSERT_EQ(allocate(K, Pool, 4096, &Again), UR_RESULT_SUCCESS) << urLastError(Platform);
  EXPECT_EQ(Again, First);
  ur_event_status_t Status = UR_EVENT_STATUS_ERROR;
  ASSERT_EQ(urEventGetInfo(Fill, UR_EVENT_INFO_COMMAND_EXECUTION_STATUS, sizeof(Status), &Status,
                           nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(Status, UR_EVENT_STATUS_COMPLETE);
  EXPECT_EQ(urEventRelease(Fill), UR_RESULT_SUCCESS);
  EXPECT_EQ(urUSMFree(context(), Again), UR_RESULT_SUCCESS);
  EXPECT_EQ(urUSMPoolRelease(Pool), UR_RESULT_SUCCESS);
}

// REFERENCE_COUNT follows retains and releases; CONTEXT is the pool's; the pool keeps its
// context alive. The info query's bad input gets the spec's codes.
TEST_P(UrUsmPools, InfoAndReferenceCounts) {
  uint32_t ContextBefore = 0;
  ASSERT_EQ(urContextGetInfo(context(), UR_CONTEXT_INFO_REFERENCE_COUNT, sizeof(ContextBefore),
                             &ContextBefore, nullptr),
            UR_RESULT_SUCCESS);
  ur_usm_pool_handle_t Pool = makePool();
  ASSERT_NE(Pool, nullptr);
  uint32_t ContextWith = 0;
  ASSERT_EQ(urContextGetInfo(context(), UR_CONTEXT_INFO_REFERENCE_COUNT, sizeof(ContextWith),
                             &ContextWith, nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(ContextWith, ContextBefore + 1);

  EXPECT_EQ(poolReferences(Pool), 1u);
  ASSERT_EQ(urUSMPoolRetain(Pool), UR_RESULT_SUCCESS);
  EXPECT_EQ(poolReferences(Pool), 2u);
  ASSERT_EQ(urUSMPoolRelease(Pool), UR_RESULT_SUCCESS);
  EXPECT_EQ(poolReferences(Pool), 1u);

  size_t Size = 0;
  ASSERT_EQ(urUSMPoolGetInfo(Pool, UR_USM_POOL_INFO_CONTEXT, 0, nullptr, &Size), UR_RESULT_SUCCESS);
  EXPECT_EQ(Size, handleBytes<ur_context_handle_t>());
  ur_context_handle_t Of = nullptr;
  ASSERT_EQ(urUSMPoolGetInfo(Pool, UR_USM_POOL_INFO_CONTEXT, Size, &Of, nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(Of, context());

  EXPECT_EQ(urUSMPoolGetInfo(Pool, UR_USM_POOL_INFO_FORCE_UINT32, Size, &Of, nullptr),
            UR_RESULT_ERROR_INVALID_ENUMERATION);
  EXPECT_EQ(urUSMPoolGetInfo(Pool, UR_USM_POOL_INFO_RELEASE_THRESHOLD_EXP, sizeof(size_t), &Size,
                             nullptr),
            UR_RESULT_ERROR_UNSUPPORTED_ENUMERATION);
  EXPECT_EQ(urUSMPoolGetInfo(Pool, UR_USM_POOL_INFO_CONTEXT, Size - 1, &Of, nullptr),
            UR_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(urUSMPoolGetInfo(Pool, UR_USM_POOL_INFO_CONTEXT, 0, &Of, nullptr),
            UR_RESULT_ERROR_INVALID_SIZE);
  EXPECT_EQ(urUSMPoolGetInfo(Pool, UR_USM_POOL_INFO_CONTEXT, 0, nullptr, nullptr),
            UR_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(Of, context()); // refused queries wrote nothing

  ASSERT_EQ(urUSMPoolRelease(Pool), UR_RESULT_SUCCESS);
  uint32_t ContextAfter = 0;
  ASSERT_EQ(urContextGetInfo(context(), UR_CONTEXT_INFO_REFERENCE_COUNT, sizeof(ContextAfter),
                             &ContextAfter, nullptr),
            UR_RESULT_SUCCESS);
  EXPECT_EQ(ContextAfter, ContextBefore);
  if (!validationLayerOn()) {
    EXPECT_EQ(urUSMPoolRetain(Pool), UR_RESULT_ERROR_INVALID_VALUE);
    EXPECT_NE(urLastError(Platform).find("released"), std::string::npos) << urLastError(Platform);
    EXPECT_EQ(urUSMPoolGetInfo(Pool, UR_USM_POOL_INFO_CONTEXT, Size, &Of, nullptr),
              UR_RESULT_ERROR_INVALID_VALUE);
  }
}

// UR_USM_POOL_FLAG_ZERO_INITIALIZE_BLOCK: what comes from a new block, pooled or not,
// reads as zeros.
TEST_P(UrUsmPools, ZeroInitializedBlocks) {
  const ur_queue_handle_t Q = asUr(Queue.get());
  for (const Kind K : kinds()) {
    SCOPED_TRACE(kindName(K));
    ur_usm_pool_handle_t Pool = makePool(UR_USM_POOL_FLAG_ZERO_INITIALIZE_BLOCK, 4096, 8192);
    ASSERT_NE(Pool, nullptr);
    for (const size_t Size : {size_t{256}, size_t{20000}}) {
      void *Pointer = nullptr;
      ASSERT_EQ(allocate(K, Pool, Size, &Pointer), UR_RESULT_SUCCESS) << urLastError(Platform);
      std::vector<uint8_t> Back(Size, 0xAB);
      ASSERT_EQ(urEnqueueUSMMemcpy(Q, true, Back.data(), Pointer, Size, 0, nullptr, nullptr),
                UR_RESULT_SUCCESS);
      EXPECT_EQ(Back, std::vector<uint8_t>(Size, 0)) << Size << " bytes";
      EXPECT_EQ(urUSMFree(context(), Pointer), UR_RESULT_SUCCESS);
    }
    EXPECT_EQ(urUSMPoolRelease(Pool), UR_RESULT_SUCCESS);
  }
}

// UR's spec: allocations must be freed before the pool's last release, which returns all
// its memory to the driver. A release with allocations live does so too: the pointers
// are then no USM of the context.
TEST_P(UrUsmPools, ReleaseWithLiveAllocationsReturnsTheirMemory) {
  const Kind K = kinds().front();
  ur_usm_pool_handle_t Pool = makePool(0, 4096, 0);
  ASSERT_NE(Pool, nullptr);
  void *Small = nullptr;
  void *Large = nullptr;
  ASSERT_EQ(allocate(K, Pool, 128, &Small), UR_RESULT_SUCCESS) << urLastError(Platform);
  ASSERT_EQ(allocate(K, Pool, 10000, &Large), UR_RESULT_SUCCESS) << urLastError(Platform);
  ASSERT_EQ(urUSMPoolRelease(Pool), UR_RESULT_SUCCESS);
  EXPECT_EQ(allocInfo<ur_usm_pool_handle_t>(Small, UR_USM_ALLOC_INFO_POOL), nullptr);
  EXPECT_EQ(allocInfo<ur_usm_type_t>(Small, UR_USM_ALLOC_INFO_TYPE), UR_USM_TYPE_UNKNOWN);
  EXPECT_EQ(allocInfo<ur_usm_type_t>(Large, UR_USM_ALLOC_INFO_TYPE), UR_USM_TYPE_UNKNOWN);
}

// Bad input gets the spec's code, a message, and changes nothing.
TEST_P(UrUsmPools, BadInputIsRefused) {
  ur_usm_pool_handle_t Pool = reinterpret_cast<ur_usm_pool_handle_t>(0x1);
  ur_usm_pool_desc_t Desc{UR_STRUCTURE_TYPE_USM_POOL_DESC, nullptr, 0};
  EXPECT_EQ(urUSMPoolCreate(context(), nullptr, &Pool), UR_RESULT_ERROR_INVALID_NULL_POINTER);
  EXPECT_EQ(urUSMPoolCreate(context(), &Desc, nullptr), UR_RESULT_ERROR_INVALID_NULL_POINTER);
  Desc.flags = 1u << 3;
  EXPECT_EQ(urUSMPoolCreate(context(), &Desc, &Pool), UR_RESULT_ERROR_INVALID_ENUMERATION);
  Desc.flags = UR_USM_POOL_FLAG_USE_NATIVE_MEMORY_POOL_EXP;
  EXPECT_EQ(urUSMPoolCreate(context(), &Desc, &Pool), UR_RESULT_ERROR_UNSUPPORTED_FEATURE);
  EXPECT_NE(urLastError(Platform).find("NATIVE_MEMORY_POOL"), std::string::npos);
  Desc.flags = 0;
  // The pNext chain: a structure that is no pool descriptor, the limits twice, a pool
  // over the caller's memory (not served).
  ur_base_desc_t Stranger{UR_STRUCTURE_TYPE_USM_HOST_DESC, nullptr};
  Desc.pNext = &Stranger;
  EXPECT_EQ(urUSMPoolCreate(context(), &Desc, &Pool), UR_RESULT_ERROR_INVALID_VALUE);
  EXPECT_NE(urLastError(Platform).find("pNext"), std::string::npos);
  ur_usm_pool_limits_desc_t Second{UR_STRUCTURE_TYPE_USM_POOL_LIMITS_DESC, nullptr, 64, 0};
  ur_usm_pool_limits_desc_t First{UR_STRUCTURE_TYPE_USM_POOL_LIMITS_DESC, &Second, 64, 0};
  Desc.pNext = &First;
  EXPECT_EQ(urUSMPoolCreate(context(), &Desc, &Pool), UR_RESULT_ERROR_INVALID_VALUE);
  ur_usm_pool_buffer_desc_t Buffer{
      UR_STRUCTURE_TYPE_USM_POOL_BUFFER_DESC, nullptr, nullptr, 0, UR_USM_TYPE_HOST, nullptr};
  Desc.pNext = &Buffer;
  EXPECT_EQ(urUSMPoolCreate(context(), &Desc, &Pool), UR_RESULT_ERROR_UNSUPPORTED_FEATURE);
  EXPECT_EQ(Pool, reinterpret_cast<ur_usm_pool_handle_t>(0x1)); // nothing was written
  Desc.pNext = nullptr;

  const Kind K = kinds().front();
  Pool = makePool(0, 4096, 0);
  ASSERT_NE(Pool, nullptr);
  // A pool of another context.
  ur_context_handle_t Other = nullptr;
  ur_device_handle_t Dev = asUr(Device);
  ASSERT_EQ(urContextCreate(1, &Dev, nullptr, &Other), UR_RESULT_SUCCESS);
  void *Pointer = reinterpret_cast<void *>(0x1);
  const ur_result_t OtherContext =
      K == Kind::Host     ? urUSMHostAlloc(Other, nullptr, Pool, 64, &Pointer)
      : K == Kind::Device ? urUSMDeviceAlloc(Other, Dev, nullptr, Pool, 64, &Pointer)
                          : urUSMSharedAlloc(Other, Dev, nullptr, Pool, 64, &Pointer);
  EXPECT_EQ(OtherContext, UR_RESULT_ERROR_INVALID_CONTEXT);
  EXPECT_NE(urLastError(Platform).find("pool"), std::string::npos) << urLastError(Platform);
  EXPECT_EQ(Pointer, reinterpret_cast<void *>(0x1));
  EXPECT_EQ(urContextRelease(Other), UR_RESULT_SUCCESS);
  // The checks of an allocation apply with a pool as without.
  EXPECT_EQ(allocate(K, Pool, 0, &Pointer), UR_RESULT_ERROR_INVALID_USM_SIZE);
  EXPECT_EQ(allocate(K, Pool, 64, &Pointer, 3), UR_RESULT_ERROR_INVALID_VALUE);
  if (!validationLayerOn()) {
    // A queue is no pool.
    EXPECT_EQ(allocate(K, reinterpret_cast<ur_usm_pool_handle_t>(Queue.get()), 64, &Pointer),
              UR_RESULT_ERROR_INVALID_VALUE);
    EXPECT_NE(urLastError(Platform).find("not a USM pool"), std::string::npos)
        << urLastError(Platform);
  }
  EXPECT_EQ(Pointer, reinterpret_cast<void *>(0x1));
  // Frees of pool memory that is no live allocation's start.
  ASSERT_EQ(allocate(K, Pool, 256, &Pointer), UR_RESULT_SUCCESS) << urLastError(Platform);
  EXPECT_EQ(urUSMFree(context(), static_cast<char *>(Pointer) + 8), UR_RESULT_ERROR_INVALID_VALUE);
  EXPECT_NE(urLastError(Platform).find("not the start of a live allocation"), std::string::npos)
      << urLastError(Platform);
  EXPECT_EQ(allocInfo<ur_usm_pool_handle_t>(Pointer, UR_USM_ALLOC_INFO_POOL), Pool); // still live
  ASSERT_EQ(urUSMFree(context(), Pointer), UR_RESULT_SUCCESS);
  EXPECT_EQ(urUSMFree(context(), Pointer), UR_RESULT_ERROR_INVALID_VALUE); // twice
  EXPECT_EQ(urUSMPoolRelease(Pool), UR_RESULT_SUCCESS);
}

// Eight threads allocate from one pool, write their own bytes, check them and free, many
// times: no allocation is handed out twice, nothing fails.
TEST_P(UrUsmPools, ConcurrentAllocationsAndFrees) {
  const Kind K = kinds().front();
  ur_usm_pool_handle_t Pool = makePool(0, 8192, 16384);
  ASSERT_NE(Pool, nullptr);
  const ur_queue_handle_t Q = asUr(Queue.get());
  constexpr int Threads = 8;
  constexpr int Rounds = 60;
  std::atomic<int> Failures{0};
  std::vector<std::string> FirstFailure(Threads);
  std::vector<std::thread> Workers;
  Workers.reserve(Threads);
  for (int T = 0; T < Threads; ++T)
    Workers.emplace_back([&, T] {
      for (int Round = 0; Round < Rounds; ++Round) {
        // Pooled sizes of several classes, and now and then one past the pooled sizes.
        const size_t Size = Round % 10 == 9 ? 9000 : size_t{16} << (Round + T) % 9;
        void *Pointer = nullptr;
        if (allocate(K, Pool, Size, &Pointer) != UR_RESULT_SUCCESS || Pointer == nullptr) {
          if (Failures++ == 0)
            FirstFailure[T] = "allocation of " + std::to_string(Size) + " bytes failed";
          return;
        }
        std::vector<uint8_t> Mine(Size, static_cast<uint8_t>(T * Rounds + Round));
        std::vector<uint8_t> Back(Size);
        const bool Copied = urEnqueueUSMMemcpy(Q, true, Pointer, Mine.data(), Size, 0, nullptr,
                                               nullptr) == UR_RESULT_SUCCESS &&
                            urEnqueueUSMMemcpy(Q, true, Back.data(), Pointer, Size, 0, nullptr,
                                               nullptr) == UR_RESULT_SUCCESS;
        if ((!Copied || Back != Mine) && Failures++ == 0)
          FirstFailure[T] = "the bytes of " + std::to_string(Size) + " were not the thread's own";
        if (urUSMFree(context(), Pointer) != UR_RESULT_SUCCESS && Failures++ == 0)
          FirstFailure[T] = "free failed";
      }
    });
  for (std::thread &Worker : Workers)
    Worker.join();
  std::string Why;
  for (const std::string &Each : FirstFailure)
    Why += Each;
  EXPECT_EQ(Failures.load(), 0) << Why;
  EXPECT_EQ(urUSMPoolRelease(Pool), UR_RESULT_SUCCESS);
}

DGLINK_INSTANTIATE_FOR_DEVICES(UrUsmPools);

} // namespace
} // namespace dglink::conformance
