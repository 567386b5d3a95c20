// A dglink device image as Unified Runtime program metadata (dglink/ur_ext.h): the
// image's target, format, options and entries, and every property of every property
// set as "<set>/<property>", so that urProgramCreateWithBinary makes the program
// piextProgramCreateWithImage makes. Header-only: the conformance suite's UR face and
// the benchmarks use it.
#pragma once

#include <dglink/pi.h>
#include <dglink/ur_ext.h>

#include <unified-runtime/ur_api.h>

#include <list>
#include <string>
#include <vector>

namespace dglink::ur_image {

// Owns the names and strings its entries point at.
struct Metadata {
  std::list<std::string> Strings;
  std::vector<ur_program_metadata_t> Entries;

  // A PI property as UR metadata: UINT32 in data32, strings as they are, byte arrays
  // with their 64-bit size header (as DPC++ passes them); what is malformed is passed
  // on as bytes for the adapter to refuse.
  void add(const std::string &Name, const _pi_device_binary_property_struct &Property) {
    ur_program_metadata_t Entry{};
    Entry.pName = keep(Name);
    switch (Property.Type) {
    case PI_PROPERTY_TYPE_UINT32:
      Entry.type = UR_PROGRAM_METADATA_TYPE_UINT32;
      Entry.value.data32 = static_cast<uint32_t>(Property.ValSize);
      break;
    case PI_PROPERTY_TYPE_STRING:
      Entry.type = UR_PROGRAM_METADATA_TYPE_STRING;
      Entry.value.pString = static_cast<char *>(Property.ValAddr);
      break;
    default:
      Entry.type = UR_PROGRAM_METADATA_TYPE_BYTE_ARRAY;
      Entry.size = static_cast<size_t>(Property.ValSize);
      Entry.value.pData = Property.ValAddr;
      break;
    }
    Entries.push_back(Entry);
  }
  void addString(const char *Name, const char *Value) {
    ur_program_metadata_t Entry{};
    Entry.pName = keep(Name);
    Entry.type = UR_PROGRAM_METADATA_TYPE_STRING;
    Entry.value.pString = keep(Value != nullptr ? Value : ""); // UR's field is not const
    Entries.push_back(Entry);
  }
  void addUint32(const char *Name, uint32_t Value) {
    ur_program_metadata_t Entry{};
    Entry.pName = keep(Name);
    Entry.type = UR_PROGRAM_METADATA_TYPE_UINT32;
    Entry.value.data32 = Value;
    Entries.push_back(Entry);
  }
  ur_program_properties_t properties() const {
    return {UR_STRUCTURE_TYPE_PROGRAM_PROPERTIES, nullptr, static_cast<uint32_t>(Entries.size()),
            Entries.empty() ? nullptr : Entries.data()};
  }

private:
  char *keep(const std::string &Text) {
    Strings.push_back(Text);
    return Strings.back().data();
  }
};

// Everything Image says of itself.
inline Metadata fromImage(const _pi_device_binary_struct &Image) {
  Metadata List;
  List.addString(DGLINK_UR_METADATA_IMAGE_TARGET,
                 Image.DeviceTargetSpec != nullptr ? Image.DeviceTargetSpec : "");
  List.addUint32(DGLINK_UR_METADATA_IMAGE_FORMAT, Image.Format);
  List.addString(DGLINK_UR_METADATA_IMAGE_COMPILE_OPTIONS, Image.CompileOptions);
  List.addString(DGLINK_UR_METADATA_IMAGE_LINK_OPTIONS, Image.LinkOptions);
  if (Image.EntriesBegin != nullptr && Image.EntriesEnd >= Image.EntriesBegin)
    for (const _pi_offload_entry_struct *E = Image.EntriesBegin; E != Image.EntriesEnd; ++E)
      List.addString(DGLINK_UR_METADATA_IMAGE_ENTRY, E->name);
  if (Image.PropertySetsBegin != nullptr && Image.PropertySetsEnd >= Image.PropertySetsBegin)
    for (const _pi_device_binary_property_set_struct *Set = Image.PropertySetsBegin;
         Set != Image.PropertySetsEnd; ++Set) {
      if (Set->Name == nullptr || Set->PropertiesBegin == nullptr)
        continue;
      for (const _pi_device_binary_property_struct *P = Set->PropertiesBegin;
           P != Set->PropertiesEnd; ++P)
        List.add(std::string(Set->Name) + "/" + (P->Name != nullptr ? P->Name : ""), *P);
    }
  return List;
}

} // namespace dglink::ur_image
