// The property sets of an image, and the device_image_scope check across images.
#include "post_link_internal.h"

#include <map>
#include <set>

namespace dglink::shim {

llvm::Expected<std::vector<BundlePropertySet>> computePropertySets(const llvm::Module &M) {
  llvm::Expected<std::vector<DeviceGlobal>> Globals = findDeviceGlobals(M);
  if (!Globals)
    return Globals.takeError();
  std::vector<BundlePropertySet> Sets;
  BundlePropertySet DeviceGlobals{PI_PROPERTY_SET_DEVICE_GLOBALS, {}};
  BundlePropertySet Symbols{DeviceGlobalSymbolsSet, {}};
  std::map<std::string, const DeviceGlobal *> ById;
  for (const DeviceGlobal &Global : *Globals) {
    auto [It, Inserted] = ById.emplace(Global.Info.UniqueId, &Global);
    if (!Inserted)
      return makeError("device globals '{}' and '{}' have the same unique id '{}'",
                       It->second->Symbol, Global.Symbol, Global.Info.UniqueId);
  }
  for (const auto &[Id, Global] : ById) {
    DeviceGlobals.Properties.push_back(BundleProperty::deviceGlobal(Global->Info));
    if (Id != Global->Symbol)
      Symbols.Properties.push_back(BundleProperty::string(Id, Global->Symbol));
  }
  if (!DeviceGlobals.Properties.empty())
    Sets.push_back(std::move(DeviceGlobals));
  if (!Symbols.Properties.empty())
    Sets.push_back(std::move(Symbols));
  // The symbol sets are present even when empty: an image without them is one whose
  // imports are unknown (ImageMetadata::HasSymbolTables).
  BundlePropertySet Exported{PI_PROPERTY_SET_EXPORTED_SYMBOLS, {}};
  for (const std::string &Name : exportedSymbols(M))
    Exported.Properties.push_back(BundleProperty::uint32(Name, 1));
  BundlePropertySet Imported{PI_PROPERTY_SET_IMPORTED_SYMBOLS, {}};
  for (const std::string &Name : importedSymbols(M))
    Imported.Properties.push_back(BundleProperty::uint32(Name, 1));
  Sets.push_back(std::move(Exported));
  Sets.push_back(std::move(Imported));
  return Sets;
}

llvm::Error checkDeviceImageScope(const std::vector<SplitImage> &Images) {
  // Unique id -> the variable's symbol and every image that defines or uses it.
  std::map<std::string, std::pair<std::string, std::vector<std::string>>> Users;
  for (const SplitImage &Image : Images) {
    for (const llvm::GlobalVariable &Variable : Image.Module->globals()) {
      if (!isDeviceGlobal(Variable) || (Variable.isDeclaration() && Variable.use_empty()))
        continue;
      llvm::Expected<DeviceGlobal> Global = readDeviceGlobal(Variable);
      if (!Global)
        return Global.takeError();
      if (!Global->Info.DeviceImageScope)
        continue;
      auto &Entry = Users[Global->Info.UniqueId];
      Entry.first = Global->Symbol;
      Entry.second.push_back(Image.Name);
    }
  }
  for (const auto &[Id, Entry] : Users) {
    if (Entry.second.size() < 2)
      continue;
    std::string Names;
    for (const std::string &Name : Entry.second)
      Names += (Names.empty() ? "'" : ", '") + Name + "'";
    return makeError("device_global variable '{}' (unique id '{}') with property "
                     "\"device_image_scope\" is used in more than one device image: {}",
                     Entry.first, Id, Names);
  }
  return llvm::Error::success();
}

} // namespace dglink::shim
