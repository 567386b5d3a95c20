// Unit tests of the device-global helpers the driver-lookup adapters share.
#include <dglink/support/device_global.h>
#include <dglink/support/error.h>

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace {

using dglink::HostAccess;
using dglink::ImageMetadata;

std::vector<uint8_t> stringValue(const std::string &Text) {
  std::vector<uint8_t> Bytes(Text.begin(), Text.end());
  Bytes.push_back(0);
  return Bytes;
}

ImageMetadata declaring(const std::string &Id, uint32_t Size, HostAccess Access) {
  ImageMetadata Metadata;
  dglink::DeviceGlobalInfo Info;
  Info.UniqueId = Id;
  Info.Size = Size;
  Info.Access = Access;
  Metadata.DeviceGlobals[Id] = Info;
  return Metadata;
}

TEST(DeviceGlobalSymbol, FromTheSymbolSetFlatMetadataOrTheIdItself) {
  ImageMetadata Metadata;
  Metadata.RawSets[dglink::DeviceGlobalSymbolsSet]["uid::counter"] = stringValue("counter");
  Metadata.RawSets[PI_PROPERTY_SET_PROGRAM_METADATA][std::string(dglink::DeviceGlobalSymbolsSet) +
                                                     "/uid::flat"] = stringValue("flat_symbol");
  EXPECT_EQ(dglink::deviceGlobalSymbol(Metadata, "uid::counter"), "counter"); // NUL dropped
  EXPECT_EQ(dglink::deviceGlobalSymbol(Metadata, "uid::flat"), "flat_symbol");
  EXPECT_EQ(dglink::deviceGlobalSymbol(Metadata, "plain"), "plain");
}

// UR's "<id>@global_id_mapping" (as UR's CUDA and HIP adapters resolve a unique id) wins
// over dglink's own symbol set.
TEST(DeviceGlobalSymbol, UrGlobalIdMappingFirst) {
  ImageMetadata Metadata;
  Metadata.GlobalIdMapping["_Z7dev_var"] = "dev_var";
  Metadata.GlobalIdMapping["uid::counter"] = "mapped_counter";
  Metadata.RawSets[dglink::DeviceGlobalSymbolsSet]["uid::counter"] = stringValue("counter");
  EXPECT_EQ(dglink::deviceGlobalSymbol(Metadata, "_Z7dev_var"), "dev_var");
  EXPECT_EQ(dglink::deviceGlobalSymbol(Metadata, "uid::counter"), "mapped_counter");
  EXPECT_EQ(dglink::deviceGlobalSymbol(Metadata, "dev_var"), "dev_var");
}

TEST(CheckDeclaredDeviceGlobal, OnlyNamesTheImageListsWhereItListsAny) {
  const ImageMetadata Declaring = declaring("dg_a", 4, HostAccess::ReadWrite);
  int Program = 0;
  EXPECT_EQ(dglink::checkDeclaredDeviceGlobal("f", Declaring, "dg_a", &Program), PI_SUCCESS);
  EXPECT_EQ(dglink::checkDeclaredDeviceGlobal("f", Declaring, "helper", &Program),
            PI_ERROR_INVALID_VALUE);
  EXPECT_NE(dglink::lastErrorMessage().find("'helper'"), std::string::npos)
      << dglink::lastErrorMessage();
  EXPECT_EQ(dglink::checkDeclaredDeviceGlobal("f", ImageMetadata{}, "anything", &Program),
            PI_SUCCESS);
}

TEST(ApplyDeclaredDeviceGlobal, SmallerSizeAndDeclaredAccess) {
  size_t Size = 0;
  HostAccess Access = HostAccess::None;
  dglink::applyDeclaredDeviceGlobal(declaring("dg", 8, HostAccess::Read), "dg", 16, Size, Access);
  EXPECT_EQ(Size, 8u);
  EXPECT_EQ(Access, HostAccess::Read);
  dglink::applyDeclaredDeviceGlobal(declaring("dg", 32, HostAccess::Write), "dg", 16, Size, Access);
  EXPECT_EQ(Size, 16u);
  EXPECT_EQ(Access, HostAccess::Write);
  dglink::applyDeclaredDeviceGlobal(ImageMetadata{}, "dg", 12, Size, Access);
  EXPECT_EQ(Size, 12u);
  EXPECT_EQ(Access, HostAccess::ReadWrite);
}

// Without device_image_scope an 8-byte instance with another declared size is a usmptr:
// the image records the value's size (sizeof(T)), the copy is bound by the pointer.
TEST(ApplyDeclaredDeviceGlobal, UsmptrIsBoundByItsPointer) {
  size_t Size = 0;
  HostAccess Access = HostAccess::None;
  dglink::applyDeclaredDeviceGlobal(declaring("dg", 4, HostAccess::ReadWrite), "dg", 8, Size,
                                    Access);
  EXPECT_EQ(Size, 8u);
  ImageMetadata Scoped = declaring("dg", 4, HostAccess::Read);
  Scoped.DeviceGlobals["dg"].DeviceImageScope = true; // the value itself: the smaller size
  dglink::applyDeclaredDeviceGlobal(Scoped, "dg", 8, Size, Access);
  EXPECT_EQ(Size, 4u);
  EXPECT_EQ(Access, HostAccess::Read);
}

TEST(CheckHostAccess, EachModeAndDirection) {
  EXPECT_EQ(dglink::checkHostAccess("f", "v", HostAccess::ReadWrite, true), PI_SUCCESS);
  EXPECT_EQ(dglink::checkHostAccess("f", "v", HostAccess::ReadWrite, false), PI_SUCCESS);
  EXPECT_EQ(dglink::checkHostAccess("f", "v", HostAccess::Read, false), PI_SUCCESS);
  EXPECT_EQ(dglink::checkHostAccess("f", "v", HostAccess::Write, true), PI_SUCCESS);
  EXPECT_EQ(dglink::checkHostAccess("f", "v", HostAccess::Read, true), PI_ERROR_INVALID_OPERATION);
  EXPECT_NE(dglink::lastErrorMessage().find("'v'"), std::string::npos);
  EXPECT_EQ(dglink::checkHostAccess("f", "v", HostAccess::Write, false),
            PI_ERROR_INVALID_OPERATION);
  EXPECT_EQ(dglink::checkHostAccess("f", "v", HostAccess::None, false), PI_ERROR_INVALID_OPERATION);
}

using Cache = dglink::DeviceGlobalCache<int>;

void add(Cache &Globals, const std::string &Name, const void *Device, int Address) {
  auto Entry = std::make_unique<Cache::Entry>();
  Entry->Name = Name;
  Entry->Device = Device;
  Entry->Address = Address;
  std::lock_guard<std::mutex> Lock(Globals.insertMutex());
  Globals.insert(std::move(Entry));
}

TEST(DeviceGlobalCache, FindsEveryEntryPerDeviceAfterGrowing) {
  Cache Globals;
  int DeviceA = 0;
  int DeviceB = 0;
  EXPECT_EQ(Globals.find("g0", &DeviceA), nullptr);
  constexpr int Count = 20000;
  for (int I = 0; I < Count; ++I) {
    add(Globals, "g" + std::to_string(I), &DeviceA, I);
    add(Globals, "g" + std::to_string(I), &DeviceB, -I);
  }
  EXPECT_EQ(Globals.size(), size_t{2 * Count});
  for (int I = 0; I < Count; ++I) {
    const std::string Name = "g" + std::to_string(I);
    const Cache::Entry *A = Globals.find(Name.c_str(), &DeviceA);
    const Cache::Entry *B = Globals.find(Name.c_str(), &DeviceB);
    ASSERT_NE(A, nullptr) << Name;
    ASSERT_NE(B, nullptr) << Name;
    EXPECT_EQ(A->Address, I);
    EXPECT_EQ(B->Address, -I);
  }
  EXPECT_EQ(Globals.find("g20000", &DeviceA), nullptr);
  EXPECT_EQ(Globals.find("g1", nullptr), nullptr);
  // Entries, names past the small-string buffer and tables: linear in the count.
  EXPECT_GT(Globals.memoryBytes(), size_t{2 * Count} * sizeof(Cache::Entry));
  EXPECT_LT(Globals.memoryBytes(), size_t{2 * Count} * (sizeof(Cache::Entry) + 8 * 8 + 64));
}

TEST(DeviceGlobalCache, ReadersRunWhileEntriesAreAdded) {
  Cache Globals;
  add(Globals, "first", nullptr, 1);
  std::atomic<bool> Done{false};
  std::atomic<int> Missing{0};
  std::vector<std::thread> Readers;
  for (int R = 0; R < 3; ++R)
    Readers.emplace_back([&] {
      while (!Done.load()) {
        const Cache::Entry *First = Globals.find("first");
        if (First == nullptr || First->Address != 1)
          ++Missing;
      }
    });
  for (int I = 0; I < 5000; ++I)
    add(Globals, "v" + std::to_string(I), nullptr, I);
  Done = true;
  for (std::thread &T : Readers)
    T.join();
  EXPECT_EQ(Missing.load(), 0);
}

} // namespace
