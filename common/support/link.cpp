// Import/export resolution across the inputs of a link.
#include <dglink/support/link.h>

#include <dglink/support/error.h>

#include <fmt/format.h>

#include <map>

namespace dglink {

std::string LinkProblems::describe() const {
  std::string Text;
  for (const std::string &Symbol : Unresolved)
    Text += "error: unresolved symbol " + Symbol + "\n";
  for (const std::string &Symbol : Duplicates)
    Text += "error: duplicate symbol " + Symbol + "\n";
  return Text;
}

LinkProblems resolveImports(const std::vector<const ImageMetadata *> &Inputs) {
  LinkProblems Problems;
  std::map<std::string, size_t> Exporter;
  for (size_t I = 0; I < Inputs.size(); ++I) {
    if (Inputs[I] == nullptr || !Inputs[I]->HasSymbolTables)
      continue;
    for (const std::string &Symbol : Inputs[I]->Exported) {
      auto [It, Inserted] = Exporter.emplace(Symbol, I);
      if (!Inserted)
        Problems.Duplicates.push_back(
            fmt::format("{} (exported by inputs {} and {})", clip(Symbol), It->second, I));
    }
  }
  for (size_t I = 0; I < Inputs.size(); ++I) {
    if (Inputs[I] == nullptr || !Inputs[I]->HasSymbolTables)
      continue;
    for (const std::string &Symbol : Inputs[I]->Imported)
      if (Exporter.count(Symbol) == 0)
        Problems.Unresolved.push_back(fmt::format("{} (imported by input {})", clip(Symbol), I));
  }
  return Problems;
}

} // namespace dglink
