// NVIDIA device code for the stream backend's drivers (the CUDA adapter and HIP's
// NVIDIA build): PTX, cubin and fatbin recognised, OpenCL-flavoured PTX repaired
// (nvcl_ptx.h), inputs linked into a cubin by nvJitLink or the driver's cuLink*
// (jit_link.h).
#pragma once

#include <dglink/pi.h>
#include <dglink/stream/driver.h>

#include <string>
#include <vector>

namespace dglink::cuda {

// "PTX, cubin and fatbin".
const char *codeDescription();
// Recognises PTX text, an ELF cubin or a fatbin; false for anything else.
bool detectCode(const void *Data, size_t Size, stream::CodeKind &Kind);
// Names of the kernels of PTX (.entry); none for binary code.
std::vector<std::string> codeKernelNames(stream::CodeKind Kind, const std::vector<char> &Bytes);
// What the driver loads for a program built on its own: PTX repaired, binaries as
// they are.
pi_result codeForLoad(stream::CodeKind Kind, const std::vector<char> &Bytes,
                      std::vector<char> &Out);
// Whether nvJitLink or the driver's cuLink* can link here; Why says which (or what is
// missing).
bool linkerAvailable(std::string *Why);
// Links Sources into a cubin for sm_<Major><Minor>; cuLink* (without nvJitLink) links
// for the device of the current context.
pi_result linkCode(const std::vector<stream::LinkSource> &Sources, int Major, int Minor,
                   std::vector<char> &Out, stream::CodeKind &OutKind, std::string &Log);

} // namespace dglink::cuda
