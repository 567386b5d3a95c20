// dglink_conformance_embed: the build step after dglink-post-link. It reads each
// conformance bundle back with the bundle reader (the reader the harness uses at
// run time), checks what the adapters rely on and the shim's own tests cannot see
// for these sources, and writes
//   - the C++ source of dglink_conformance_device_images: each bundle file as a byte
//     array, and the targets built without images with the reason;
//   - <spirv dir>/<source>.spv, each source's SPIR-V image, for the Level Zero test
//     driver's tests.
//
//   dglink_conformance_embed <manifest> <output .cpp> <spirv dir>
//
// The manifest has one tab-separated line per item:
//   target    <link format>            every bundle has one image of it
//   bundle    <source name> <path>     a bundle file of one source (--split per-input)
//   disabled  <link format> <reason>   a target the suite has no images of, and why
//
// Checks (any failure fails the build, naming the source and image):
//   - the bundle reads back (readBundle validates every offset, size and set);
//   - each image is named after its source and each target has exactly one image
//     without the lowered-storage set;
//   - in each nvptx64 image, each device global of "SYCL/device globals" is a
//     `.visible .global` PTX variable, under the symbol "SYCL/device global symbols"
//     maps its unique id to, with the size the property set gives: the CUDA adapter
//     finds it with cuModuleGetGlobal and bounds every copy by that size.
#include "ptx_globals.h"

#include <dglink/compiler/bundle.h>
#include <dglink/support/device_code.h>
#include <dglink/support/device_global.h>
#include <dglink/support/error.h>
#include <dglink/support/image.h>

#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace {

// Set that marks an image whose device globals the shim lowered out of program
// scope (harness/images.h).
constexpr const char *LoweredStorageSet = "DGLINK/device global storage";

struct Item {
  std::string Kind, Name, Value;
};

bool readManifest(const std::string &Path, std::vector<Item> &Out, std::string &Error) {
  std::ifstream File(Path);
  if (!File) {
    Error = "cannot read the manifest " + Path;
    return false;
  }
  std::string Line;
  while (std::getline(File, Line)) {
    if (Line.empty())
      continue;
    Item Entry;
    std::istringstream Fields(Line);
    std::getline(Fields, Entry.Kind, '\t');
    std::getline(Fields, Entry.Name, '\t');
    std::getline(Fields, Entry.Value);
    if (Entry.Kind != "target" && Entry.Kind != "bundle" && Entry.Kind != "disabled") {
      Error = Path + ": unknown line '" + Line + "'";
      return false;
    }
    Out.push_back(std::move(Entry));
  }
  return true;
}

// The link format (harness/images.cpp's names) of an image; "" if none.
std::string linkFormatOf(const dglink::BundleImage &Image) {
  return dglink::deviceCodeName(dglink::deviceCodeOf(Image.Target, Image.Format));
}

bool checkPtxGlobals(const std::string &Source, size_t Index, const dglink::BundleImage &Image,
                     const _pi_device_binary_struct &Binary, std::string &Error) {
  dglink::ImageMetadata Metadata;
  if (dglink::readImageMetadata(Binary, Metadata) != PI_SUCCESS) {
    Error = fmt::format("{}: image {}: {}", Source, Index, dglink::lastErrorMessage());
    return false;
  }
  const std::string Ptx(Image.Binary.begin(), Image.Binary.end());
  for (const auto &[UniqueId, Info] : Metadata.DeviceGlobals) {
    const std::string Symbol = dglink::deviceGlobalSymbol(Metadata, UniqueId.c_str());
    const std::optional<uint64_t> Size = dglink::conformance::visiblePtxGlobalSize(Ptx, Symbol);
    if (!Size) {
      Error = fmt::format("{}: nvptx64 image {}: device global '{}' (unique id '{}') is not a "
                          "'.visible .global' PTX variable, so cuModuleGetGlobal cannot find it",
                          Source, Index, Symbol, UniqueId);
      return false;
    }
    // A variable without device_image_scope may hold a pointer to its value (usmptr):
    // 8 bytes in PTX, the value's size in the property set (as DPC++ records it).
    const bool Usmptr = !Info.DeviceImageScope && *Size == dglink::UsmptrBytes;
    if (*Size != Info.Size && !Usmptr) {
      Error = fmt::format("{}: nvptx64 image {}: device global '{}' (unique id '{}') has {} bytes "
                          "in PTX but {} in \"{}\"",
                          Source, Index, Symbol, UniqueId, *Size, Info.Size,
                          PI_PROPERTY_SET_DEVICE_GLOBALS);
      return false;
    }
  }
  return true;
}

bool checkBundle(const std::string &Source, const dglink::Bundle &Bundle,
                 const std::vector<std::string> &Targets, const std::string &SpirvDir,
                 std::string &Error) {
  const dglink::DeviceBinaries Binaries(Bundle);
  std::map<std::string, int> Count;
  for (size_t I = 0; I < Bundle.Images.size(); ++I) {
    const dglink::BundleImage &Image = Bundle.Images[I];
    if (Image.Name != Source) {
      Error = fmt::format("{}: image {} is named '{}' (expected one image per target, named after "
                          "the source: --split per-input)",
                          Source, I, Image.Name);
      return false;
    }
    const std::string Format = linkFormatOf(Image);
    if (Format.empty()) {
      Error = fmt::format("{}: image {} has target '{}' and format {}, which is no link format",
                          Source, I, Image.Target, dglink::binaryFormatName(Image.Format));
      return false;
    }
    if (Image.findSet(LoweredStorageSet) != nullptr)
      continue; // lowered variants: the harness tells them apart by the set
    ++Count[Format];
    if (Format == "nvptx64" && !checkPtxGlobals(Source, I, Image, Binaries.image(I), Error))
      return false;
    if (Format == "spirv64") {
      const std::string Path = SpirvDir + "/" + Source + ".spv";
      std::ofstream File(Path, std::ios::binary | std::ios::trunc);
      File.write(reinterpret_cast<const char *>(Image.Binary.data()),
                 static_cast<std::streamsize>(Image.Binary.size()));
      if (!File) {
        Error = "cannot write " + Path;
        return false;
      }
    }
  }
  for (const std::string &Target : Targets)
    if (Count[Target] != 1) {
      Error = fmt::format("{}: {} {} images, expected one", Source, Count[Target], Target);
      return false;
    }
  return true;
}

std::string cString(const std::string &Text) {
  std::string Out = "\"";
  for (const char C : Text) {
    if (C == '"' || C == '\\')
      Out += '\\';
    Out += C;
  }
  return Out + "\"";
}

std::string byteArray(const std::string &Name, const std::vector<uint8_t> &Bytes) {
  std::string Out = fmt::format("alignas(8) const unsigned char {}[] = {{", Name);
  for (size_t I = 0; I < Bytes.size(); ++I)
    Out += fmt::format("{}0x{:02x},", I % 16 == 0 ? "\n    " : " ", Bytes[I]);
  return Out + "\n    0x00};\n\n";
}

} // namespace

int main(int Argc, char **Argv) {
  if (Argc != 4) {
    std::fprintf(stderr, "usage: %s <manifest> <output .cpp> <spirv dir>\n", Argv[0]);
    return 2;
  }
  std::vector<Item> Items;
  std::string Error;
  if (!readManifest(Argv[1], Items, Error)) {
    std::fprintf(stderr, "dglink_conformance_embed: %s\n", Error.c_str());
    return 1;
  }
  std::vector<std::string> Targets;
  for (const Item &Entry : Items)
    if (Entry.Kind == "target")
      Targets.push_back(Entry.Name);

  std::string Arrays, Bundles, Disabled;
  size_t Index = 0;
  for (const Item &Entry : Items) {
    if (Entry.Kind == "disabled") {
      Disabled += fmt::format("    {{{}, {}}},\n", cString(Entry.Name), cString(Entry.Value));
      continue;
    }
    if (Entry.Kind != "bundle")
      continue;
    std::ifstream File(Entry.Value, std::ios::binary);
    const std::vector<uint8_t> Bytes{std::istreambuf_iterator<char>(File),
                                     std::istreambuf_iterator<char>()};
    dglink::Bundle Bundle;
    if (!File || dglink::readBundle(Bytes.data(), Bytes.size(), Bundle) != PI_SUCCESS) {
      std::fprintf(stderr, "dglink_conformance_embed: %s: %s\n", Entry.Value.c_str(),
                   File ? dglink::lastErrorMessage().c_str() : "cannot read the file");
      return 1;
    }
    if (!checkBundle(Entry.Name, Bundle, Targets, Argv[3], Error)) {
      std::fprintf(stderr, "dglink_conformance_embed: %s\n", Error.c_str());
      return 1;
    }
    const std::string Name = fmt::format("Bundle{}", Index++);
    Arrays += fmt::format("// {} ({} images)\n", Entry.Name, Bundle.Images.size());
    Arrays += byteArray(Name, Bytes);
    Bundles += fmt::format("    {{{}, {}, sizeof({}) - 1}},\n", cString(Entry.Name), Name, Name);
  }

  const std::string Source = fmt::format(
      R"(// Generated by dglink_conformance_embed (conformance/device_code): the bundles
// dglink-post-link made of the conformance suite's device code. Do not edit.
#include "embedded_images.h"

namespace dglink::conformance {{
namespace {{

{}}} // namespace

// Each table ends with an empty entry so that it is never a zero-length array.
const EmbeddedBundle EmbeddedBundles[] = {{
{}    {{nullptr, nullptr, 0}}}};
const size_t NumEmbeddedBundles = sizeof(EmbeddedBundles) / sizeof(EmbeddedBundles[0]) - 1;

const DisabledImageTarget DisabledImageTargets[] = {{
{}    {{nullptr, nullptr}}}};
const size_t NumDisabledImageTargets =
    sizeof(DisabledImageTargets) / sizeof(DisabledImageTargets[0]) - 1;

}} // namespace dglink::conformance
)",
      Arrays, Bundles, Disabled);
  std::ofstream Output(Argv[2], std::ios::trunc);
  Output << Source;
  Output.close();
  if (!Output) {
    std::fprintf(stderr, "dglink_conformance_embed: cannot write %s\n", Argv[2]);
    return 1;
  }
  return 0;
}
