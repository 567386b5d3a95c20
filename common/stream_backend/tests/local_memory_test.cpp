// The layout of local-memory kernel arguments: offsets in argument order, each aligned
// to min(its size, 128), the total the launch asks for (UR's CUDA/HIP adapters' layout).
#include <dglink/stream/local_memory.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

using dglink::stream::layOutLocalArguments;
using dglink::stream::LocalLayout;
using dglink::stream::MaxLocalAlignment;

TEST(LocalMemoryLayout, NoLocalArgumentsTakeNothing) {
  LocalLayout Layout;
  ASSERT_TRUE(layOutLocalArguments({0, 0, 0}, 0, Layout));
  EXPECT_EQ(Layout.Total, 0u);
  EXPECT_EQ(Layout.Offsets, (std::vector<size_t>{0, 0, 0}));
  ASSERT_TRUE(layOutLocalArguments({}, 0, Layout));
  EXPECT_EQ(Layout.Total, 0u);
  EXPECT_TRUE(Layout.Offsets.empty());
}

TEST(LocalMemoryLayout, OneArgumentStartsAtZero) {
  LocalLayout Layout;
  // A pointer, a local array of 256 floats, a value: saxpy_usm_local_mem's shape.
  ASSERT_TRUE(layOutLocalArguments({0, 1024, 0}, 0, Layout));
  EXPECT_EQ(Layout.Offsets[1], 0u);
  EXPECT_EQ(Layout.Total, 1024u);
}

TEST(LocalMemoryLayout, EachAlignedToItsSizeInArgumentOrder) {
  LocalLayout Layout;
  // 1 byte at 0; 4 bytes at 4 (3 bytes of padding); 12 bytes at 12 (a multiple of 12);
  // 2 bytes at 24; 8 bytes at 32.
  ASSERT_TRUE(layOutLocalArguments({1, 4, 0, 12, 2, 8}, 0, Layout));
  EXPECT_EQ(Layout.Offsets, (std::vector<size_t>{0, 4, 0, 12, 24, 32}));
  EXPECT_EQ(Layout.Total, 40u);
}

TEST(LocalMemoryLayout, LargeArgumentsAlignTo128) {
  LocalLayout Layout;
  ASSERT_TRUE(layOutLocalArguments({4, 4096, 200, 128}, 0, Layout));
  EXPECT_EQ(Layout.Offsets[0], 0u);
  EXPECT_EQ(Layout.Offsets[1], MaxLocalAlignment); // 4096 aligns to 128, not to 4096
  EXPECT_EQ(Layout.Offsets[2], 128u + 4096u);      // already a multiple of 128
  EXPECT_EQ(Layout.Offsets[3], 128u + 4096u + 256u);
  EXPECT_EQ(Layout.Total, 128u + 4096u + 256u + 128u);
}

TEST(LocalMemoryLayout, EveryOffsetSuitsAnyElementTypeOfItsArgument) {
  // An array of N elements of a type T has size N * sizeof(T); its offset must be a
  // multiple of alignof(T) (a power of two up to 128, dividing sizeof(T)).
  const size_t Elements[] = {1, 3, 7, 64, 1000};
  const size_t TypeSizes[] = {1, 2, 4, 8, 16, 32, 64, 128, 12, 24};
  std::vector<size_t> Sizes;
  std::vector<size_t> Alignments;
  for (const size_t N : Elements)
    for (const size_t T : TypeSizes) {
      Sizes.push_back(N * T);
      size_t Alignment = 1;
      while (T % (Alignment * 2) == 0 && Alignment < 128)
        Alignment *= 2;
      Alignments.push_back(Alignment);
    }
  LocalLayout Layout;
  ASSERT_TRUE(layOutLocalArguments(Sizes, 0, Layout));
  size_t End = 0;
  for (size_t I = 0; I < Sizes.size(); ++I) {
    EXPECT_EQ(Layout.Offsets[I] % Alignments[I], 0u) << "argument " << I;
    EXPECT_GE(Layout.Offsets[I], End) << "argument " << I << " overlaps the one before";
    End = Layout.Offsets[I] + Sizes[I];
  }
  EXPECT_EQ(Layout.Total, End);
}

TEST(LocalMemoryLayout, StartsAfterTheBase) {
  LocalLayout Layout;
  ASSERT_TRUE(layOutLocalArguments({8, 0, 16}, 20, Layout));
  EXPECT_EQ(Layout.Offsets[0], 24u);
  EXPECT_EQ(Layout.Offsets[2], 32u);
  EXPECT_EQ(Layout.Total, 48u);
  ASSERT_TRUE(layOutLocalArguments({0}, 20, Layout));
  EXPECT_EQ(Layout.Total, 20u);
}

TEST(LocalMemoryLayout, OverflowIsRefusedAndLeavesTheOutputAlone) {
  constexpr size_t Largest = std::numeric_limits<size_t>::max();
  LocalLayout Layout;
  Layout.Total = 7;
  EXPECT_FALSE(layOutLocalArguments({Largest, 1}, 0, Layout));
  EXPECT_FALSE(layOutLocalArguments({1, Largest - 64}, 0, Layout)); // padding overflows
  EXPECT_FALSE(layOutLocalArguments({16}, Largest - 8, Layout));
  EXPECT_EQ(Layout.Total, 7u);
  EXPECT_TRUE(Layout.Offsets.empty());
  ASSERT_TRUE(layOutLocalArguments({Largest}, 0, Layout));
  EXPECT_EQ(Layout.Total, Largest);
}
