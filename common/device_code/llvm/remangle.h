// The OpenCL builtin names of one target renamed for another whose address spaces have
// other numbers. clang mangles an OpenCL pointer's address space as the target's number
// (Itanium vendor qualifier U3AS<n>): SPIR's constant is U3AS2 and its generic U3AS4, where
// NVPTX (nvptx64-nvidia-nvcl) has constant U3AS4 and generic 0, which is not written at all.
// Dropping a qualifier changes which earlier types the name's substitutions (S_, S0_, ...)
// refer to, so the name is parsed and written again, not edited as text. No LLVM here.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace dglink::device_code {

// Name with each address-space qualifier U3AS<from> replaced by U3AS<to> (to = 0: the
// qualifier removed), substitutions renumbered. Only the names of free functions whose
// parameters are builtin, vector, pointer, qualified or named types (what OpenCL's
// builtins take) are understood: for any other name, std::nullopt.
std::optional<std::string> remapAddressSpaceMangling(std::string_view Name,
                                                     const std::map<unsigned, unsigned> &Spaces);

} // namespace dglink::device_code
