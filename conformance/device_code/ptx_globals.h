// How the build checks a PTX image's device globals (embed_bundles.cpp): the size of
// a variable defined `.visible .global` at module scope, the only kind
// cuModuleGetGlobal finds by name.
#pragma once

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace dglink::conformance {

// The size in bytes of the module-scope PTX variable Symbol defined
// `.visible .global [.align N] [.vK] .<type><bits> Symbol[extent]...[= ...];`,
// or nothing where there is no such definition (absent, .extern, without
// .visible, or of a type this does not know).
inline std::optional<uint64_t> visiblePtxGlobalSize(std::string_view Ptx,
                                                    const std::string &Symbol) {
  while (!Ptx.empty()) {
    const size_t End = Ptx.find('\n');
    std::string_view Line = Ptx.substr(0, End);
    Ptx = End == std::string_view::npos ? std::string_view() : Ptx.substr(End + 1);
    // The declaration ends where its initializer or the statement does.
    Line = Line.substr(0, Line.find_first_of("=;"));
    std::istringstream Stream{std::string(Line)};
    std::vector<std::string> Words;
    for (std::string Word; Stream >> Word;)
      Words.push_back(Word);
    if (Words.size() < 4 || Words[0] != ".visible" || Words[1] != ".global")
      continue;
    const std::string &Declarator = Words.back();
    if (Declarator.compare(0, Declarator.find('['), Symbol) != 0)
      continue;
    uint64_t Size = 0, Lanes = 1;
    for (size_t I = 2; I + 1 < Words.size(); ++I) {
      const std::string &Word = Words[I];
      if (Word == ".align") {
        ++I; // its operand
      } else if (Word == ".v2" || Word == ".v4") {
        Lanes = Word[2] - '0';
      } else if (Word.size() >= 3 && Word[0] == '.' &&
                 (Word[1] == 'b' || Word[1] == 'u' || Word[1] == 's' || Word[1] == 'f') &&
                 Word.find_first_not_of("0123456789", 2) == std::string::npos) {
        const uint64_t Bits = std::stoull(Word.substr(2));
        if (Bits != 8 && Bits != 16 && Bits != 32 && Bits != 64)
          return std::nullopt;
        Size = Bits / 8 * Lanes;
      } else {
        return std::nullopt; // a state space or qualifier this does not know
      }
    }
    if (Size == 0)
      return std::nullopt;
    // Each [extent] multiplies.
    for (size_t Open = Declarator.find('['); Open != std::string::npos;
         Open = Declarator.find('[', Open + 1)) {
      const size_t Close = Declarator.find(']', Open);
      if (Close == std::string::npos || Close == Open + 1)
        return std::nullopt;
      const std::string Extent = Declarator.substr(Open + 1, Close - Open - 1);
      if (Extent.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
      Size *= std::stoull(Extent);
    }
    return Size;
  }
  return std::nullopt;
}

} // namespace dglink::conformance
