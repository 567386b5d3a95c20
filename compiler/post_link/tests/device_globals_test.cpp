// Device-global recognition: the DPC++ attributes, the plain-clang annotation, and
// the errors for a size that disagrees with the type and for malformed properties.
#include "sample_ir.h"
#include "test_util.h"

#include <llvm/IR/GlobalVariable.h>

namespace dglink::shim {
namespace {

using test::annotatedModule;
using test::counterModule;
using test::errorText;
using test::parse;

TEST(DeviceGlobals, DpcppAttributesAreRecognised) {
  llvm::LLVMContext Context;
  auto M = parse(Context, counterModule());
  ASSERT_TRUE(M);
  llvm::Expected<std::vector<DeviceGlobal>> Globals = findDeviceGlobals(*M);
  ASSERT_TRUE(bool(Globals)) << errorText(Globals.takeError());
  ASSERT_EQ(Globals->size(), 2u);
  EXPECT_EQ((*Globals)[0].Symbol, "counter");
  EXPECT_EQ((*Globals)[0].Info.UniqueId, "counter_uid");
  EXPECT_EQ((*Globals)[0].Info.Size, 4u);
  EXPECT_FALSE((*Globals)[0].Info.DeviceImageScope);
  EXPECT_EQ((*Globals)[0].Info.Access, HostAccess::Read);
  EXPECT_EQ((*Globals)[1].Symbol, "table");
  EXPECT_EQ((*Globals)[1].Info.Size, 16u);
  EXPECT_TRUE((*Globals)[1].Info.DeviceImageScope);
  EXPECT_EQ((*Globals)[1].Info.Access, HostAccess::ReadWrite); // no sycl-host-access
}

TEST(DeviceGlobals, SizeThatDisagreesWithTheTypeIsAnError) {
  llvm::LLVMContext Context;
  auto M = parse(Context, counterModule("8"));
  ASSERT_TRUE(M);
  llvm::Expected<std::vector<DeviceGlobal>> Globals = findDeviceGlobals(*M);
  ASSERT_FALSE(bool(Globals));
  EXPECT_EQ(errorText(Globals.takeError()),
            "device global 'counter' (unique id 'counter_uid'): sycl-device-global-size says 8 "
            "bytes but its type i32 has 4");
}

TEST(DeviceGlobals, SizeThatIsNotANumberIsAnError) {
  llvm::LLVMContext Context;
  auto M = parse(Context, counterModule("four"));
  ASSERT_TRUE(M);
  EXPECT_EQ(errorText(findDeviceGlobals(*M).takeError()),
            "device global 'counter': sycl-device-global-size 'four' is not a size in bytes");
}

TEST(DeviceGlobals, UnknownHostAccessIsAnError) {
  llvm::LLVMContext Context;
  auto M = parse(Context, counterModule());
  ASSERT_TRUE(M);
  M->getNamedGlobal("counter")->addAttribute("sycl-host-access", "7");
  EXPECT_EQ(errorText(findDeviceGlobals(*M).takeError()),
            "device global 'counter': sycl-host-access '7' is not 0-3 or read, write, "
            "read_write, none");
}

TEST(DeviceGlobals, AnnotationBecomesTheDpcppAttributes) {
  llvm::LLVMContext Context;
  auto M = parse(Context, annotatedModule("dglink_device_global:ns::counter:1:write"));
  ASSERT_TRUE(M);
  ASSERT_FALSE(bool(normalizeDeviceGlobalAnnotations(*M)));
  const llvm::GlobalVariable *Counter = M->getNamedGlobal("counter");
  ASSERT_NE(Counter, nullptr);
  EXPECT_EQ(Counter->getAttribute("sycl-device-global-size").getValueAsString(), "8");
  EXPECT_EQ(Counter->getAttribute("sycl-unique-id").getValueAsString(), "ns::counter");
  EXPECT_TRUE(Counter->hasAttribute("sycl-device-image-scope"));
  EXPECT_EQ(Counter->getAttribute("sycl-host-access").getValueAsString(), "1");
  // The annotation and its strings are gone; the variable's only use is the kernel's.
  EXPECT_EQ(M->getNamedGlobal("llvm.global.annotations"), nullptr);
  EXPECT_EQ(M->getNamedGlobal(".str"), nullptr);
  EXPECT_EQ(M->getNamedGlobal(".str.1"), nullptr);
  llvm::Expected<std::vector<DeviceGlobal>> Globals = findDeviceGlobals(*M);
  ASSERT_TRUE(bool(Globals)) << errorText(Globals.takeError());
  ASSERT_EQ(Globals->size(), 1u);
  EXPECT_EQ((*Globals)[0].Info.UniqueId, "ns::counter");
  EXPECT_EQ((*Globals)[0].Info.Size, 8u);
  EXPECT_TRUE((*Globals)[0].Info.DeviceImageScope);
  EXPECT_EQ((*Globals)[0].Info.Access, HostAccess::Write);
}

TEST(DeviceGlobals, MalformedAnnotationIsAnError) {
  llvm::LLVMContext Context;
  auto M = parse(Context, annotatedModule("dglink_device_global:counter:2:write"));
  ASSERT_TRUE(M);
  EXPECT_EQ(errorText(normalizeDeviceGlobalAnnotations(*M)),
            "variable 'counter': annotation 'dglink_device_global:counter:2:write' is not "
            "'dglink_device_global:<unique id>:<0|1>:<read|write|read_write|none>'");
  auto Other = parse(Context, annotatedModule("dglink_device_global:counter:0:sometimes"));
  ASSERT_TRUE(Other);
  EXPECT_NE(
      errorText(normalizeDeviceGlobalAnnotations(*Other)).find("is not 'dglink_device_global:"),
      std::string::npos);
}

// DGLINK_SHARED_DEVICE_GLOBAL: the image records the value's size (sizeof(T), as DPC++'s
// sycl-device-global-size), the device instance stays the 8-byte pointer.
TEST(DeviceGlobals, UsmptrRecordsTheValueSize) {
  llvm::LLVMContext Context;
  auto M = parse(Context, test::usmptrModule("12"));
  ASSERT_TRUE(M);
  ASSERT_FALSE(bool(normalizeDeviceGlobalAnnotations(*M)));
  EXPECT_EQ(M->getNamedGlobal("shared")->getAttribute("sycl-device-global-size").getValueAsString(),
            "12");
  EXPECT_EQ(M->getNamedGlobal(".args"), nullptr);
  llvm::Expected<std::vector<DeviceGlobal>> Globals = findDeviceGlobals(*M);
  ASSERT_TRUE(bool(Globals)) << errorText(Globals.takeError());
  ASSERT_EQ(Globals->size(), 1u);
  EXPECT_EQ((*Globals)[0].Info.Size, 12u);
  EXPECT_EQ((*Globals)[0].InstanceSize, 8u);
  EXPECT_FALSE((*Globals)[0].Info.DeviceImageScope);
}

// Without the argument the size is the type's; a value size is refused where the
// variable is no usmptr (image scope, or not one pointer).
TEST(DeviceGlobals, ValueSizeOnlyForAUsmptr) {
  llvm::LLVMContext Context;
  auto Plain = parse(Context, test::usmptrModule(""));
  ASSERT_TRUE(Plain);
  ASSERT_FALSE(bool(normalizeDeviceGlobalAnnotations(*Plain)));
  EXPECT_EQ(
      Plain->getNamedGlobal("shared")->getAttribute("sycl-device-global-size").getValueAsString(),
      "8");
  auto Scoped = parse(Context, test::usmptrModule("12", "1"));
  ASSERT_TRUE(Scoped);
  EXPECT_EQ(errorText(normalizeDeviceGlobalAnnotations(*Scoped)),
            "variable 'shared': a value size (12 bytes) belongs to a device global without "
            "device_image_scope whose instance is one pointer (usmptr, "
            "DGLINK_SHARED_DEVICE_GLOBAL)");
  auto Zero = parse(Context, test::usmptrModule("0"));
  ASSERT_TRUE(Zero);
  EXPECT_EQ(errorText(normalizeDeviceGlobalAnnotations(*Zero)),
            "variable 'shared': a device global annotation takes one argument, the size of the "
            "value (1 to 2^32-1 bytes)");
}

TEST(DeviceGlobals, OtherAnnotationsStay) {
  llvm::LLVMContext Context;
  auto M = parse(Context, annotatedModule("something else"));
  ASSERT_TRUE(M);
  ASSERT_FALSE(bool(normalizeDeviceGlobalAnnotations(*M)));
  EXPECT_NE(M->getNamedGlobal("llvm.global.annotations"), nullptr);
  EXPECT_FALSE(M->getNamedGlobal("counter")->hasAttribute("sycl-device-global-size"));
}

} // namespace
} // namespace dglink::shim
