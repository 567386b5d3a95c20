// Local-memory kernel arguments on drivers of the CUDA shape. DPC++'s NVPTX and AMDGCN
// device code (and the shim's, compiler/post_link/local_arguments.cpp) takes each
// `local` pointer parameter as an integer offset into the kernel's one dynamic
// shared-memory array; a launch passes, for each such argument, its offset in that
// array and asks for the arrays' total as the block's dynamic shared memory. The layout
// is UR's CUDA and HIP adapters' (docs/stream-backend.md), so that code made for them
// runs here unchanged.
#pragma once

#include <cstddef>
#include <vector>

namespace dglink::stream {

// The largest alignment a local argument gets: the widest vector type (double16).
inline constexpr size_t MaxLocalAlignment = 128;

struct LocalLayout {
  // Per argument index: the offset of each local argument (0 for the others).
  std::vector<size_t> Offsets;
  // The dynamic shared memory of a launch: the end of the last local argument.
  size_t Total = 0;
};

// Lays out local arguments in argument order from offset Base (shared memory the
// launch reserves before them; 0 for plain kernels): Sizes[I] is argument I's size in
// bytes, 0 where it is not a local argument. Each starts at the next multiple of
// min(its size, MaxLocalAlignment) (a multiple of the alignment of any element type
// it can hold). False, Out untouched, where the total does not fit a size_t.
bool layOutLocalArguments(const std::vector<size_t> &Sizes, size_t Base, LocalLayout &Out);

} // namespace dglink::stream
