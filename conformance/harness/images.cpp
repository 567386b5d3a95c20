// The embedded bundles read back, image lookup, and the images handed to programs.
#include "images.h"

#include <dglink/compiler/bundle.h>
#include <dglink/support/device_code.h>
#include <dglink/support/error.h>

#include <cstring>
#include <memory>

namespace dglink::conformance {

const std::vector<LinkFormat> &knownLinkFormats() {
  static const std::vector<LinkFormat> Formats = {
      {deviceCodeName(DeviceCode::Spir), {"spir64", "SPIR"}},
      {deviceCodeName(DeviceCode::SpirV), {"spirv64", "SPIR-V"}},
      {deviceCodeName(DeviceCode::Ptx), {"nvptx64", "PTX"}},
      {deviceCodeName(DeviceCode::AmdCodeObject), {"amdgcn", "code object"}},
  };
  return Formats;
}

const LinkFormat *findLinkFormat(const std::string &Name) {
  for (const LinkFormat &Format : knownLinkFormats())
    if (Name == Format.Name)
      return &Format;
  return nullptr;
}

namespace {

// The link format of an image: its target and binary format.
const LinkFormat *linkFormatOf(const _pi_device_binary_struct &Binary) {
  if (Binary.DeviceTargetSpec == nullptr)
    return nullptr;
  const DeviceCode Code =
      deviceCodeOf(Binary.DeviceTargetSpec, static_cast<pi_device_binary_format>(Binary.Format));
  return Code == DeviceCode::Unknown ? nullptr : findLinkFormat(deviceCodeName(Code));
}

bool hasSet(const _pi_device_binary_struct &Binary, const char *Name) {
  for (auto *Set = Binary.PropertySetsBegin; Set != Binary.PropertySetsEnd; ++Set)
    if (Set->Name != nullptr && std::strcmp(Set->Name, Name) == 0)
      return true;
  return false;
}

// The embedded bundles, read once with the bundle reader and kept for the life of
// the process (programs point into their images).
struct Embedded {
  std::vector<std::unique_ptr<DeviceBinaries>> Bundles;
  std::vector<EmbeddedImage> Images;
  std::string Error; // why a bundle or image could not be used (the build checks this)
};

const Embedded &embedded() {
  static const Embedded Result = [] {
    Embedded Out;
    for (size_t I = 0; I < NumEmbeddedBundles; ++I) {
      const EmbeddedBundle &Source = EmbeddedBundles[I];
      Bundle Parsed;
      if (readBundle(Source.Bytes, Source.Size, Parsed) != PI_SUCCESS) {
        Out.Error += std::string(Out.Error.empty() ? "" : "; ") + "embedded bundle " + Source.Name +
                     ": " + lastErrorMessage();
        continue;
      }
      Out.Bundles.push_back(std::make_unique<DeviceBinaries>(Parsed));
      const DeviceBinaries &Binaries = *Out.Bundles.back();
      for (size_t J = 0; J < Binaries.size(); ++J) {
        const _pi_device_binary_struct &Binary = Binaries.image(J);
        const LinkFormat *Format = linkFormatOf(Binary);
        if (Format == nullptr) {
          Out.Error += std::string(Out.Error.empty() ? "" : "; ") + "embedded bundle " +
                       Source.Name + ": image " + std::to_string(J) + " has no link format";
          continue;
        }
        EmbeddedImage Image;
        Image.Name = Parsed.Images[J].Name;
        Image.LinkFormat = Format->Name;
        Image.Lowered = hasSet(Binary, DeviceGlobalStorageSet);
        Image.Binary = &Binary;
        Out.Images.push_back(std::move(Image));
      }
    }
    return Out;
  }();
  return Result;
}

} // namespace

const std::vector<EmbeddedImage> &embeddedImages() { return embedded().Images; }

const EmbeddedImage *findImage(const std::string &Name, const std::string &Format, bool Lowered) {
  for (const EmbeddedImage &Image : embeddedImages())
    if (Name == Image.Name && Format == Image.LinkFormat && Lowered == Image.Lowered)
      return &Image;
  return nullptr;
}

bool hasImages(const std::string &Format) {
  for (const EmbeddedImage &Image : embeddedImages())
    if (Format == Image.LinkFormat)
      return true;
  return false;
}

std::string missingImagesReason(const std::string &Format) {
  const std::string &Error = embedded().Error;
  const std::string Unreadable = Error.empty() ? "" : "; " + Error;
  for (size_t I = 0; I < NumDisabledImageTargets; ++I)
    if (Format == DisabledImageTargets[I].LinkFormat)
      return "no image built for target " + Format + " (" + DisabledImageTargets[I].Reason + ")" +
             Unreadable;
  return "no image built for target " + Format + " (the suite has no device code for it)" +
         Unreadable;
}

DeviceImage::DeviceImage(const EmbeddedImage &Image, const LinkFormat &Format)
    : Source(Image), Link(Format) {}

} // namespace dglink::conformance
