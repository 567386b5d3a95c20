// The device-global database (the device-global design's device_global_map), per
// device, on the device code of conformance/device_code/dg_database_{a,b}.cl: a shared
// variable (usmptr) has one value per device that every program sees; an image-scope
// one lives in its program; copies by host address are checked against the size, go
// to the right place before any program exists, and are safe from many threads;
// unregistering a module frees its variables' USM buffers.
#include "runtime_fixture.h"

#include <cstring>
#include <thread>

namespace dglink::runtime {
namespace {

using conformance::ContextHandle;
using conformance::lastErrorMessage;
using conformance::MemHandle;
using conformance::QueueHandle;

constexpr int32_t Unwritten = 0x5A5A5A5A;

#define ASSERT_STATUS_OK(Call)                                                                     \
  do {                                                                                             \
    const ::dglink::runtime::Status DglinkOk_ = (Call);                                            \
    ASSERT_TRUE(DglinkOk_.ok()) << DglinkOk_.Message;                                              \
  } while (0)

class DeviceGlobalDb : public RuntimeBuildTest {
protected:
  void SetUp() override {
    RuntimeBuildTest::SetUp();
    if (HasFatalFailure() || IsSkipped())
      return;
    ASSERT_NO_FATAL_FAILURE(registerConformance("dg_database_a", ModuleA));
    ASSERT_NO_FATAL_FAILURE(registerConformance("dg_database_b", ModuleB));
  }

  // The variables as the integration footer would add them, owned by module A.
  void addAll() {
    ASSERT_STATUS_OK(Rt->addDeviceGlobal(&Shared, "db_shared_uid", sizeof(Shared), false, ModuleA));
    ASSERT_STATUS_OK(Rt->addDeviceGlobal(Table, "db_table_uid", sizeof(Table), false, ModuleA));
    ASSERT_STATUS_OK(Rt->addDeviceGlobal(&Scoped, "db_scoped_uid", sizeof(Scoped), true, ModuleA));
    ASSERT_STATUS_OK(Rt->addDeviceGlobal(&Twice, "db_twice_uid", sizeof(Twice), true, ModuleA));
  }

  // Kernel over one work-item with a buffer of Count ints as argument 0, read back.
  void run(pi_context In, pi_queue On, pi_kernel K, size_t Count, std::vector<int32_t> &Out) {
    MemHandle Buffer;
    ASSERT_PI_SUCCESS(piMemBufferCreate(In, PI_MEM_FLAGS_ACCESS_RW, Count * sizeof(int32_t),
                                        nullptr, Buffer.out()));
    const pi_mem Mem = Buffer.get();
    ASSERT_PI_SUCCESS(piextKernelSetArgMemObj(K, 0, &Mem));
    const size_t One = 1;
    ASSERT_PI_SUCCESS(piEnqueueKernelLaunch(On, K, 1, nullptr, &One, nullptr, 0, nullptr, nullptr));
    Out.assign(Count, Unwritten);
    ASSERT_PI_SUCCESS(piEnqueueMemBufferRead(On, Mem, PI_TRUE, 0, Count * sizeof(int32_t),
                                             Out.data(), 0, nullptr, nullptr));
  }
  // Kernel(int V) over one work-item.
  void runWith(pi_queue On, pi_kernel K, int32_t V) {
    ASSERT_PI_SUCCESS(piKernelSetArg(K, 0, sizeof(V), &V));
    const size_t One = 1;
    ASSERT_PI_SUCCESS(piEnqueueKernelLaunch(On, K, 1, nullptr, &One, nullptr, 0, nullptr, nullptr));
    ASSERT_PI_SUCCESS(piQueueFinish(On));
  }
  void kernel(const std::string &Name, Kernel &Out) {
    Expected<Kernel> Made = Rt->createKernel(request(Name));
    ASSERT_TRUE(Made.ok()) << Made.status().Message;
    Out = std::move(*Made);
  }

  int32_t readInt(const void *Variable, size_t Offset = 0) {
    int32_t Value = Unwritten;
    const Status Read =
        Rt->copyFromDeviceGlobal(Queue.get(), Variable, &Value, sizeof(Value), Offset);
    EXPECT_TRUE(Read.ok()) << Read.Message;
    return Value;
  }

  ModuleId ModuleA = 0, ModuleB = 0;
  int32_t Shared = 0;
  int32_t Table[16] = {};
  int32_t Scoped = 0;
  int32_t Twice = 0;
};
DGLINK_INSTANTIATE_FOR_DEVICES(DeviceGlobalDb);

// The seed's shared variable: written by the host, seen by kernels of two programs (two
// modules) on the device; written by a kernel of one program, seen by the other and by
// the host.
TEST_P(DeviceGlobalDb, SharedVariableHasOneValueForEveryProgramOfTheDevice) {
  ASSERT_NO_FATAL_FAILURE(addAll());
  const int32_t Seven = 7;
  ASSERT_STATUS_OK(Rt->copyToDeviceGlobal(Queue.get(), &Shared, &Seven, sizeof(Seven)));
  EXPECT_EQ(Shared, 0) << "the host instance is not the device's";
  EXPECT_EQ(readInt(&Shared), 7);
  Kernel ReadA, ReadB, SetB;
  ASSERT_NO_FATAL_FAILURE(kernel("db_a_read", ReadA));
  ASSERT_NO_FATAL_FAILURE(kernel("db_b_read", ReadB));
  ASSERT_NO_FATAL_FAILURE(kernel("db_b_set", SetB));
  EXPECT_NE(ReadA.program().get(), ReadB.program().get()) << "two modules, two programs";
  const DeviceGlobalStats Stats = Rt->deviceGlobalStats();
  EXPECT_EQ(Stats.UsmAllocations, 2u) << "db_shared and db_table, once each on the device";
  EXPECT_EQ(Stats.Patches, 3u) << "db_shared and db_table in A's program, db_shared in B's";
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  std::vector<int32_t> Out;
  ASSERT_NO_FATAL_FAILURE(run(Context.get(), Queue.get(), ReadA.get(), 19, Out));
  EXPECT_EQ(Out[0], 7);
  ASSERT_NO_FATAL_FAILURE(run(Context.get(), Queue.get(), ReadB.get(), 2, Out));
  EXPECT_EQ(Out[0], 7);
  ASSERT_NO_FATAL_FAILURE(runWith(Queue.get(), SetB.get(), 1234));
  ASSERT_NO_FATAL_FAILURE(run(Context.get(), Queue.get(), ReadA.get(), 19, Out));
  EXPECT_EQ(Out[0], 1234) << "B's kernel wrote the value A's kernel reads";
  EXPECT_EQ(readInt(&Shared), 1234);
}

// An array in USM: copies at offsets reach exactly the elements they name.
TEST_P(DeviceGlobalDb, SharedArrayCopiesAtOffsets) {
  ASSERT_NO_FATAL_FAILURE(addAll());
  const int32_t Middle[4] = {40, 50, 60, 70};
  ASSERT_STATUS_OK(Rt->copyToDeviceGlobal(Queue.get(), Table, Middle, sizeof(Middle), 4 * 4));
  int32_t Back[16];
  ASSERT_STATUS_OK(Rt->copyFromDeviceGlobal(Queue.get(), Table, Back, sizeof(Back)));
  for (int I = 0; I < 16; ++I)
    EXPECT_EQ(Back[I], I >= 4 && I < 8 ? Middle[I - 4] : 0) << "element " << I;
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  Kernel ReadA, AddA;
  ASSERT_NO_FATAL_FAILURE(kernel("db_a_read", ReadA));
  ASSERT_NO_FATAL_FAILURE(kernel("db_a_add", AddA));
  ASSERT_NO_FATAL_FAILURE(runWith(Queue.get(), AddA.get(), 2));
  std::vector<int32_t> Out;
  ASSERT_NO_FATAL_FAILURE(run(Context.get(), Queue.get(), ReadA.get(), 19, Out));
  for (int I = 0; I < 16; ++I)
    EXPECT_EQ(Out[3 + I], (I >= 4 && I < 8 ? Middle[I - 4] : 0) + 2 * I) << "element " << I;
}

// An image-scope variable lives in its program: a copy before any program exists builds
// the program that holds it; kernels and copies then meet in it.
TEST_P(DeviceGlobalDb, ImageScopeVariableLivesInTheProgramThatHoldsIt) {
  ASSERT_NO_FATAL_FAILURE(addAll());
  const int32_t Value = 0x1357;
  ASSERT_STATUS_OK(Rt->copyToDeviceGlobal(Queue.get(), &Scoped, &Value, sizeof(Value)));
  EXPECT_EQ(Rt->cacheStats().Builds, 1u) << "the program of db_scoped was built on demand";
  EXPECT_EQ(Scoped, 0);
  EXPECT_EQ(readInt(&Scoped), Value);
  Kernel ReadA;
  ASSERT_NO_FATAL_FAILURE(kernel("db_a_read", ReadA));
  EXPECT_EQ(Rt->cacheStats().Builds, 1u) << "the kernel's program is that program";
  int32_t Direct = Unwritten;
  ASSERT_PI_SUCCESS(piextEnqueueDeviceGlobalVariableRead(Queue.get(), ReadA.program().get(),
                                                         "db_scoped_uid", PI_TRUE, sizeof(Direct),
                                                         0, &Direct, 0, nullptr, nullptr));
  EXPECT_EQ(Direct, Value);
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  Kernel AddA;
  ASSERT_NO_FATAL_FAILURE(kernel("db_a_add", AddA));
  ASSERT_NO_FATAL_FAILURE(runWith(Queue.get(), AddA.get(), 5));
  std::vector<int32_t> Out;
  ASSERT_NO_FATAL_FAILURE(run(Context.get(), Queue.get(), ReadA.get(), 19, Out));
  EXPECT_EQ(Out[1], Value + 5);
  EXPECT_EQ(readInt(&Scoped), Value + 5);
}

// db_twice has device_image_scope and is in both modules: once both programs exist, a
// copy by host address cannot choose (the design's errc::invalid), and nothing is written.
TEST_P(DeviceGlobalDb, ImageScopeVariableInTwoProgramsIsInvalid) {
  ASSERT_NO_FATAL_FAILURE(addAll());
  const int32_t First = 11;
  ASSERT_STATUS_OK(Rt->copyToDeviceGlobal(Queue.get(), &Twice, &First, sizeof(First)));
  Kernel ReadA, ReadB;
  ASSERT_NO_FATAL_FAILURE(kernel("db_a_read", ReadA));
  ASSERT_NO_FATAL_FAILURE(kernel("db_b_read", ReadB));
  const int32_t Second = 22;
  EXPECT_STATUS(PI_ERROR_INVALID_OPERATION,
                "copyToDeviceGlobal: device global 'db_twice_uid' has device_image_scope and is "
                "in 2 programs on device '",
                Rt->copyToDeviceGlobal(Queue.get(), &Twice, &Second, sizeof(Second)));
  EXPECT_STATUS(PI_ERROR_INVALID_OPERATION, "dg_database_b.bundle#",
                Rt->copyToDeviceGlobal(Queue.get(), &Twice, &Second, sizeof(Second)));
  int32_t InA = Unwritten, InB = Unwritten;
  ASSERT_PI_SUCCESS(piextEnqueueDeviceGlobalVariableRead(Queue.get(), ReadA.program().get(),
                                                         "db_twice_uid", PI_TRUE, sizeof(InA), 0,
                                                         &InA, 0, nullptr, nullptr));
  ASSERT_PI_SUCCESS(piextEnqueueDeviceGlobalVariableRead(Queue.get(), ReadB.program().get(),
                                                         "db_twice_uid", PI_TRUE, sizeof(InB), 0,
                                                         &InB, 0, nullptr, nullptr));
  EXPECT_EQ(InA, First) << "the copy before B's program existed went to A's";
  EXPECT_EQ(InB, 0) << "nothing was written to B's";
}

// In no image at all: a shared variable still gets its USM buffer; an image-scope one
// keeps its value in the host instance.
TEST_P(DeviceGlobalDb, VariablesInNoImage) {
  int32_t SharedNowhere = 0;
  int32_t ScopedNowhere[2] = {1, 2};
  ASSERT_STATUS_OK(Rt->addDeviceGlobal(&SharedNowhere, "nowhere_shared", 4, false));
  ASSERT_STATUS_OK(Rt->addDeviceGlobal(ScopedNowhere, "nowhere_scoped", 8, true));
  const int32_t Value = 99;
  ASSERT_STATUS_OK(Rt->copyToDeviceGlobal(Queue.get(), &SharedNowhere, &Value, 4));
  EXPECT_EQ(SharedNowhere, 0);
  EXPECT_EQ(readInt(&SharedNowhere), 99);
  EXPECT_EQ(Rt->deviceGlobalStats().UsmAllocations, 1u);
  ASSERT_STATUS_OK(Rt->copyToDeviceGlobal(Queue.get(), ScopedNowhere, &Value, 4, 4));
  EXPECT_EQ(ScopedNowhere[0], 1);
  EXPECT_EQ(ScopedNowhere[1], 99) << "the host instance holds it";
  EXPECT_EQ(readInt(ScopedNowhere, 0), 1);
  EXPECT_EQ(Rt->cacheStats().Builds, 0u) << "nothing to build";
}

// Every bad copy is refused with the variable named, and nothing is written.
TEST_P(DeviceGlobalDb, BadCopiesAreRefusedAndWriteNothing) {
  ASSERT_NO_FATAL_FAILURE(addAll());
  const int32_t Known[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  ASSERT_STATUS_OK(Rt->copyToDeviceGlobal(Queue.get(), Table, Known, sizeof(Known)));
  const int32_t Bad[17] = {};
  struct Case {
    size_t Count, Offset;
  };
  for (const Case &C :
       {Case{68, 0}, Case{4, 64}, Case{64, 4}, Case{1, 65}, Case{4, SIZE_MAX}, Case{SIZE_MAX, 4}}) {
    SCOPED_TRACE("count " + std::to_string(C.Count) + " offset " + std::to_string(C.Offset));
    EXPECT_STATUS(PI_ERROR_INVALID_VALUE,
                  "copyToDeviceGlobal: device global 'db_table_uid': offset " +
                      std::to_string(C.Offset) + " + " + std::to_string(C.Count) +
                      " bytes is past its 64 bytes",
                  Rt->copyToDeviceGlobal(Queue.get(), Table, Bad, C.Count, C.Offset));
    int32_t Scratch[17];
    EXPECT_STATUS(PI_ERROR_INVALID_VALUE, "bytes is past its 64 bytes",
                  Rt->copyFromDeviceGlobal(Queue.get(), Table, Scratch, C.Count, C.Offset));
  }
  int32_t Other = 0;
  EXPECT_STATUS(PI_ERROR_INVALID_VALUE,
                "copyToDeviceGlobal: no device global was added at host address",
                Rt->copyToDeviceGlobal(Queue.get(), &Other, Known, 4));
  EXPECT_STATUS(PI_ERROR_INVALID_VALUE,
                "copyFromDeviceGlobal: device global 'db_table_uid': the destination is null",
                Rt->copyFromDeviceGlobal(Queue.get(), Table, nullptr, 4));
  EXPECT_STATUS(PI_ERROR_INVALID_QUEUE, "copyToDeviceGlobal: the queue is null",
                Rt->copyToDeviceGlobal(nullptr, Table, Known, 4));
  int32_t Back[16];
  ASSERT_STATUS_OK(Rt->copyFromDeviceGlobal(Queue.get(), Table, Back, sizeof(Back)));
  EXPECT_EQ(std::memcmp(Back, Known, sizeof(Known)), 0) << "a refused copy wrote something";

  // Bad additions.
  EXPECT_STATUS(PI_ERROR_INVALID_VALUE, "unique id 'db_table_uid' (host address",
                Rt->addDeviceGlobal(&Other, "db_table_uid", 4, false));
  EXPECT_STATUS(PI_ERROR_INVALID_VALUE, "of device global 'again' is device global 'db_shared_uid'",
                Rt->addDeviceGlobal(&Shared, "again", 4, false));
  EXPECT_STATUS(PI_ERROR_INVALID_VALUE, "addDeviceGlobal: the size is 0 (device global 'zero')",
                Rt->addDeviceGlobal(&Other, "zero", 0, false));
  EXPECT_STATUS(PI_ERROR_INVALID_VALUE, "addDeviceGlobal: the host address is null",
                Rt->addDeviceGlobal(nullptr, "null", 4, false));
  EXPECT_STATUS(PI_ERROR_INVALID_VALUE, "addDeviceGlobal: module 999 (the owner of device global",
                Rt->addDeviceGlobal(&Other, "orphan", 4, false, 999));
  EXPECT_EQ(Rt->deviceGlobalStats().Variables, 4u);
}

// What the runtime is told must match the device code: the scopes agree, a shared
// variable's value has the size the image records (sizeof(T), as DPC++'s
// sycl-device-global-size) and its device instance is a usmptr. Otherwise the program is
// not handed out.
TEST_P(DeviceGlobalDb, DeclarationsThatDisagreeWithTheImageFailTheBuild) {
  int32_t Wrong = 0;
  ASSERT_STATUS_OK(Rt->addDeviceGlobal(&Wrong, "db_scoped_uid", 4, false));
  Expected<Program> Built = Rt->getOrBuildProgram(request("db_a_read"));
  ASSERT_FALSE(Built.ok());
  EXPECT_STATUS(PI_ERROR_INVALID_OPERATION, "device global 'db_scoped_uid' (host address",
                Built.status());
  EXPECT_STATUS(PI_ERROR_INVALID_OPERATION,
                "was added with device_image_scope 0 but image dg_database_a.bundle#",
                Built.status());
  EXPECT_EQ(Rt->cacheStats().Programs, 0u);

  // db_table is 16 ints in the image (DGLINK_SHARED_DEVICE_GLOBAL_ARRAY(int, 16, ...)).
  auto Sized = std::make_unique<Runtime>(testing::countingTable());
  const testing::BundleBytes Database = testing::conformanceBundle("dg_database_a");
  ASSERT_TRUE(Sized->registerBundle(Database.Data, Database.Size, "dg_database_a.bundle").ok());
  int32_t Short[8] = {};
  ASSERT_STATUS_OK(Sized->addDeviceGlobal(Short, "db_table_uid", sizeof(Short), false));
  Expected<Program> Mismatch = Sized->getOrBuildProgram(request("db_a_read"));
  ASSERT_FALSE(Mismatch.ok());
  EXPECT_STATUS(PI_ERROR_INVALID_OPERATION, "device global 'db_table_uid' (host address ",
                Mismatch.status());
  EXPECT_STATUS(PI_ERROR_INVALID_OPERATION,
                "was added with 32 bytes, but image dg_database_a.bundle#", Mismatch.status());
  EXPECT_STATUS(PI_ERROR_INVALID_OPERATION, "declares a value of 64 bytes", Mismatch.status());

  // dg_counter is the value itself, not a usmptr: the adapter refuses the 8-byte pointer
  // write into its 4 bytes (the range check of every device-global write).
  auto Other = std::make_unique<Runtime>(testing::countingTable());
  const testing::BundleBytes Bytes = testing::conformanceBundle("device_globals");
  ASSERT_TRUE(Other->registerBundle(Bytes.Data, Bytes.Size, "device_globals.bundle").ok());
  ASSERT_STATUS_OK(Other->addDeviceGlobal(&Wrong, "dg_counter_uid", 4, false));
  ProgramRequest Request = request("dg_read_counter");
  Expected<Program> Value = Other->getOrBuildProgram(Request);
  ASSERT_FALSE(Value.ok());
  EXPECT_STATUS(PI_ERROR_INVALID_VALUE,
                "writing its usmptr into the program of device_globals.bundle#", Value.status());
}

// A variable added after a program that holds it was built gets its usmptr then.
TEST_P(DeviceGlobalDb, VariableAddedAfterTheBuildIsPatchedIntoCachedPrograms) {
  Kernel ReadB;
  ASSERT_NO_FATAL_FAILURE(kernel("db_b_read", ReadB));
  ASSERT_STATUS_OK(Rt->addDeviceGlobal(&Shared, "db_shared_uid", 4, false, ModuleB));
  EXPECT_EQ(Rt->deviceGlobalStats().Patches, 1u);
  const int32_t Value = 31;
  ASSERT_STATUS_OK(Rt->copyToDeviceGlobal(Queue.get(), &Shared, &Value, 4));
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  std::vector<int32_t> Out;
  ASSERT_NO_FATAL_FAILURE(run(Context.get(), Queue.get(), ReadB.get(), 2, Out));
  EXPECT_EQ(Out[0], 31);
}

// 16 threads: each copies to its own slice of one variable, and to a variable of its own.
TEST_P(DeviceGlobalDb, SixteenThreadsCopyToOneVariableAndToMany) {
  ASSERT_NO_FATAL_FAILURE(addAll());
  int32_t Own[16] = {};
  for (int I = 0; I < 16; ++I)
    ASSERT_STATUS_OK(Rt->addDeviceGlobal(&Own[I], "thread_own_" + std::to_string(I), 4, false));
  std::vector<std::thread> Threads;
  std::vector<std::string> Failures(16);
  for (int T = 0; T < 16; ++T)
    Threads.emplace_back([&, T] {
      for (int32_t Round = 0; Round < 20 && Failures[T].empty(); ++Round) {
        const int32_t Value = T * 1000 + Round;
        int32_t Back = Unwritten;
        Status S = Rt->copyToDeviceGlobal(Queue.get(), Table, &Value, 4, size_t(T) * 4);
        if (S.ok())
          S = Rt->copyToDeviceGlobal(Queue.get(), &Own[T], &Value, 4);
        if (S.ok())
          S = Rt->copyFromDeviceGlobal(Queue.get(), &Own[T], &Back, 4);
        if (!S.ok())
          Failures[T] = S.Message;
        else if (Back != Value)
          Failures[T] = "read " + std::to_string(Back) + " after writing " + std::to_string(Value);
      }
    });
  for (std::thread &Thread : Threads)
    Thread.join();
  for (int T = 0; T < 16; ++T)
    EXPECT_EQ(Failures[T], "") << "thread " << T;
  int32_t Back[16];
  ASSERT_STATUS_OK(Rt->copyFromDeviceGlobal(Queue.get(), Table, Back, sizeof(Back)));
  for (int T = 0; T < 16; ++T)
    EXPECT_EQ(Back[T], T * 1000 + 19) << "slice " << T;
  EXPECT_EQ(Rt->deviceGlobalStats().UsmAllocations, 17u) << "one per variable, not per thread";
}

// Unregistering the owner module removes its variables and frees their USM buffers.
TEST_P(DeviceGlobalDb, UnregisteringTheModuleFreesTheBuffers) {
  ASSERT_NO_FATAL_FAILURE(addAll());
  const int32_t Value = 5;
  ASSERT_STATUS_OK(Rt->copyToDeviceGlobal(Queue.get(), &Shared, &Value, 4));
  ASSERT_STATUS_OK(Rt->copyToDeviceGlobal(Queue.get(), Table, &Value, 4));
  Kernel ReadB;
  ASSERT_NO_FATAL_FAILURE(kernel("db_b_read", ReadB));
  ReadB = Kernel();
  DeviceGlobalStats Stats = Rt->deviceGlobalStats();
  EXPECT_EQ(Stats.UsmAllocations, 2u);
  EXPECT_EQ(Stats.UsmFrees, 0u);
  testing::piCalls().reset();
  ASSERT_STATUS_OK(Rt->unregisterModule(ModuleA));
  Stats = Rt->deviceGlobalStats();
  EXPECT_EQ(Stats.UsmFrees, 2u);
  EXPECT_EQ(testing::piCalls().UsmFrees.load(), 2) << "every buffer went back to the driver";
  EXPECT_EQ(Stats.Variables, 0u);
  EXPECT_EQ(Rt->cacheStats().Programs, 0u) << "B's program pointed at a freed buffer: dropped";
  EXPECT_STATUS(PI_ERROR_INVALID_VALUE, "no device global was added at host address",
                Rt->copyToDeviceGlobal(Queue.get(), &Shared, &Value, 4));
}

// Two devices of one context (two PoCL devices in CI): each has its own USM buffer of a
// shared variable and its own program instance of an image-scope one.
TEST_P(DeviceGlobalDb, TwoDevicesHaveTheirOwnInstances) {
  pi_device Both[2] = {nullptr, nullptr};
  ContextHandle Two;
  ASSERT_NO_FATAL_FAILURE(twoDeviceContext(Both, Two));
  if (IsSkipped())
    return;
  // The shared variables live in device USM, which some contexts of two devices lack
  // (NVIDIA's OpenCL serves SVM in a context of one GPU only: docs/opencl.md).
  void *Probe = nullptr;
  if (const pi_result Result = piextUSMDeviceAlloc(&Probe, Two.get(), Both[1], nullptr, 64, 0);
      noUsmInSeveralGpus(Result))
    GTEST_SKIP() << "the context of two devices has no USM: " << lastErrorMessage();
  else
    ASSERT_PI_SUCCESS(Result);
  ASSERT_PI_SUCCESS(piextUSMFree(Two.get(), Probe));
  QueueHandle Queues[2];
  for (int I = 0; I < 2; ++I)
    ASSERT_PI_SUCCESS(piQueueCreate(Two.get(), Both[I], 0, Queues[I].out()));
  ASSERT_NO_FATAL_FAILURE(addAll());
  for (int I = 0; I < 2; ++I) {
    const int32_t SharedValue = 100 + I, ScopedValue = 200 + I;
    ASSERT_STATUS_OK(Rt->copyToDeviceGlobal(Queues[I].get(), &Shared, &SharedValue, 4));
    ASSERT_STATUS_OK(Rt->copyToDeviceGlobal(Queues[I].get(), &Scoped, &ScopedValue, 4));
  }
  for (int I = 0; I < 2; ++I) {
    int32_t SharedBack = Unwritten, ScopedBack = Unwritten;
    ASSERT_STATUS_OK(Rt->copyFromDeviceGlobal(Queues[I].get(), &Shared, &SharedBack, 4));
    ASSERT_STATUS_OK(Rt->copyFromDeviceGlobal(Queues[I].get(), &Scoped, &ScopedBack, 4));
    EXPECT_EQ(SharedBack, 100 + I) << "device " << I;
    EXPECT_EQ(ScopedBack, 200 + I) << "device " << I;
  }
  EXPECT_EQ(Rt->deviceGlobalStats().UsmAllocations, 4u) << "db_shared and db_table per device";
  std::vector<Kernel> Reads;
  for (int I = 0; I < 2; ++I) {
    ProgramRequest Request = request("db_a_read");
    Request.Context = Two.get();
    Request.Device = Both[I];
    Expected<Kernel> Read = Rt->createKernel(Request);
    ASSERT_TRUE(Read.ok()) << Read.status().Message;
    Reads.push_back(std::move(*Read));
  }
  DGLINK_REQUIRE_KERNEL_EXECUTION();
  for (int I = 0; I < 2; ++I) {
    std::vector<int32_t> Out;
    ASSERT_NO_FATAL_FAILURE(run(Two.get(), Queues[I].get(), Reads[I].get(), 19, Out));
    EXPECT_EQ(Out[0], 100 + I) << "device " << I;
    EXPECT_EQ(Out[1], 200 + I) << "device " << I;
  }
  Reads.clear();
  Rt->forgetContext(Two.get());
  EXPECT_EQ(Rt->deviceGlobalStats().UsmFrees, 4u) << "the context's buffers went with it";
}

} // namespace
} // namespace dglink::runtime
