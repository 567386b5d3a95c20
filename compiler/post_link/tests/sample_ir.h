// Small IR modules the post-link tests share (typed pointers, as clang-15 emits for
// spir64 and as llvm-spirv 15 reads).
#pragma once

#include <fmt/format.h>

#include <string>

namespace dglink::shim::test {

constexpr const char *SpirHeader =
    "target datalayout = \"e-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-"
    "v512:512-v1024:1024\"\n"
    "target triple = \"spir64-unknown-unknown\"\n";

// Two kernels, a helper, DPC++-style device globals (one device_image_scope), an
// ordinary variable, and declarations of every kind the import filter knows.
inline std::string counterModule(const std::string &CounterSize = "4") {
  return std::string(SpirHeader) + R"(
@counter = addrspace(1) global i32 0, align 4 #0
@table = addrspace(1) global [4 x i32] zeroinitializer, align 4 #1
@plain = addrspace(1) global i32 0, align 4

define spir_func i32 @helper(i32 %x) {
  %v = load i32, i32 addrspace(1)* @counter, align 4
  %r = add i32 %v, %x
  ret i32 %r
}
declare spir_func i32 @library_function(i32)
declare spir_func i64 @_Z13get_global_idj(i32)
declare spir_func void @__spirv_ControlBarrier(i32, i32, i32)
declare spir_func void @__reserved_thing()
declare void @llvm.memset.p1i8.i64(i8 addrspace(1)*, i8, i64, i1)

define spir_kernel void @read_counter(i32 addrspace(1)* %out) {
  %v = call spir_func i32 @helper(i32 1)
  %w = call spir_func i32 @library_function(i32 %v)
  %id = call spir_func i64 @_Z13get_global_idj(i32 0)
  call spir_func void @__spirv_ControlBarrier(i32 2, i32 2, i32 0)
  call spir_func void @__reserved_thing()
  store i32 %w, i32 addrspace(1)* %out, align 4
  ret void
}
define spir_kernel void @fill_table() {
  %p = bitcast [4 x i32] addrspace(1)* @table to i8 addrspace(1)*
  call void @llvm.memset.p1i8.i64(i8 addrspace(1)* %p, i8 0, i64 16, i1 false)
  ret void
}
attributes #0 = { "sycl-device-global-size"=")" +
         CounterSize + R"(" "sycl-unique-id"="counter_uid" "sycl-host-access"="0" }
attributes #1 = { "sycl-device-global-size"="16" "sycl-unique-id"="table" "sycl-device-image-scope" }
!opencl.ocl.version = !{!0}
!0 = !{i32 2, i32 0}
)";
}

// A variable declared with the plain-clang convention: Annotation is the whole string.
inline std::string annotatedModule(const std::string &Annotation) {
  const size_t Length = Annotation.size() + 1;
  return std::string(SpirHeader) + fmt::format(R"(
@counter = addrspace(1) global [2 x i32] zeroinitializer, align 4
@.str = private unnamed_addr constant [{0} x i8] c"{1}\00", section "llvm.metadata"
@.str.1 = private unnamed_addr constant [5 x i8] c"a.cl\00", section "llvm.metadata"
@llvm.global.annotations = appending global [1 x {{ i8*, i8*, i8*, i32, i8* }}] [{{ i8*, i8*, i8*, i32, i8* }} {{ i8* addrspacecast (i8 addrspace(1)* bitcast ([2 x i32] addrspace(1)* @counter to i8 addrspace(1)*) to i8*), i8* getelementptr inbounds ([{0} x i8], [{0} x i8]* @.str, i32 0, i32 0), i8* getelementptr inbounds ([5 x i8], [5 x i8]* @.str.1, i32 0, i32 0), i32 2, i8* null }}], section "llvm.metadata"

define spir_kernel void @bump() {{
  %v = load i32, i32 addrspace(1)* getelementptr inbounds ([2 x i32], [2 x i32] addrspace(1)* @counter, i64 0, i64 1), align 4
  %w = add i32 %v, 1
  store i32 %w, i32 addrspace(1)* getelementptr inbounds ([2 x i32], [2 x i32] addrspace(1)* @counter, i64 0, i64 1), align 4
  ret void
}}
)",
                                               Length, Annotation);
}

// A usmptr as DGLINK_SHARED_DEVICE_GLOBAL(float, shared, "shared_uid") makes it: a struct
// holding one pointer, annotated with the value's size (ValueSize, "" for none) as the
// annotation's argument.
inline std::string usmptrModule(const std::string &ValueSize, const std::string &Scope = "0") {
  const std::string Annotation = "dglink_device_global:shared_uid:" + Scope + ":read_write";
  const std::string Arguments =
      ValueSize.empty() ? "i8* null" : "i8* bitcast ({ i64 }* @.args to i8*)";
  return std::string(SpirHeader) + fmt::format(R"(
%struct.anon = type {{ float addrspace(1)* }}
@shared = addrspace(1) global %struct.anon zeroinitializer, align 8
@.str = private unnamed_addr constant [{0} x i8] c"{1}\00", section "llvm.metadata"
@.str.1 = private unnamed_addr constant [5 x i8] c"a.cl\00", section "llvm.metadata"
@.args = private unnamed_addr constant {{ i64 }} {{ i64 {2} }}, section "llvm.metadata"
@llvm.global.annotations = appending global [1 x {{ i8*, i8*, i8*, i32, i8* }}] [{{ i8*, i8*, i8*, i32, i8* }} {{ i8* addrspacecast (i8 addrspace(1)* bitcast (%struct.anon addrspace(1)* @shared to i8 addrspace(1)*) to i8*), i8* getelementptr inbounds ([{0} x i8], [{0} x i8]* @.str, i32 0, i32 0), i8* getelementptr inbounds ([5 x i8], [5 x i8]* @.str.1, i32 0, i32 0), i32 2, {3} }}], section "llvm.metadata"

define spir_kernel void @bump() {{
  %p = load float addrspace(1)*, float addrspace(1)* addrspace(1)* getelementptr inbounds (%struct.anon, %struct.anon addrspace(1)* @shared, i64 0, i32 0), align 8
  %v = load float, float addrspace(1)* %p, align 4
  %w = fadd float %v, 1.0
  store float %w, float addrspace(1)* %p, align 4
  ret void
}}
)",
                                               Annotation.size() + 1, Annotation,
                                               ValueSize.empty() ? "0" : ValueSize, Arguments);
}

} // namespace dglink::shim::test
