// The offsets and total of a launch's local-memory arguments (local_memory.h).
#include <dglink/stream/local_memory.h>

#include <algorithm>
#include <limits>
#include <utility>

namespace dglink::stream {

bool layOutLocalArguments(const std::vector<size_t> &Sizes, size_t Base, LocalLayout &Out) {
  constexpr size_t Largest = std::numeric_limits<size_t>::max();
  LocalLayout Layout;
  Layout.Offsets.assign(Sizes.size(), 0);
  size_t End = Base;
  for (size_t I = 0; I < Sizes.size(); ++I) {
    const size_t Size = Sizes[I];
    if (Size == 0)
      continue;
    const size_t Alignment = std::min(Size, MaxLocalAlignment);
    const size_t Pad = (Alignment - End % Alignment) % Alignment;
    if (Pad > Largest - End || Size > Largest - End - Pad)
      return false;
    Layout.Offsets[I] = End + Pad;
    End += Pad + Size;
  }
  Layout.Total = End;
  Out = std::move(Layout);
  return true;
}

} // namespace dglink::stream
