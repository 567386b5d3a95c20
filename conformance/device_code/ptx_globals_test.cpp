// The PTX check of the conformance build (ptx_globals.h): what counts as a device
// global cuModuleGetGlobal can find, and its size.
#include "ptx_globals.h"

#include <gtest/gtest.h>

namespace dglink::conformance {
namespace {

// The shapes LLVM 15's NVPTX backend writes for the conformance device globals.
constexpr const char *Ptx = R"(//
.version 7.0
.target sm_35
.address_size 64

.visible .global .align 4 .u32 dg_counter;
.visible .global .align 4 .u32 dg_initialized = 305441741;
.visible .global .align 4 .b8 dg_initialized_quad[16] = {17, 0, 0, 0, 34, 34, 0, 0, 51, 51, 51, 0, 68, 68, 68, 68};
.visible .global .align 8 .b8 dg_record[24];
.visible .global .align 4 .b8 dg_big[1048576];
.visible .global .align 8 .u64 dg_pointer;
.visible .global .align 8 .f64 dg_double;
.visible .global .align 16 .v4 .u32 dg_vector;
.visible .global .align 4 .u32 dg_matrix[3][5];
.global .align 4 .u32 dg_hidden;
.extern .global .align 4 .u32 dg_imported;
.visible .const .align 4 .u32 dg_constant;
.visible .global .align 4 .u32 GVArray[42];

.visible .entry dg_read_counter(
	.param .u64 dg_read_counter_param_0
)
{
	ld.global.u32 	%r1, [dg_counter];
}
)";

TEST(PtxGlobals, SizesOfVisibleGlobals) {
  EXPECT_EQ(visiblePtxGlobalSize(Ptx, "dg_counter"), 4u);
  EXPECT_EQ(visiblePtxGlobalSize(Ptx, "dg_initialized"), 4u);
  EXPECT_EQ(visiblePtxGlobalSize(Ptx, "dg_initialized_quad"), 16u);
  EXPECT_EQ(visiblePtxGlobalSize(Ptx, "dg_record"), 24u);
  EXPECT_EQ(visiblePtxGlobalSize(Ptx, "dg_big"), 1048576u);
  EXPECT_EQ(visiblePtxGlobalSize(Ptx, "dg_pointer"), 8u);
  EXPECT_EQ(visiblePtxGlobalSize(Ptx, "dg_double"), 8u);
  EXPECT_EQ(visiblePtxGlobalSize(Ptx, "dg_vector"), 16u);
  EXPECT_EQ(visiblePtxGlobalSize(Ptx, "dg_matrix"), 60u);
  EXPECT_EQ(visiblePtxGlobalSize(Ptx, "GVArray"), 168u);
}

TEST(PtxGlobals, OnlyVisibleGlobalDefinitionsCount) {
  EXPECT_EQ(visiblePtxGlobalSize(Ptx, "dg_hidden"), std::nullopt);   // no .visible
  EXPECT_EQ(visiblePtxGlobalSize(Ptx, "dg_imported"), std::nullopt); // a declaration
  EXPECT_EQ(visiblePtxGlobalSize(Ptx, "dg_constant"), std::nullopt); // not .global
  EXPECT_EQ(visiblePtxGlobalSize(Ptx, "dg_missing"), std::nullopt);
  EXPECT_EQ(visiblePtxGlobalSize(Ptx, "dg_read_counter"), std::nullopt); // a kernel
  // A name that only starts like another variable's.
  EXPECT_EQ(visiblePtxGlobalSize(Ptx, "GV"), std::nullopt);
  EXPECT_EQ(visiblePtxGlobalSize(Ptx, "dg_count"), std::nullopt);
  EXPECT_EQ(visiblePtxGlobalSize("", "dg_counter"), std::nullopt);
}

TEST(PtxGlobals, MalformedDeclarationsHaveNoSize) {
  EXPECT_EQ(visiblePtxGlobalSize(".visible .global .align 4 .u24 x;", "x"), std::nullopt);
  EXPECT_EQ(visiblePtxGlobalSize(".visible .global .align 4 .u32 x[];", "x"), std::nullopt);
  EXPECT_EQ(visiblePtxGlobalSize(".visible .global .align 4 .u32 x[n];", "x"), std::nullopt);
  EXPECT_EQ(visiblePtxGlobalSize(".visible .global .align 4 x;", "x"), std::nullopt);
  EXPECT_EQ(visiblePtxGlobalSize(".visible .global .weird .u32 x;", "x"), std::nullopt);
}

} // namespace
} // namespace dglink::conformance
