// What the adapter core promises on every adapter (docs/adapter-core.md): handles of
// the wrong kind, released handles and memory that is no handle are refused with the
// contract's INVALID_<TYPE>; messages that echo input are capped; and an allocation
// that fails inside any export is PI_ERROR_OUT_OF_HOST_MEMORY, never a crash, a
// leaked handle or a lost reference. The fault injection calls the adapter's own
// exports (the table every handle points at) and its test-only hook.
#include "fixtures.h"

#include <dlfcn.h>

#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace dglink::conformance {
namespace {

using ArmFunction = void (*)(unsigned);
using InitFunction = pi_result (*)(pi_plugin *);

class CoreGuarantees : public BuiltProgramTest {
protected:
  void SetUp() override {
    // These scenarios call the adapter's PI table, which each PI handle points at; a UR
    // handle points at the UR DDI table instead (the UR face's own checks: docs/ur.md).
    if (throughUnifiedRuntime())
      GTEST_SKIP() << "PI-table guarantees: through UR, handles carry the UR DDI table";
    BuiltProgramTest::SetUp();
    if (HasFatalFailure() || IsSkipped())
      return;
    ASSERT_NO_FATAL_FAILURE(buildProgram("device_globals", Program));
  }

  // The adapter's own function table: the first field of every handle it returns.
  const pi_plugin_functions &adapter() const {
    return *reinterpret_cast<const pi_handle_header *>(Device)->Dispatch;
  }
  // The adapter library's own symbol Name (its fault hook, piPluginInit), or null.
  void *adapterSymbol(const char *Name) const {
    Dl_info Info = {};
    if (dladdr(reinterpret_cast<void *>(adapter().piPlatformsGet), &Info) == 0 ||
        Info.dli_fname == nullptr)
      return nullptr;
    void *Library = dlopen(Info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (Library == nullptr)
      return nullptr;
    void *Symbol = dlsym(Library, Name);
    dlclose(Library);
    return Symbol;
  }
  std::string adapterError() const {
    char *Message = nullptr;
    adapter().piPluginGetLastError(&Message);
    return Message == nullptr ? "" : Message;
  }

  ProgramHandle Program;
};
DGLINK_INSTANTIATE_FOR_DEVICES(CoreGuarantees);

// A queue passed as a program (a segfault in the Level Zero adapter's lookup cache
// before the core), a device as a context, a released queue, program and event, and
// memory that is no handle: each refused with its code, the program still works.
TEST_P(CoreGuarantees, HandlesOfTheWrongKindOrReleasedAreRefused) {
  int32_t Value = 0;
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_PROGRAM, "is a queue, not a program",
                         piextEnqueueDeviceGlobalVariableRead(
                             Queue.get(), reinterpret_cast<pi_program>(Queue.get()),
                             "dg_counter_uid", PI_TRUE, 4, 0, &Value, 0, nullptr, nullptr));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_QUEUE, "is a program, not a queue",
                         piextEnqueueDeviceGlobalVariableRead(
                             reinterpret_cast<pi_queue>(Program.get()), Program.get(),
                             "dg_counter_uid", PI_TRUE, 4, 0, &Value, 0, nullptr, nullptr));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_CONTEXT, "is a device, not a context",
                         piContextRetain(reinterpret_cast<pi_context>(Device)));
  // Memory that is no handle of this adapter (its first field is not the adapter's
  // table), called on the adapter itself: the dispatch layer could not route it.
  alignas(16) unsigned char NotAHandle[64] = {};
  EXPECT_EQ(adapter().piKernelRetain(reinterpret_cast<pi_kernel>(NotAHandle)),
            PI_ERROR_INVALID_KERNEL);
  EXPECT_NE(adapterError().find("is not a handle of the"), std::string::npos) << adapterError();

  pi_queue Second = nullptr;
  ASSERT_PI_SUCCESS(piQueueCreate(Context.get(), Device, 0, &Second));
  ASSERT_PI_SUCCESS(piQueueRelease(Second));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_QUEUE, "is a queue that was released",
                         piQueueFinish(Second));
  EXPECT_PI_ERROR(PI_ERROR_INVALID_QUEUE, piQueueRelease(Second));
  ProgramHandle Gone;
  ASSERT_NO_FATAL_FAILURE(QueueTest::buildProgram("device_globals", Format, Gone));
  const pi_program Released = Gone.release();
  ASSERT_PI_SUCCESS(piProgramRelease(Released));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_PROGRAM, "released",
                         piextEnqueueDeviceGlobalVariableRead(Queue.get(), Released,
                                                              "dg_counter_uid", PI_TRUE, 4, 0,
                                                              &Value, 0, nullptr, nullptr));
  pi_event Event = nullptr;
  ASSERT_PI_SUCCESS(piEnqueueEventsWait(Queue.get(), 0, nullptr, &Event));
  ASSERT_PI_SUCCESS(piEventRelease(Event));
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_EVENT_WAIT_LIST, "an event that was released",
                         piEnqueueEventsWait(Queue.get(), 1, &Event, nullptr));
  // The program that was used still works where the device reaches device globals.
  if (hasExtension(PI_EXT_DEVICE_GLOBAL_ACCESS)) {
    Value = -1;
    ASSERT_PI_SUCCESS(piextEnqueueDeviceGlobalVariableRead(
        Queue.get(), Program.get(), "dg_initialized", PI_TRUE, 4, 0, &Value, 0, nullptr, nullptr));
    EXPECT_EQ(Value, 0x1234ABCD);
  }
}

// A 10 MB device-global or kernel name is not echoed whole.
TEST_P(CoreGuarantees, EchoedNamesAreCapped) {
  const std::string Huge(10u << 20, 'x');
  int32_t Value = 0;
  EXPECT_PI_ERROR_NAMING(PI_ERROR_INVALID_VALUE, "(10485760 bytes)",
                         piextEnqueueDeviceGlobalVariableRead(Queue.get(), Program.get(),
                                                              Huge.c_str(), PI_TRUE, 4, 0, &Value,
                                                              0, nullptr, nullptr));
  EXPECT_LT(lastErrorMessage().size(), 1024u) << lastErrorMessage().substr(0, 200);
  KernelHandle Kernel;
  EXPECT_PI_ERROR(PI_ERROR_INVALID_KERNEL_NAME,
                  piKernelCreate(Program.get(), Huge.c_str(), Kernel.out()));
  EXPECT_LT(lastErrorMessage().size(), 1024u) << lastErrorMessage().substr(0, 200);
}

// Every export of the adapter, called with valid arguments while the 1st, 2nd, ...
// allocation point it reaches fails: each try answers PI_ERROR_OUT_OF_HOST_MEMORY and
// hands out nothing, until no point is left to fail and the call answers what it
// answers without the fault (measured first: a device without USM answers its USM
// calls with an error, a test driver refuses launches).
TEST_P(CoreGuarantees, AllocationFailureInEveryExportIsAnError) {
  const auto Arm = reinterpret_cast<ArmFunction>(adapterSymbol("dglinkTestArmAllocationFailure"));
  const auto Init = reinterpret_cast<InitFunction>(adapterSymbol("piPluginInit"));
  ASSERT_NE(Arm, nullptr) << "the adapter exports no dglinkTestArmAllocationFailure";
  ASSERT_NE(Init, nullptr);
  const pi_plugin_functions &A = adapter();
  pi_context Ctx = Context.get();
  pi_queue Q = Queue.get();
  pi_program P = Program.get();
  const EmbeddedImage *Source = findImage("device_globals", Format);
  ASSERT_NE(Source, nullptr);
  const _pi_device_binary_struct *Image = Source->Binary;
  const unsigned char *Binary = Image->BinaryStart;
  const size_t Length = static_cast<size_t>(Image->BinaryEnd - Image->BinaryStart);
  const char *KernelName = "dg_read_counter";

  KernelHandle KernelOwner;
  ASSERT_NO_FATAL_FAILURE(createKernel(P, KernelName, KernelOwner));
  pi_kernel K = KernelOwner.get();
  MemHandle BufferOwner;
  ASSERT_PI_SUCCESS(piMemBufferCreate(Ctx, PI_MEM_FLAGS_ACCESS_RW, 64, nullptr, BufferOwner.out()));
  pi_mem Buffer = BufferOwner.get();
  pi_event Event = nullptr;
  ASSERT_PI_SUCCESS(piEnqueueEventsWait(Q, 0, nullptr, &Event));
  void *Usm = nullptr;
  const bool HasUsm = piextUSMDeviceAlloc(&Usm, Ctx, Device, nullptr, 64, 0) == PI_SUCCESS;

  char Bytes[64] = {};
  size_t Size = 0;
  pi_uint32 Count = 0;
  const size_t Global = 1;
  pi_plugin Plugin = {};
  std::strcpy(Plugin.PiVersion, PI_VERSION_STRING);
  // What a call made; released after each try that made it.
  pi_context NewContext = nullptr;
  pi_queue NewQueue = nullptr;
  pi_mem NewMem = nullptr;
  pi_program NewProgram = nullptr, Linked = nullptr;
  pi_kernel NewKernel = nullptr;
  pi_event NewEvent = nullptr;
  void *NewUsm = nullptr;
  void *NewMap = nullptr;
  // A map for each try of piEnqueueMemUnmap, made unarmed before it (not counted as made
  // by the call: a failed unmap leaves it live, and it is unmapped after the try).
  void *ToUnmap = nullptr;
  // Inputs of the compile and link calls, made unarmed before each of their tries.
  pi_program Fresh = nullptr, Compiled = nullptr;
  auto MakeFresh = [&] {
    ASSERT_PI_SUCCESS(A.piextProgramCreateWithImage(Ctx, 1, &Device, Image, &Fresh));
  };
  auto MakeCompiled = [&] {
    ASSERT_PI_SUCCESS(A.piextProgramCreateWithImage(Ctx, 1, &Device, Image, &Compiled));
    // A device that cannot link answers the link with its refusal either way.
    A.piProgramCompile(Compiled, 0, nullptr, "", 0, nullptr, nullptr, nullptr, nullptr);
  };
  using Call = std::function<pi_result()>;
  struct Export {
    const char *Name;
    Call Run;
    std::function<void()> Before; // unarmed, before each try
  };
  const std::vector<Export> Calls = {
      {"piPluginInit", [&] { return Init(&Plugin); }, nullptr},
      {"piTearDown", [&] { return A.piTearDown(nullptr); }, nullptr},
      {"piPlatformsGet", [&] { return A.piPlatformsGet(0, nullptr, &Count); }, nullptr},
      {"piPlatformGetInfo",
       [&] {
         return A.piPlatformGetInfo(Platform, PI_PLATFORM_INFO_NAME, sizeof(Bytes), Bytes, nullptr);
       },
       nullptr},
      {"piDevicesGet",
       [&] { return A.piDevicesGet(Platform, PI_DEVICE_TYPE_ALL, 0, nullptr, &Count); }, nullptr},
      {"piDeviceGetInfo",
       [&] { return A.piDeviceGetInfo(Device, PI_DEVICE_INFO_NAME, 0, nullptr, &Size); }, nullptr},
      {"piDeviceRetain", [&] { return A.piDeviceRetain(Device); }, nullptr},
      {"piDeviceRelease", [&] { return A.piDeviceRelease(Device); }, nullptr},
      {"piContextCreate", [&] { return A.piContextCreate(nullptr, 1, &Device, &NewContext); },
       nullptr},
      {"piContextGetInfo",
       [&] {
         return A.piContextGetInfo(Ctx, PI_CONTEXT_INFO_NUM_DEVICES, sizeof(Count), &Count,
                                   nullptr);
       },
       nullptr},
      {"piContextRetain", [&] { return A.piContextRetain(Ctx); }, nullptr},
      {"piContextRelease", [&] { return A.piContextRelease(Ctx); }, nullptr},
      {"piQueueCreate", [&] { return A.piQueueCreate(Ctx, Device, 0, &NewQueue); }, nullptr},
      {"piQueueGetInfo",
       [&] { return A.piQueueGetInfo(Q, PI_QUEUE_INFO_DEVICE, 0, nullptr, &Size); }, nullptr},
      {"piQueueFinish", [&] { return A.piQueueFinish(Q); }, nullptr},
      {"piQueueRetain", [&] { return A.piQueueRetain(Q); }, nullptr},
      {"piQueueRelease", [&] { return A.piQueueRelease(Q); }, nullptr},
      {"piMemBufferCreate",
       [&] { return A.piMemBufferCreate(Ctx, PI_MEM_FLAGS_ACCESS_RW, 16, nullptr, &NewMem); },
       nullptr},
      {"piMemRetain", [&] { return A.piMemRetain(Buffer); }, nullptr},
      {"piMemRelease", [&] { return A.piMemRelease(Buffer); }, nullptr},
      {"piEnqueueMemBufferRead",
       [&] {
         return A.piEnqueueMemBufferRead(Q, Buffer, PI_TRUE, 0, 16, Bytes, 0, nullptr, nullptr);
       },
       nullptr},
      {"piEnqueueMemBufferWrite",
       [&] {
         return A.piEnqueueMemBufferWrite(Q, Buffer, PI_TRUE, 0, 16, Bytes, 0, nullptr, &NewEvent);
       },
       nullptr},
      {"piextUSMDeviceAlloc",
       [&] { return A.piextUSMDeviceAlloc(&NewUsm, Ctx, Device, nullptr, 16, 0); }, nullptr},
      {"piextUSMHostAlloc", [&] { return A.piextUSMHostAlloc(&NewUsm, Ctx, nullptr, 16, 0); },
       nullptr},
      {"piextUSMSharedAlloc",
       [&] { return A.piextUSMSharedAlloc(&NewUsm, Ctx, Device, nullptr, 16, 0); }, nullptr},
      {"piextUSMFree", [&] { return A.piextUSMFree(Ctx, nullptr); }, nullptr},
      {"piextUSMEnqueueMemcpy",
       [&] {
         return HasUsm ? A.piextUSMEnqueueMemcpy(Q, PI_TRUE, Usm, Bytes, 16, 0, nullptr, nullptr)
                       : A.piextUSMEnqueueMemcpy(Q, PI_TRUE, Bytes + 32, Bytes, 16, 0, nullptr,
                                                 nullptr);
       },
       nullptr},
      {"piextUSMEnqueueFill",
       [&] {
         return A.piextUSMEnqueueFill(Q, HasUsm ? Usm : Bytes, Bytes, 4, 16, 0, nullptr, nullptr);
       },
       nullptr},
      {"piProgramCreate", [&] { return A.piProgramCreate(Ctx, Binary, Length, &NewProgram); },
       nullptr},
      {"piProgramCreateWithBinary",
       [&] {
         return A.piProgramCreateWithBinary(Ctx, 1, &Device, &Length, &Binary, 0, nullptr, nullptr,
                                            &NewProgram);
       },
       nullptr},
      {"piextProgramCreateWithImage",
       [&] { return A.piextProgramCreateWithImage(Ctx, 1, &Device, Image, &NewProgram); }, nullptr},
      {"piProgramCompile",
       [&] {
         return A.piProgramCompile(Fresh, 0, nullptr, "", 0, nullptr, nullptr, nullptr, nullptr);
       },
       MakeFresh},
      {"piProgramLink",
       [&] {
         return A.piProgramLink(Ctx, 0, nullptr, "", 1, &Compiled, nullptr, nullptr, &Linked);
       },
       MakeCompiled},
      {"piProgramBuild", [&] { return A.piProgramBuild(P, 0, nullptr, "", nullptr, nullptr); },
       nullptr},
      {"piProgramGetInfo",
       [&] { return A.piProgramGetInfo(P, PI_PROGRAM_INFO_KERNEL_NAMES, 0, nullptr, &Size); },
       nullptr},
      {"piProgramGetBuildInfo",
       [&] {
         return A.piProgramGetBuildInfo(P, Device, PI_PROGRAM_BUILD_INFO_LOG, 0, nullptr, &Size);
       },
       nullptr},
      {"piProgramRetain", [&] { return A.piProgramRetain(P); }, nullptr},
      {"piProgramRelease", [&] { return A.piProgramRelease(P); }, nullptr},
      {"piKernelCreate", [&] { return A.piKernelCreate(P, KernelName, &NewKernel); }, nullptr},
      {"piKernelSetArg",
       [&] {
         const int32_t V = 1;
         return A.piKernelSetArg(K, 0, sizeof(V), &V);
       },
       nullptr},
      {"piextKernelSetArgPointer",
       [&] { return A.piextKernelSetArgPointer(K, 0, sizeof(Usm), &Usm); }, nullptr},
      {"piextKernelSetArgMemObj", [&] { return A.piextKernelSetArgMemObj(K, 0, &Buffer); },
       nullptr},
      {"piKernelGetInfo",
       [&] { return A.piKernelGetInfo(K, PI_KERNEL_INFO_FUNCTION_NAME, 0, nullptr, &Size); },
       nullptr},
      {"piKernelRetain", [&] { return A.piKernelRetain(K); }, nullptr},
      {"piKernelRelease", [&] { return A.piKernelRelease(K); }, nullptr},
      {"piEnqueueKernelLaunch",
       [&] {
         return A.piEnqueueKernelLaunch(Q, K, 1, nullptr, &Global, nullptr, 0, nullptr, nullptr);
       },
       [&] { EXPECT_EQ(A.piextKernelSetArgMemObj(K, 0, &Buffer), PI_SUCCESS); }},
      {"piEventsWait", [&] { return A.piEventsWait(1, &Event); }, nullptr},
      {"piEventGetInfo",
       [&] {
         return A.piEventGetInfo(Event, PI_EVENT_INFO_COMMAND_EXECUTION_STATUS, 0, nullptr, &Size);
       },
       nullptr},
      {"piEventRetain", [&] { return A.piEventRetain(Event); }, nullptr},
      {"piEventRelease", [&] { return A.piEventRelease(Event); }, nullptr},
      {"piEnqueueEventsWait", [&] { return A.piEnqueueEventsWait(Q, 1, &Event, &NewEvent); },
       nullptr},
      {"piEnqueueEventsWaitWithBarrier",
       [&] { return A.piEnqueueEventsWaitWithBarrier(Q, 1, &Event, &NewEvent); }, nullptr},
      {"piextEnqueueDeviceGlobalVariableRead",
       [&] {
         return A.piextEnqueueDeviceGlobalVariableRead(Q, P, "dg_counter_uid", PI_TRUE, 4, 0, Bytes,
                                                       0, nullptr, nullptr);
       },
       nullptr},
      {"piextEnqueueDeviceGlobalVariableWrite",
       [&] {
         return A.piextEnqueueDeviceGlobalVariableWrite(Q, P, "dg_quad", PI_TRUE, 4, 0, Bytes, 0,
                                                        nullptr, &NewEvent);
       },
       nullptr},
      {"piMemBufferPartition",
       [&] {
         pi_buffer_region_struct Region{0, 32};
         return A.piMemBufferPartition(Buffer, 0, PI_BUFFER_CREATE_TYPE_REGION, &Region, &NewMem);
       },
       nullptr},
      {"piEnqueueMemBufferCopy",
       [&] {
         return A.piEnqueueMemBufferCopy(Q, Buffer, Buffer, 0, 32, 16, 0, nullptr, &NewEvent);
       },
       nullptr},
      {"piEnqueueMemBufferFill",
       [&] {
         const uint32_t Word = 5;
         return A.piEnqueueMemBufferFill(Q, Buffer, &Word, 4, 0, 16, 0, nullptr, &NewEvent);
       },
       nullptr},
      {"piEnqueueMemBufferReadRect",
       [&] {
         pi_buff_rect_offset_struct Zero{0, 0, 0};
         pi_buff_rect_region_struct Region{8, 2, 1};
         return A.piEnqueueMemBufferReadRect(Q, Buffer, PI_TRUE, &Zero, &Zero, &Region, 16, 0, 0, 0,
                                             Bytes, 0, nullptr, nullptr);
       },
       nullptr},
      {"piEnqueueMemBufferWriteRect",
       [&] {
         pi_buff_rect_offset_struct Zero{0, 0, 0};
         pi_buff_rect_region_struct Region{8, 2, 1};
         return A.piEnqueueMemBufferWriteRect(Q, Buffer, PI_TRUE, &Zero, &Zero, &Region, 16, 0, 0,
                                              0, Bytes, 0, nullptr, &NewEvent);
       },
       nullptr},
      {"piEnqueueMemBufferCopyRect",
       [&] {
         pi_buff_rect_offset_struct Zero{0, 0, 0};
         pi_buff_rect_offset_struct Below{0, 2, 0};
         pi_buff_rect_region_struct Region{8, 2, 1};
         return A.piEnqueueMemBufferCopyRect(Q, Buffer, Buffer, &Zero, &Below, &Region, 16, 0, 16,
                                             0, 0, nullptr, &NewEvent);
       },
       nullptr},
      {"piEventGetProfilingInfo",
       [&] {
         pi_uint64 Time = 0;
         return A.piEventGetProfilingInfo(Event, PI_PROFILING_INFO_COMMAND_END, sizeof(Time), &Time,
                                          nullptr);
       },
       nullptr},
      {"piEventSetCallback",
       [&] {
         return A.piEventSetCallback(
             Event, PI_EVENT_COMPLETE, [](pi_event, pi_int32, void *) {}, nullptr);
       },
       nullptr},
      {"piextUSMGetMemAllocInfo",
       [&] {
         pi_usm_type Type = PI_MEM_TYPE_UNKNOWN;
         return A.piextUSMGetMemAllocInfo(Ctx, Bytes, PI_MEM_ALLOC_TYPE, sizeof(Type), &Type,
                                          nullptr);
       },
       nullptr},
      {"piEnqueueMemBufferMap",
       [&] {
         return A.piEnqueueMemBufferMap(Q, Buffer, PI_TRUE, PI_MAP_READ | PI_MAP_WRITE, 16, 16, 0,
                                        nullptr, &NewEvent, &NewMap);
       },
       nullptr},
      {"piEnqueueMemUnmap",
       [&] {
         const pi_result Result = A.piEnqueueMemUnmap(Q, Buffer, ToUnmap, 0, nullptr, &NewEvent);
         if (Result == PI_SUCCESS)
           ToUnmap = nullptr;
         return Result;
       },
       [&] {
         EXPECT_EQ(A.piEnqueueMemBufferMap(Q, Buffer, PI_TRUE, PI_MAP_WRITE, 0, 16, 0, nullptr,
                                           nullptr, &ToUnmap),
                   PI_SUCCESS);
       }},
  };
  // Every entry point of the ABI is in the list (and piPluginInit), but
  // piPluginGetLastError, checked after it.
  size_t EntryPoints = 0;
#define DGLINK_COUNT_ENTRY(Name, Ret, Params) ++EntryPoints;
  PI_ENTRY_POINTS(DGLINK_COUNT_ENTRY)
#undef DGLINK_COUNT_ENTRY
  EXPECT_EQ(Calls.size(), EntryPoints);

  auto MadeSomething = [&] {
    return NewContext || NewQueue || NewMem || NewProgram || Linked || NewKernel || NewEvent ||
           NewUsm || NewMap;
  };
  // Releases what a call made (and the compile and link inputs), once.
  auto Drop = [](auto &Handle, auto Release) {
    if (Handle != nullptr) {
      EXPECT_EQ(Release(std::exchange(Handle, nullptr)), PI_SUCCESS);
    }
  };
  auto ReleaseMade = [&] {
    Drop(NewContext, A.piContextRelease);
    Drop(NewQueue, A.piQueueRelease);
    Drop(NewMem, A.piMemRelease);
    Drop(NewProgram, A.piProgramRelease);
    Drop(Linked, A.piProgramRelease);
    Drop(NewKernel, A.piKernelRelease);
    Drop(NewEvent, A.piEventRelease);
    Drop(NewUsm, [&](void *Pointer) { return A.piextUSMFree(Ctx, Pointer); });
    Drop(NewMap, [&](void *Pointer) {
      return A.piEnqueueMemUnmap(Q, Buffer, Pointer, 0, nullptr, nullptr);
    });
    Drop(ToUnmap, [&](void *Pointer) {
      return A.piEnqueueMemUnmap(Q, Buffer, Pointer, 0, nullptr, nullptr);
    });
    Drop(Fresh, A.piProgramRelease);
    Drop(Compiled, A.piProgramRelease);
  };
  auto Find = [&](const std::string &Name) -> const Call & {
    for (const Export &Entry : Calls)
      if (Name == Entry.Name)
        return Entry.Run;
    ADD_FAILURE() << "no call " << Name;
    return Calls.front().Run;
  };
  // One try of Entry with the Point-th allocation point failing (0: none).
  auto Try = [&](const Export &Entry, unsigned Point) {
    const std::string Text = Entry.Name;
    const size_t Release = Text.find("Release");
    // A release needs a reference of its own to drop: a retain first, unarmed.
    if (Release != std::string::npos && Text != "piDeviceRelease") {
      EXPECT_EQ(Find(std::string(Text).replace(Release, 7, "Retain"))(), PI_SUCCESS) << Text;
    }
    if (Entry.Before)
      Entry.Before();
    Arm(Point);
    const pi_result Result = Entry.Run();
    Arm(0);
    return Result;
  };
  constexpr unsigned MaxPoints = 64;
  for (const Export &Entry : Calls) {
    SCOPED_TRACE(Entry.Name);
    const std::string Text = Entry.Name;
    const size_t Retain = Text.find("Retain");
    const bool Counted = Text != "piDeviceRetain" && Text != "piDeviceRelease";
    // What the call answers without a fault, and what it did undone.
    const pi_result Expected = Try(Entry, 0);
    const std::string ExpectedMessage = adapterError();
    if (Expected == PI_SUCCESS && Counted && Retain != std::string::npos) {
      EXPECT_EQ(Find(std::string(Text).replace(Retain, 6, "Release"))(), PI_SUCCESS) << Text;
    }
    ReleaseMade();
    unsigned Point = 1;
    for (; Point < MaxPoints; ++Point) {
      const pi_result Result = Try(Entry, Point);
      if (Result == PI_ERROR_OUT_OF_HOST_MEMORY && Expected != PI_ERROR_OUT_OF_HOST_MEMORY) {
        EXPECT_FALSE(NewContext || NewQueue || NewMem || NewProgram || Linked || NewKernel ||
                     NewEvent || NewUsm || NewMap)
            << Text << " handed out a handle and failed";
        EXPECT_NE(adapterError().find("out of host memory"), std::string::npos) << Text;
        // Nothing changed: the reference taken for a release is still there.
        if (Counted && Text.find("Release") != std::string::npos) {
          EXPECT_EQ(Entry.Run(), PI_SUCCESS) << Text;
        }
        ReleaseMade();
        continue;
      }
      // No point left to fail: the call's own answer.
      EXPECT_EQ(Result, Expected) << Text << ": " << adapterError()
                                  << " (without the fault: " << ExpectedMessage << ")";
      if (Result == PI_SUCCESS && Counted && Retain != std::string::npos) {
        EXPECT_EQ(Find(std::string(Text).replace(Retain, 6, "Release"))(), PI_SUCCESS) << Text;
      }
      ReleaseMade();
      break;
    }
    EXPECT_FALSE(MadeSomething());
    EXPECT_GT(Point, 1u) << Text << ": the barrier's fault point was not reached";
    EXPECT_LT(Point, MaxPoints) << Text;
  }
  // piPluginGetLastError answers the last error: the injected one, then its message.
  char *Message = nullptr;
  Arm(1);
  EXPECT_EQ(A.piPluginGetLastError(&Message), PI_ERROR_OUT_OF_HOST_MEMORY);
  Arm(0);
  EXPECT_EQ(A.piPluginGetLastError(&Message), PI_ERROR_OUT_OF_HOST_MEMORY);
  ASSERT_NE(Message, nullptr);
  EXPECT_NE(std::string(Message).find("piPluginGetLastError: out of host memory"),
            std::string::npos)
      << Message;
  if (HasUsm) {
    EXPECT_PI_SUCCESS(piextUSMFree(Ctx, Usm));
  }
  EXPECT_PI_SUCCESS(piEventRelease(Event));
}

} // namespace
} // namespace dglink::conformance
