// libdglink_device_code_llvm.so: SPIR-V read back into LLVM IR by LLVMSPIRVLib and
// written as the SPIR 1.2 bitcode a cl_khr_spir driver builds with "-x spir" (PoCL 3.1
// with clang-15's spir64 conventions: spir_kernel / spir_func calling conventions,
// OpenCL 1.2 builtin names mangled as clang mangles them, kernel_arg_* metadata on each
// kernel, opencl.spir.version and opencl.ocl.version).
#include "translator.h"

#include <dglink/support/device_code.h>

#include <LLVMSPIRVLib/LLVMSPIRVLib.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Type.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <istream>
#include <memory>
#include <streambuf>

namespace dglink::device_code {
namespace {

// The caller's bytes as an input stream, without a copy; the translator seeks in it.
class ByteBuffer : public std::streambuf {
public:
  ByteBuffer(const uint8_t *Data, size_t Size) {
    char *Begin = const_cast<char *>(reinterpret_cast<const char *>(Data));
    setg(Begin, Begin, Begin + Size);
  }

protected:
  pos_type seekoff(off_type Offset, std::ios_base::seekdir Direction,
                   std::ios_base::openmode Which) override {
    if ((Which & std::ios_base::in) == 0)
      return pos_type(off_type(-1));
    char *From = Direction == std::ios_base::beg   ? eback()
                 : Direction == std::ios_base::cur ? gptr()
                                                   : egptr();
    if (Offset < eback() - From || Offset > egptr() - From)
      return pos_type(off_type(-1));
    setg(eback(), From + Offset, egptr());
    return pos_type(gptr() - eback());
  }
  pos_type seekpos(pos_type Position, std::ios_base::openmode Which) override {
    return seekoff(off_type(Position), std::ios_base::beg, Which);
  }
};

// Sets !Name = !{!{i32 Major, i32 Minor}}, replacing what the translator wrote.
void setVersion(llvm::Module &M, const char *Name, unsigned Major, unsigned Minor) {
  if (llvm::NamedMDNode *Old = M.getNamedMetadata(Name))
    M.eraseNamedMetadata(Old);
  llvm::LLVMContext &Context = M.getContext();
  llvm::Type *Int32 = llvm::Type::getInt32Ty(Context);
  llvm::Metadata *Pair[] = {llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(Int32, Major)),
                            llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(Int32, Minor))};
  M.getOrInsertNamedMetadata(Name)->addOperand(llvm::MDNode::get(Context, Pair));
}

// What a SPIR 1.2 consumer reads: the spir64 triple, SPIR version 1.2 (the OpenCL C
// version stays the module's: a 2.0 module's program-scope variables need it).
bool fixForSpir(llvm::Module &M, std::string &Error) {
  const llvm::StringRef Triple = M.getTargetTriple();
  if (!Triple.startswith("spir64")) {
    Error = "it is not a 64-bit module (addressing model gives target '" + Triple.str() +
            "'), and SPIR for 64-bit devices is spir64";
    return false;
  }
  M.setTargetTriple("spir64-unknown-unknown");
  setVersion(M, "opencl.spir.version", 1, 2);
  return true;
}

bool translate(const uint8_t *Data, size_t Size, int To, std::vector<uint8_t> &Out,
               std::string &Error) {
  if (To != static_cast<int>(DeviceCode::Spir)) {
    Error = "no translation into this kind of device code";
    return false;
  }
  llvm::LLVMContext Context;
  // LLVMSPIRVLib 15 reads into typed pointers (as llvm-spirv-15 sets up its context);
  // with LLVM 15's default opaque pointers it stops on the first pointer it looks into.
  Context.setOpaquePointers(false);
  ByteBuffer Buffer(Data, Size);
  std::istream Stream(&Buffer);
  SPIRV::TranslatorOpts Options;
  // Whatever extension the module declares is read; what the translator cannot express
  // in LLVM IR it refuses itself.
  Options.enableAllExtensions();
  Options.setDesiredBIsRepresentation(SPIRV::BIsRepresentation::OpenCL12);
  llvm::Module *Read = nullptr;
  std::string Message;
  const bool Ok = llvm::readSpirv(Context, Options, Stream, Read, Message);
  std::unique_ptr<llvm::Module> M(Read);
  if (!Ok || M == nullptr) {
    Error = Message.empty() ? "the SPIR-V translator refused it without a reason" : Message;
    return false;
  }
  if (!fixForSpir(*M, Error))
    return false;
  std::string Broken;
  llvm::raw_string_ostream BrokenStream(Broken);
  if (llvm::verifyModule(*M, &BrokenStream)) {
    BrokenStream.flush();
    Error = "the translator's LLVM IR does not verify: " + Broken.substr(0, 500);
    return false;
  }
  llvm::SmallVector<char, 0> Bitcode;
  llvm::raw_svector_ostream BitcodeStream(Bitcode);
  llvm::WriteBitcodeToFile(*M, BitcodeStream);
  Out.assign(Bitcode.begin(), Bitcode.end());
  return true;
}

} // namespace
} // namespace dglink::device_code

extern "C" __attribute__((visibility("default"))) bool
dglinkTranslateSpirv(const uint8_t *Data, size_t Size, int To, std::vector<uint8_t> *Out,
                     std::string *Error) {
  try {
    return dglink::device_code::translate(Data, Size, To, *Out, *Error);
  } catch (const std::exception &Exception) {
    *Error = Exception.what();
  } catch (...) {
    *Error = "unknown exception in the SPIR-V translator";
  }
  return false;
}
