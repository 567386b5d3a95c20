// Helpers of the post-link tests: IR from text, property sets decoded the way an
// adapter reads them.
#pragma once

#include <dglink/compiler/post_link.h>
#include <dglink/support/error.h>

#include <gtest/gtest.h>

#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/SourceMgr.h>

#include <memory>
#include <string>

namespace dglink::shim::test {

inline std::unique_ptr<llvm::Module> parse(llvm::LLVMContext &Context, const std::string &Text,
                                           const std::string &Name = "input") {
  llvm::SMDiagnostic Diagnostic;
  std::unique_ptr<llvm::Module> M = llvm::parseAssemblyString(Text, Diagnostic, Context);
  if (!M) {
    std::string Message;
    llvm::raw_string_ostream Stream(Message);
    Diagnostic.print(Name.c_str(), Stream);
    ADD_FAILURE() << Stream.str();
    return nullptr;
  }
  M->setModuleIdentifier(Name);
  return M;
}

// The metadata an adapter would read from an image with these property sets.
inline ImageMetadata decode(const std::vector<BundlePropertySet> &Sets) {
  Bundle Holder;
  Holder.Images.resize(1);
  Holder.Images[0].Target = "spir64";
  Holder.Images[0].PropertySets = Sets;
  DeviceBinaries View(Holder);
  ImageMetadata Metadata;
  EXPECT_EQ(readImageMetadata(View.image(0), Metadata), PI_SUCCESS) << lastErrorMessage();
  return Metadata;
}

inline std::string errorText(llvm::Error E) { return llvm::toString(std::move(E)); }

} // namespace dglink::shim::test
