// Device code's way to mark virtual functions and the kernels that call them with plain
// clang (C++ for OpenCL with __cl_clang_function_pointers): the macros put an annotate
// attribute on the function, which clang emits into llvm.global.annotations, and the shim
// (compiler/post_link/virtual_functions.cpp) turns into the IR attributes of DPC++'s
// virtual-functions design ("indirectly-callable"="<set>" on a function,
// "calls-indirectly"="<set>,<set>" on a kernel), then drops the annotation. See
// docs/virtual-functions.md.
//
//   #pragma OPENCL EXTENSION __cl_clang_function_pointers : enable
//   #include <dglink/virtual_functions.h>
//   struct Base {
//     DGLINK_INDIRECTLY_CALLABLE virtual int foo();                   // the default set
//     DGLINK_INDIRECTLY_CALLABLE_IN("set_fp64") virtual double bar(); // set "set_fp64"
//   };
//   DGLINK_CALLS_INDIRECTLY(DGLINK_DEFAULT_SET ",set_fp64") kernel void use(...) {...}
#ifndef DGLINK_VIRTUAL_FUNCTIONS_H
#define DGLINK_VIRTUAL_FUNCTIONS_H

// The default set's name: DPC++'s indirectly_callable is indirectly_callable_in<void>,
// whose set is __builtin_sycl_unique_stable_name(void).
#define DGLINK_DEFAULT_SET "_ZTSv"

// Set: a string literal without commas.
#define DGLINK_INDIRECTLY_CALLABLE_IN(Set)                                                         \
  __attribute__((annotate("dglink_indirectly_callable:" Set)))
#define DGLINK_INDIRECTLY_CALLABLE DGLINK_INDIRECTLY_CALLABLE_IN(DGLINK_DEFAULT_SET)

// Sets: a string literal, the sets separated by commas.
#define DGLINK_CALLS_INDIRECTLY(Sets) __attribute__((annotate("dglink_calls_indirectly:" Sets)))
#define DGLINK_CALLS_INDIRECTLY_DEFAULT DGLINK_CALLS_INDIRECTLY(DGLINK_DEFAULT_SET)

#endif
