// Extension-string assembly (see docs/extension-strings.md).
#include <dglink/support/extensions.h>

#include <set>
#include <sstream>

namespace dglink {

std::string linkingExtension(const std::string &LinkFormat) {
  return "pi_ext_" + LinkFormat + "_linking";
}

std::string buildExtensionString(const std::string &Native,
                                 const std::vector<std::string> &LinkFormats,
                                 bool DeviceGlobalAccess) {
  std::vector<std::string> Words;
  std::set<std::string> Seen;
  auto Add = [&](const std::string &Word) {
    if (!Word.empty() && Seen.insert(Word).second)
      Words.push_back(Word);
  };
  std::istringstream Stream(Native);
  for (std::string Word; Stream >> Word;)
    Add(Word);
  for (const std::string &Format : LinkFormats)
    Add(linkingExtension(Format));
  if (DeviceGlobalAccess)
    Add(PI_EXT_DEVICE_GLOBAL_ACCESS);
  std::string Result;
  for (const std::string &Word : Words) {
    if (!Result.empty())
      Result += ' ';
    Result += Word;
  }
  return Result;
}

} // namespace dglink
