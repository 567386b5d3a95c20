// `dglink inspect`, as text or JSON: the bundle is read with the validating reader,
// and the sets dglink knows are shown decoded beside their raw values.
#include "inspect.h"

#include <cstdio>

#ifdef DGLINK_HAVE_BUNDLE
#include "devices.h"

#include <dglink/compiler/bundle.h>
#include <dglink/runtime.h>
#include <dglink/support/error.h>
#include <dglink/support/image.h>

#include <nlohmann/json.hpp>

#include <iostream>
#include <string>
#include <vector>
#endif

namespace dglink::tools {

#ifndef DGLINK_HAVE_BUNDLE
int runInspect(const InspectOptions &) {
  std::fprintf(stderr, "dglink inspect: the compiler shim (compiler/) was not built\n");
  return 2;
}
#else
namespace {

std::string hex(const std::vector<uint8_t> &Bytes, size_t From) {
  static const char Digits[] = "0123456789abcdef";
  std::string Text;
  for (size_t I = From; I < Bytes.size(); ++I) {
    Text += Digits[Bytes[I] >> 4];
    Text += Digits[Bytes[I] & 15];
  }
  return Text;
}

// A STRING value without its NUL.
std::string text(const BundleProperty &Property) {
  return std::string(Property.Value.begin(), Property.Value.end() - 1);
}

std::string describe(const DeviceGlobalInfo &Info) {
  return "size " + std::to_string(Info.Size) + ", device_image_scope " +
         (Info.DeviceImageScope ? "1" : "0") + ", host_access " + hostAccessName(Info.Access);
}

// The aspect names of a byte array of uint32 sycl::aspect values (SYCL/device
// requirements "aspects", DGLINK/kernel aspects), or "" when it is not one.
std::vector<std::string> aspectNames(const std::string &Set, const BundleProperty &Property) {
  std::vector<std::string> Names;
  if ((Set != "SYCL/device requirements" && Set != "DGLINK/kernel aspects") ||
      Property.Type != PI_PROPERTY_TYPE_BYTE_ARRAY || Property.Value.size() < 8 ||
      (Property.Value.size() - 8) % 4 != 0)
    return Names;
  for (size_t I = 8; I < Property.Value.size(); I += 4)
    Names.push_back(runtime::aspectName(
        uint32_t(Property.Value[I]) | uint32_t(Property.Value[I + 1]) << 8 |
        uint32_t(Property.Value[I + 2]) << 16 | uint32_t(Property.Value[I + 3]) << 24));
  return Names;
}

nlohmann::json toJson(const Bundle &Input, const DeviceBinaries &View) {
  nlohmann::json Images = nlohmann::json::array();
  for (size_t I = 0; I < Input.Images.size(); ++I) {
    const BundleImage &Image = Input.Images[I];
    ImageMetadata Metadata;
    readImageMetadata(View.image(I), Metadata); // the reader already accepted it
    nlohmann::json Sets = nlohmann::json::object();
    for (const BundlePropertySet &Set : Image.PropertySets) {
      nlohmann::json Properties = nlohmann::json::object();
      for (const BundleProperty &Property : Set.Properties) {
        nlohmann::json Value;
        if (Property.Type == PI_PROPERTY_TYPE_UINT32) {
          Value = {{"type", "uint32"}, {"value", Property.ValSize}};
        } else if (Property.Type == PI_PROPERTY_TYPE_STRING) {
          Value = {{"type", "string"}, {"value", text(Property)}};
        } else {
          Value = {{"type", "byte_array"}, {"bytes", hex(Property.Value, 8)}};
          auto Global = Metadata.DeviceGlobals.find(Property.Name);
          if (Set.Name == PI_PROPERTY_SET_DEVICE_GLOBALS && Global != Metadata.DeviceGlobals.end())
            Value["device_global"] = {{"size", Global->second.Size},
                                      {"device_image_scope", Global->second.DeviceImageScope},
                                      {"host_access", hostAccessName(Global->second.Access)}};
          if (const std::vector<std::string> Aspects = aspectNames(Set.Name, Property);
              !Aspects.empty())
            Value["aspects"] = Aspects;
        }
        Properties[Property.Name] = Value;
      }
      Sets[Set.Name] = Properties;
    }
    Images.push_back({{"name", Image.Name},
                      {"target", Image.Target},
                      {"format", binaryFormatName(Image.Format)},
                      {"size", Image.Binary.size()},
                      {"compile_options", Image.CompileOptions},
                      {"link_options", Image.LinkOptions},
                      {"entries", Image.Entries},
                      {"property_sets", Sets}});
  }
  return {{"version", BundleVersion}, {"images", Images}};
}

void printText(const std::string &Path, const Bundle &Input, const DeviceBinaries &View) {
  std::cout << Path << ": dglink bundle version " << BundleVersion << ", " << Input.Images.size()
            << (Input.Images.size() == 1 ? " image\n" : " images\n");
  for (size_t I = 0; I < Input.Images.size(); ++I) {
    const BundleImage &Image = Input.Images[I];
    ImageMetadata Metadata;
    readImageMetadata(View.image(I), Metadata);
    std::cout << "\nimage " << I << ": " << Image.Name << "\n"
              << "  target:          " << Image.Target << "\n"
              << "  format:          " << binaryFormatName(Image.Format) << "\n"
              << "  size:            " << Image.Binary.size() << " bytes\n"
              << "  compile options: " << Image.CompileOptions << "\n"
              << "  link options:    " << Image.LinkOptions << "\n"
              << "  entries:        ";
    for (const std::string &Entry : Image.Entries)
      std::cout << " " << Entry;
    std::cout << "\n";
    // name=type|value, the types numbered as in pi.h (1 UINT32, 2 BYTE_ARRAY, 3 STRING).
    for (const BundlePropertySet &Set : Image.PropertySets) {
      std::cout << "  [" << Set.Name << "]\n";
      for (const BundleProperty &Property : Set.Properties) {
        std::cout << "    " << Property.Name << "=" << Property.Type << "|";
        if (Property.Type == PI_PROPERTY_TYPE_UINT32) {
          std::cout << Property.ValSize;
        } else if (Property.Type == PI_PROPERTY_TYPE_STRING) {
          std::cout << text(Property);
        } else {
          std::cout << hex(Property.Value, 8);
          auto Global = Metadata.DeviceGlobals.find(Property.Name);
          if (Set.Name == PI_PROPERTY_SET_DEVICE_GLOBALS && Global != Metadata.DeviceGlobals.end())
            std::cout << "  (" << describe(Global->second) << ")";
          if (const std::vector<std::string> Aspects = aspectNames(Set.Name, Property);
              !Aspects.empty()) {
            std::cout << "  (aspects:";
            for (const std::string &Aspect : Aspects)
              std::cout << " " << Aspect;
            std::cout << ")";
          }
        }
        std::cout << "\n";
      }
    }
  }
}

// What the runtime would link for Options.Kernel on each selected device.
int printLinkPlans(const InspectOptions &Options) {
  runtime::Runtime Planner;
  std::vector<std::string> Bundles{Options.Bundle};
  Bundles.insert(Bundles.end(), Options.With.begin(), Options.With.end());
  for (const std::string &Path : Bundles)
    if (runtime::Expected<runtime::ModuleId> Id = Planner.registerBundleFile(Path); !Id) {
      std::fprintf(stderr, "dglink inspect: %s: %s\n", resultName(Id.status().Code),
                   Id.status().Message.c_str());
      return 1;
    }
  nlohmann::json Plans = nlohmann::json::array();
  int Shown = 0;
  for (const conformance::DeviceParam &Device : conformance::allDevices()) {
    if (Device.Id.find(Options.Device) == std::string::npos)
      continue;
    ++Shown;
    runtime::Expected<runtime::LinkPlan> Plan = Planner.planLink(Device.Device, Options.Kernel);
    nlohmann::json Images = nlohmann::json::array();
    if (Plan)
      for (const runtime::ImageInfo &Image : Plan->Images)
        Images.push_back({{"image", Image.Name},
                          {"link_format", Image.LinkFormat},
                          {"exports", Image.Exports},
                          {"imports", Image.Imports},
                          {"virtual_functions_set", Image.VirtualFunctionSet},
                          {"dummy_image", Image.DummyImage}});
    if (Options.Json) {
      Plans.push_back(
          {{"device", Device.Id},
           {"kernel", Options.Kernel},
           {"ok", Plan.ok()},
           {"error", Plan ? "" : Plan.status().Message},
           {"link_format", Plan ? Plan->LinkFormat : ""},
           {"forced_off_aspects", Plan ? Plan->ForcedOffAspects : std::vector<std::string>()},
           {"images", Images}});
      continue;
    }
    std::cout << "kernel " << Options.Kernel << " on " << Device.Id << ": ";
    if (!Plan) {
      std::cout << resultName(Plan.status().Code) << ": " << Plan.status().Message << "\n";
      continue;
    }
    std::cout << Plan->LinkFormat << ", " << Plan->Images.size()
              << (Plan->Images.size() == 1 ? " image (built, nothing imported)\n"
                                           : " images (compiled and linked)\n");
    if (!Plan->ForcedOffAspects.empty()) {
      std::cout << "  aspects forced off (DGLINK_FORCE_ASPECTS_OFF, not the hardware):";
      for (const std::string &Aspect : Plan->ForcedOffAspects)
        std::cout << " " << Aspect;
      std::cout << "\n";
    }
    for (const runtime::ImageInfo &Image : Plan->Images) {
      std::cout << "  " << Image.Name;
      if (!Image.VirtualFunctionSet.empty())
        std::cout << (Image.DummyImage ? "  [dummy of set " : "  [set ") << Image.VirtualFunctionSet
                  << "]";
      std::cout << "  exports:";
      for (const std::string &Symbol : Image.Exports)
        std::cout << " " << Symbol;
      std::cout << "  imports:";
      for (const std::string &Symbol : Image.Imports)
        std::cout << " " << Symbol;
      std::cout << "\n";
    }
  }
  if (Options.Json)
    std::cout << Plans.dump(2) << "\n";
  if (Shown == 0)
    std::fprintf(stderr, "dglink inspect: no device%s%s (see dglink ls)\n",
                 Options.Device.empty() ? "" : " whose id contains ", Options.Device.c_str());
  return Shown == 0 ? 1 : 0;
}

} // namespace

int runInspect(const InspectOptions &Options) {
  if (!Options.Kernel.empty())
    return printLinkPlans(Options);
  Bundle Input;
  if (readBundleFile(Options.Bundle, Input) != PI_SUCCESS) {
    std::fprintf(stderr, "dglink inspect: %s: %s\n", resultName(lastErrorCode()),
                 lastErrorMessage().c_str());
    return 1;
  }
  DeviceBinaries View(Input);
  if (Options.Json)
    std::cout << toJson(Input, View).dump(2) << "\n";
  else
    printText(Options.Bundle, Input, View);
  return 0;
}
#endif

} // namespace dglink::tools
