// libdglink_device_code_llvm.so: SPIR-V read back into LLVM IR by LLVMSPIRVLib and
// written as the SPIR 1.2 bitcode a cl_khr_spir driver builds with "-x spir" (PoCL 3.1
// with clang-15's spir64 conventions: spir_kernel / spir_func calling conventions,
// OpenCL 1.2 builtin names mangled as clang mangles them, kernel_arg_* metadata on each
// kernel, opencl.spir.version and opencl.ocl.version), or as PTX for NVIDIA's OpenCL
// (to_ptx.h). Asked to, it first lowers the module's device globals into adapter-owned
// storage with the shim's own lowering (compiler/post_link/lower_opencl.cpp), and may
// write the result back as SPIR-V.
#include "to_ptx.h"
#include "translator.h"

#include <dglink/compiler/post_link.h>

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
#include <llvm/Transforms/Utils/Cloning.h>

#include <cstring>
#include <istream>
#include <memory>
#include <sstream>
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

// OpenCL's global address space on spir64.
constexpr unsigned GlobalAddressSpace = 1;

// The shim's attribute that makes a variable a device global (DPC++'s convention).
constexpr const char *DeviceGlobalSizeAttribute = "sycl-device-global-size";

// What the lowering did, for the answer (translator.h).
struct Lowering {
  uint64_t StorageSize = 0;
  std::vector<dglink::shim::LoweredGlobal> Globals;
  std::string NotLowered; // why nothing was lowered although there was something to lower
};

// Every mutable program-scope variable of the global address space is a device global
// of a module that carries no dglink metadata (a DPC++ image keeps a device global's
// value, or its USM pointer, in exactly such a variable; the unique id is the
// HostAccessINTEL name, which the reader drops and the front restores by symbol). The
// lowering then moves them all; a module that has none is left as it is.
bool markDeviceGlobals(llvm::Module &M) {
  const llvm::DataLayout &Layout = M.getDataLayout();
  bool Any = false;
  for (llvm::GlobalVariable &Variable : M.globals()) {
    if (Variable.isDeclaration() || Variable.isConstant() ||
        Variable.getAddressSpace() != GlobalAddressSpace || Variable.getName().startswith("llvm."))
      continue;
    Any = true;
    if (!Variable.hasAttribute(DeviceGlobalSizeAttribute))
      Variable.addAttribute(DeviceGlobalSizeAttribute,
                            std::to_string(Layout.getTypeAllocSize(Variable.getValueType())));
  }
  return Any;
}

// Lowers M's device globals; on a refusal M is the module as read (the reason in
// Result.NotLowered), never half lowered.
void lowerDeviceGlobals(std::unique_ptr<llvm::Module> &M, Lowering &Result) {
  if (!markDeviceGlobals(*M))
    return;
  std::vector<dglink::shim::SplitImage> Images(1);
  Images[0].Name = "the module";
  Images[0].Module = llvm::CloneModule(*M);
  llvm::Expected<dglink::shim::StorageLayout> Layout = dglink::shim::computeStorageLayout(Images);
  if (!Layout) {
    Result.NotLowered = llvm::toString(Layout.takeError());
    return;
  }
  const std::vector<dglink::shim::LoweringInput> Inputs = {
      {Images[0].Name, Images[0].Module.get()}};
  if (llvm::Error Failure = dglink::shim::lowerDeviceGlobals(Inputs, *Layout)) {
    Result.NotLowered = llvm::toString(std::move(Failure));
    return;
  }
  M = std::move(Images[0].Module);
  Result.StorageSize = Layout->Size;
  Result.Globals = std::move(Layout->Globals);
}

void appendBytes(std::vector<uint8_t> &Out, const void *Data, size_t Size) {
  const auto *Bytes = static_cast<const uint8_t *>(Data);
  Out.insert(Out.end(), Bytes, Bytes + Size);
}
template <typename Integer> void appendInteger(std::vector<uint8_t> &Out, Integer Value) {
  for (size_t I = 0; I < sizeof(Integer); ++I)
    Out.push_back(static_cast<uint8_t>(static_cast<uint64_t>(Value) >> (8 * I)));
}
void appendSized(std::vector<uint8_t> &Out, const void *Data, size_t Size) {
  appendInteger<uint32_t>(Out, static_cast<uint32_t>(Size));
  appendBytes(Out, Data, Size);
}

// The lowered answer (translator.h) around Code.
std::vector<uint8_t> loweredAnswer(const std::vector<uint8_t> &Code, const Lowering &Done) {
  std::vector<uint8_t> Out;
  appendBytes(Out, LoweredAnswerMagic, sizeof(LoweredAnswerMagic));
  appendInteger<uint64_t>(Out, Code.size());
  appendBytes(Out, Code.data(), Code.size());
  appendInteger<uint64_t>(Out, Done.StorageSize);
  appendSized(Out, Done.NotLowered.data(), Done.NotLowered.size());
  appendInteger<uint32_t>(Out, static_cast<uint32_t>(Done.Globals.size()));
  for (const dglink::shim::LoweredGlobal &Global : Done.Globals) {
    appendSized(Out, Global.Symbol.data(), Global.Symbol.size());
    appendInteger<uint64_t>(Out, Global.Offset);
    appendInteger<uint64_t>(Out, Global.Size);
    appendSized(Out, Global.Initializer.data(), Global.Initializer.size());
  }
  return Out;
}

bool verified(llvm::Module &M, std::string &Error) {
  std::string Broken;
  llvm::raw_string_ostream BrokenStream(Broken);
  if (!llvm::verifyModule(M, &BrokenStream))
    return true;
  BrokenStream.flush();
  Error = "the translator's LLVM IR does not verify: " + Broken.substr(0, 500);
  return false;
}

bool translate(const uint8_t *Data, size_t Size, int Request, std::vector<uint8_t> &Out,
               std::string &Error) {
  const bool Lower = (Request & LowerDeviceGlobalsFlag) != 0;
  const int To = Request & ~LowerDeviceGlobalsFlag;
  // SPIR-V into SPIR-V is asked for only to lower the module's device globals.
  if (To != static_cast<int>(DeviceCode::Spir) && To != static_cast<int>(DeviceCode::Ptx) &&
      !(Lower && To == static_cast<int>(DeviceCode::SpirV))) {
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
  Lowering Done;
  if (Lower)
    lowerDeviceGlobals(M, Done);
  std::vector<uint8_t> Code;
  if (To == static_cast<int>(DeviceCode::SpirV)) {
    if (Done.Globals.empty()) {
      Code.assign(Data, Data + Size); // nothing lowered: the module as it came
    } else {
      if (!verified(*M, Error))
        return false;
      std::ostringstream Written;
      std::string WriteError;
      if (!llvm::writeSpirv(M.get(), Options, Written, WriteError)) {
        Error = "the lowered module cannot be written as SPIR-V: " + WriteError;
        return false;
      }
      const std::string Bytes = Written.str();
      Code.assign(Bytes.begin(), Bytes.end());
    }
  } else if (To == static_cast<int>(DeviceCode::Ptx)) {
    if (!verified(*M, Error) || !writePtx(*M, Code, Error))
      return false;
  } else {
    if (!fixForSpir(*M, Error) || !verified(*M, Error))
      return false;
    llvm::SmallVector<char, 0> Bitcode;
    llvm::raw_svector_ostream BitcodeStream(Bitcode);
    llvm::WriteBitcodeToFile(*M, BitcodeStream);
    Code.assign(Bitcode.begin(), Bitcode.end());
  }
  Out = Lower ? loweredAnswer(Code, Done) : std::move(Code);
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
