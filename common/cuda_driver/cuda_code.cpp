// NVIDIA device code: format detection, PTX repair and linking, over the CUDA
// driver wrapper's jit_link and nvcl_ptx.
#include "cuda_code.h"

#include "cuda_driver.h"
#include "jit_link.h"
#include "nvcl_ptx.h"

#include <dglink/support/error.h>

#include <set>
#include <string_view>

namespace dglink::cuda {
namespace {

using stream::CodeKind;

NativeFormat formatOf(CodeKind Kind) {
  return Kind == CodeKind::Cubin    ? NativeFormat::Cubin
         : Kind == CodeKind::Fatbin ? NativeFormat::Fatbin
                                    : NativeFormat::Ptx;
}

std::string_view ptxText(const std::vector<char> &Bytes) {
  // PTX programs keep a terminating NUL (the stream backend adds it).
  return std::string_view(Bytes.data(), Bytes.empty() ? 0 : Bytes.size() - 1);
}

} // namespace

const char *codeDescription() { return "PTX, cubin and fatbin"; }

bool detectCode(const void *Data, size_t Size, CodeKind &Kind) {
  NativeFormat Format;
  if (!detectNativeFormat(Data, Size, Format))
    return false;
  Kind = Format == NativeFormat::Cubin    ? CodeKind::Cubin
         : Format == NativeFormat::Fatbin ? CodeKind::Fatbin
                                          : CodeKind::Ptx;
  return true;
}

std::vector<std::string> codeKernelNames(CodeKind Kind, const std::vector<char> &Bytes) {
  if (Kind != CodeKind::Ptx)
    return {};
  return ptxKernelNames(ptxText(Bytes));
}

pi_result codeForLoad(CodeKind Kind, const std::vector<char> &Bytes, std::vector<char> &Out) {
  if (Kind != CodeKind::Ptx) {
    Out = Bytes;
    return PI_SUCCESS;
  }
  const std::string Text = fixOpenClPtx(ptxText(Bytes));
  Out.assign(Text.begin(), Text.end());
  Out.push_back('\0');
  return PI_SUCCESS;
}

bool linkerAvailable(std::string *Why) {
  std::string Where;
  if (nvJitLinkAvailable(&Where)) {
    if (Why != nullptr)
      *Why = "nvJitLink (" + Where + ")";
    return true;
  }
  if (cu().hasLinker()) {
    if (Why != nullptr)
      *Why = "the driver's cuLink*";
    return true;
  }
  if (Why != nullptr)
    *Why = "neither libnvJitLink nor the driver's cuLink* is available";
  return false;
}

pi_result linkCode(const std::vector<stream::LinkSource> &Sources, int Major, int Minor,
                   std::vector<char> &Out, CodeKind &OutKind, std::string &Log) {
  // Functions some input imports must be visible in the input that defines them:
  // what the images export, and what PTX inputs declare without a body.
  std::set<std::string> Exported;
  for (const stream::LinkSource &Source : Sources) {
    Exported.insert(Source.Exported.begin(), Source.Exported.end());
    if (Source.Kind == CodeKind::Ptx)
      for (const std::string &Name : ptxUndefinedFunctions(ptxText(*Source.Bytes)))
        Exported.insert(Name);
  }
  std::vector<std::string> Texts(Sources.size());
  std::vector<LinkInput> Inputs;
  for (size_t I = 0; I < Sources.size(); ++I) {
    const stream::LinkSource &Source = Sources[I];
    if (Source.Kind != CodeKind::Ptx && Source.Kind != CodeKind::Cubin &&
        Source.Kind != CodeKind::Fatbin)
      return fail(PI_ERROR_INVALID_OPERATION,
                  "piProgramLink: input {} is a {}, which NVIDIA's linker cannot link", I,
                  stream::codeKindName(Source.Kind));
    LinkInput Input;
    Input.Format = formatOf(Source.Kind);
    Input.Name = "input" + std::to_string(I);
    if (Source.Kind == CodeKind::Ptx) {
      Texts[I] = fixOpenClPtx(ptxText(*Source.Bytes), Exported);
      Input.Data = Texts[I].c_str();
      Input.Size = Texts[I].size() + 1;
    } else {
      Input.Data = Source.Bytes->data();
      Input.Size = Source.Bytes->size();
    }
    Inputs.push_back(Input);
  }
  OutKind = CodeKind::Cubin;
  if (nvJitLinkAvailable())
    return linkWithNvJitLink(Inputs, Major, Minor, Out, Log);
  return linkWithDriver(Inputs, Out, Log);
}

} // namespace dglink::cuda
