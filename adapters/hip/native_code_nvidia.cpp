// Device code of the NVIDIA build: PTX, cubin and fatbin, and linking through
// the CUDA linker. Everything here reuses dglink_cuda_driver (the CUDA adapter's
// driver wrapper, format detection, PTX repair and nvJitLink / cuLink* linking)
// by linking it, not by copying it.
#include "native_code.h"

#include "cuda_driver.h"
#include "jit_link.h"
#include "nvcl_ptx.h"

#include <dglink/support/error.h>

#include <set>
#include <string_view>

namespace dglink::hip {
namespace {

using dglink::cuda::NativeFormat;

CodeKind kindOf(NativeFormat Format) {
  switch (Format) {
  case NativeFormat::Ptx:
    return CodeKind::Ptx;
  case NativeFormat::Cubin:
    return CodeKind::Cubin;
  case NativeFormat::Fatbin:
    return CodeKind::Fatbin;
  }
  return CodeKind::Ptx;
}

NativeFormat formatOf(CodeKind Kind) {
  return Kind == CodeKind::Cubin    ? NativeFormat::Cubin
         : Kind == CodeKind::Fatbin ? NativeFormat::Fatbin
                                    : NativeFormat::Ptx;
}

std::string_view ptxText(const std::vector<char> &Bytes) {
  // PTX programs keep a terminating NUL (program.cpp).
  return std::string_view(Bytes.data(), Bytes.empty() ? 0 : Bytes.size() - 1);
}

} // namespace

const char *codeKindName(CodeKind Kind) {
  switch (Kind) {
  case CodeKind::Ptx:
    return "PTX";
  case CodeKind::Cubin:
    return "cubin";
  case CodeKind::Fatbin:
    return "fatbin";
  case CodeKind::CodeObject:
    return "code object";
  case CodeKind::Relocatable:
    return "relocatable code object";
  }
  return "unknown";
}

const char *imageTarget() { return PI_DEVICE_BINARY_TARGET_NVPTX64; }
const char *codeDescription() { return "PTX, cubin and fatbin"; }

bool detectCode(const void *Data, size_t Size, CodeKind &Kind) {
  NativeFormat Format;
  if (!dglink::cuda::detectNativeFormat(Data, Size, Format))
    return false;
  Kind = kindOf(Format);
  return true;
}

std::vector<std::string> kernelNames(CodeKind Kind, const std::vector<char> &Bytes) {
  if (Kind != CodeKind::Ptx)
    return {};
  return dglink::cuda::ptxKernelNames(ptxText(Bytes));
}

pi_result codeForLoad(CodeKind Kind, const std::vector<char> &Bytes, const std::string &,
                      std::vector<char> &Out, std::string &) {
  if (Kind != CodeKind::Ptx) {
    Out = Bytes;
    return PI_SUCCESS;
  }
  const std::string Text = dglink::cuda::fixOpenClPtx(ptxText(Bytes));
  Out.assign(Text.begin(), Text.end());
  Out.push_back('\0');
  return PI_SUCCESS;
}

bool linkerAvailable(std::string *Why) {
  std::string Where;
  if (dglink::cuda::nvJitLinkAvailable(&Where)) {
    if (Why != nullptr)
      *Why = "nvJitLink (" + Where + ")";
    return true;
  }
  if (dglink::cuda::cu().hasLinker()) {
    if (Why != nullptr)
      *Why = "the driver's cuLink*";
    return true;
  }
  if (Why != nullptr)
    *Why = "neither libnvJitLink nor the driver's cuLink* is available";
  return false;
}

pi_result linkCode(const std::vector<LinkSource> &Sources, const std::string &, int Major,
                   int Minor, std::vector<char> &Out, CodeKind &OutKind, std::string &Log) {
  // Functions some input imports must be visible in the input that defines
  // them: what the images export, and what PTX inputs declare without a body.
  std::set<std::string> Exported;
  for (const LinkSource &Source : Sources) {
    Exported.insert(Source.Exported.begin(), Source.Exported.end());
    if (Source.Kind == CodeKind::Ptx)
      for (const std::string &Name : dglink::cuda::ptxUndefinedFunctions(ptxText(*Source.Bytes)))
        Exported.insert(Name);
  }
  std::vector<std::string> Texts(Sources.size());
  std::vector<dglink::cuda::LinkInput> Inputs;
  for (size_t I = 0; I < Sources.size(); ++I) {
    const LinkSource &Source = Sources[I];
    if (Source.Kind != CodeKind::Ptx && Source.Kind != CodeKind::Cubin &&
        Source.Kind != CodeKind::Fatbin)
      return fail(PI_ERROR_INVALID_OPERATION,
                  "piProgramLink: input {} is a {}, which the NVIDIA platform cannot link", I,
                  codeKindName(Source.Kind));
    dglink::cuda::LinkInput Input;
    Input.Format = formatOf(Source.Kind);
    Input.Name = "input" + std::to_string(I);
    if (Source.Kind == CodeKind::Ptx) {
      Texts[I] = dglink::cuda::fixOpenClPtx(ptxText(*Source.Bytes), Exported);
      Input.Data = Texts[I].c_str();
      Input.Size = Texts[I].size() + 1;
    } else {
      Input.Data = Source.Bytes->data();
      Input.Size = Source.Bytes->size();
    }
    Inputs.push_back(Input);
  }
  OutKind = CodeKind::Cubin;
  if (dglink::cuda::nvJitLinkAvailable())
    return dglink::cuda::linkWithNvJitLink(Inputs, Major, Minor, Out, Log);
  // cuLink* links for the device of the current context (the adapter made the
  // program's device current).
  return dglink::cuda::linkWithDriver(Inputs, Out, Log);
}

} // namespace dglink::hip
