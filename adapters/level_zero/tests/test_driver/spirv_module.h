// The test driver's SPIR-V reader: what a module declares (program-scope
// variables with their sizes, initial bytes and names, kernels, imports and
// exports), read from untrusted bytes with every word count, id and string
// checked, so that a malformed module is an error message and never a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dglink::ze_test {

// A program-scope variable (CrossWorkgroup or UniformConstant storage).
struct SpirvGlobal {
  uint32_t Id = 0;
  std::string DebugName;      // OpName, if any
  std::string ExportName;     // LinkageAttributes ... Export
  std::string ImportName;     // LinkageAttributes ... Import (no storage of its own)
  std::string HostAccessName; // HostAccessINTEL (6147 pre-standard or 6188) name
  uint32_t HostAccessMode = 0;
  bool HasHostAccess = false;
  uint64_t Size = 0;
  uint64_t Alignment = 1;
  // The initializer's bytes (Size of them), or empty for zero.
  std::vector<uint8_t> Initializer;
};

struct SpirvKernel {
  std::string Name;
  std::vector<uint64_t> ParameterSizes; // bytes of each parameter (pointers: pointer size)
  std::vector<bool> LocalParameters;    // whether each is a pointer to local (Workgroup) memory
};

struct SpirvModule {
  uint32_t Version = 0; // 0x00MMmm00
  uint32_t Bound = 0;
  uint32_t PointerSize = 8;
  std::vector<SpirvGlobal> Globals;
  std::vector<SpirvKernel> Kernels;
  std::vector<std::string> ExportedFunctions;
  std::vector<std::string> ImportedFunctions;

  // Every symbol the module imports (functions and variables), builtins excluded.
  std::vector<std::string> imports() const;
  // Every symbol the module exports (functions and variables).
  std::vector<std::string> exports() const;
};

// Reads Size bytes at Data. On failure returns false and sets Error to a
// sentence naming what is wrong and where ("word 17 (OpDecorate): ...").
bool readSpirvModule(const void *Data, size_t Size, SpirvModule &Out, std::string &Error);

} // namespace dglink::ze_test
