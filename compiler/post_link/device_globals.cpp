// Device globals in LLVM IR: the plain-clang annotation turned into the DPC++
// attributes, and the attributes read back with their size checked against the type.
#include "post_link_internal.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/Analysis/ValueTracking.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DataLayout.h>
#include <llvm/IR/GlobalVariable.h>

namespace dglink::shim {

using llvm::StringRef;

namespace {

std::optional<HostAccess> parseHostAccess(StringRef Text) {
  if (Text == "read" || Text == "0")
    return HostAccess::Read;
  if (Text == "write" || Text == "1")
    return HostAccess::Write;
  if (Text == "read_write" || Text == "2")
    return HostAccess::ReadWrite;
  if (Text == "none" || Text == "3")
    return HostAccess::None;
  return std::nullopt;
}

// The annotation's one argument (clang's annotate("...", arg)), where it has one:
// DGLINK_SHARED_DEVICE_GLOBAL passes sizeof(Type), the size of the value its usmptr
// points at. Entry: { variable, text, file, line, arguments }.
llvm::Expected<std::optional<uint64_t>> annotationValueSize(const llvm::ConstantStruct &Entry,
                                                            const llvm::GlobalVariable &Variable) {
  if (Entry.getNumOperands() < 5 || Entry.getOperand(4)->isNullValue())
    return std::nullopt;
  const auto *Arguments =
      llvm::dyn_cast<llvm::GlobalVariable>(Entry.getOperand(4)->stripPointerCasts());
  const auto *Values = Arguments != nullptr && Arguments->hasInitializer()
                           ? llvm::dyn_cast<llvm::ConstantStruct>(Arguments->getInitializer())
                           : nullptr;
  const auto *Size = Values != nullptr && Values->getNumOperands() == 1
                         ? llvm::dyn_cast<llvm::ConstantInt>(Values->getOperand(0))
                         : nullptr;
  if (Size == nullptr || Size->isZero() || Size->getZExtValue() > 0xFFFFFFFFull)
    return makeError("variable '{}': a device global annotation takes one argument, the size of "
                     "the value (1 to 2^32-1 bytes)",
                     Variable.getName().str());
  return Size->getZExtValue();
}

// "<unique id>:<0|1>:<host access>"; the unique id may itself contain ':'. ValueSize: the
// size of the value a usmptr variable points at (DPC++'s sycl-device-global-size is
// sizeof(T), not the device instance's 8 bytes).
llvm::Error applyAnnotation(llvm::GlobalVariable &Variable, StringRef Text,
                            std::optional<uint64_t> ValueSize) {
  const StringRef Body = Text.drop_front(StringRef(DeviceGlobalAnnotation).size());
  auto [Rest, Access] = Body.rsplit(':');
  auto [UniqueId, Scope] = Rest.rsplit(':');
  const std::optional<HostAccess> ParsedAccess = parseHostAccess(Access);
  if (UniqueId.empty() || (Scope != "0" && Scope != "1") || !ParsedAccess)
    return makeError("variable '{}': annotation '{}' is not '{}<unique id>:<0|1>:<read|write|"
                     "read_write|none>'",
                     Variable.getName().str(), Text.str(), DeviceGlobalAnnotation);
  if (Variable.isDeclaration())
    return makeError("variable '{}': a device global annotation needs the definition",
                     Variable.getName().str());
  const llvm::DataLayout &Layout = Variable.getParent()->getDataLayout();
  const uint64_t TypeSize = Layout.getTypeAllocSize(Variable.getValueType());
  if (ValueSize && (Scope != "0" || !holdsOnePointer(Variable)))
    return makeError("variable '{}': a value size ({} bytes) belongs to a device global without "
                     "device_image_scope whose instance is one pointer (usmptr, "
                     "DGLINK_SHARED_DEVICE_GLOBAL)",
                     Variable.getName().str(), *ValueSize);
  Variable.addAttribute(SizeAttribute, llvm::utostr(ValueSize ? *ValueSize : TypeSize));
  Variable.addAttribute(UniqueIdAttribute, UniqueId);
  if (Scope == "1")
    Variable.addAttribute(ImageScopeAttribute);
  Variable.addAttribute(HostAccessAttribute, llvm::utostr(static_cast<uint32_t>(*ParsedAccess)));
  return llvm::Error::success();
}

} // namespace

llvm::Error normalizeDeviceGlobalAnnotations(llvm::Module &M) {
  llvm::GlobalVariable *Annotations = M.getNamedGlobal("llvm.global.annotations");
  if (Annotations == nullptr || !Annotations->hasInitializer())
    return llvm::Error::success();
  auto *Array = llvm::dyn_cast<llvm::ConstantArray>(Annotations->getInitializer());
  if (Array == nullptr)
    return llvm::Error::success();
  std::vector<llvm::Constant *> Kept;
  for (llvm::Use &Operand : Array->operands()) {
    auto *Entry = llvm::dyn_cast<llvm::ConstantStruct>(Operand.get());
    StringRef Text;
    llvm::GlobalVariable *Variable = nullptr;
    if (Entry != nullptr && Entry->getNumOperands() >= 2) {
      Variable = llvm::dyn_cast<llvm::GlobalVariable>(Entry->getOperand(0)->stripPointerCasts());
      if (!llvm::getConstantStringInfo(Entry->getOperand(1), Text))
        Text = StringRef();
    }
    if (Variable == nullptr || !Text.startswith(DeviceGlobalAnnotation)) {
      Kept.push_back(llvm::cast<llvm::Constant>(Operand.get()));
      continue;
    }
    llvm::Expected<std::optional<uint64_t>> ValueSize = annotationValueSize(*Entry, *Variable);
    if (!ValueSize)
      return ValueSize.takeError();
    if (llvm::Error Failure = applyAnnotation(*Variable, Text, *ValueSize))
      return Failure;
  }
  if (Kept.size() == Array->getNumOperands())
    return llvm::Error::success();
  // The entries go: they would keep every device global alive in every split image,
  // and the SPIR-V translator would turn them into UserSemantic decorations.
  keepAnnotations(M, Annotations, Kept);
  return llvm::Error::success();
}

void keepAnnotations(llvm::Module &M, llvm::GlobalVariable *Annotations,
                     const std::vector<llvm::Constant *> &Kept) {
  auto *Array = llvm::cast<llvm::ConstantArray>(Annotations->getInitializer());
  const std::string Name = Annotations->getName().str();
  const std::string Section = Annotations->getSection().str();
  llvm::Type *Element = Array->getType()->getElementType();
  Annotations->eraseFromParent();
  if (!Kept.empty()) {
    auto *Type = llvm::ArrayType::get(Element, Kept.size());
    auto *Replacement =
        new llvm::GlobalVariable(M, Type, false, llvm::GlobalValue::AppendingLinkage,
                                 llvm::ConstantArray::get(Type, Kept), Name);
    Replacement->setSection(Section);
  }
  for (auto It = M.global_begin(); It != M.global_end();) {
    llvm::GlobalVariable &Global = *It++;
    Global.removeDeadConstantUsers();
    if (Global.getSection() == "llvm.metadata" && Global.hasPrivateLinkage() && Global.use_empty())
      Global.eraseFromParent();
  }
}

bool isDeviceGlobal(const llvm::GlobalVariable &Variable) {
  return Variable.hasAttribute(SizeAttribute);
}

bool holdsOnePointer(const llvm::GlobalVariable &Variable) {
  const llvm::DataLayout &Layout = Variable.getParent()->getDataLayout();
  llvm::Type *Type = Variable.getValueType();
  while (auto *Struct = llvm::dyn_cast<llvm::StructType>(Type)) {
    if (Struct->getNumElements() != 1)
      return false;
    Type = Struct->getElementType(0);
  }
  return Type->isPointerTy() &&
         Layout.getTypeAllocSize(Variable.getValueType()) == Layout.getTypeAllocSize(Type);
}

llvm::Expected<DeviceGlobal> readDeviceGlobal(const llvm::GlobalVariable &Variable) {
  DeviceGlobal Result;
  Result.Symbol = Variable.getName().str();
  const StringRef SizeText = Variable.getAttribute(SizeAttribute).getValueAsString();
  uint64_t Size = 0;
  if (SizeText.getAsInteger(10, Size) || Size > 0xFFFFFFFFull)
    return makeError("device global '{}': {} '{}' is not a size in bytes", Result.Symbol,
                     SizeAttribute, SizeText.str());
  Result.Info.UniqueId = Result.Symbol;
  if (Variable.hasAttribute(UniqueIdAttribute))
    Result.Info.UniqueId = Variable.getAttribute(UniqueIdAttribute).getValueAsString().str();
  if (Result.Info.UniqueId.empty())
    return makeError("device global '{}': empty {}", Result.Symbol, UniqueIdAttribute);
  if (Variable.hasAttribute(ImageScopeAttribute)) {
    const StringRef Scope = Variable.getAttribute(ImageScopeAttribute).getValueAsString();
    Result.Info.DeviceImageScope = Scope != "false" && Scope != "0";
  }
  const llvm::DataLayout &Layout = Variable.getParent()->getDataLayout();
  const uint64_t TypeSize = Layout.getTypeAllocSize(Variable.getValueType());
  Result.InstanceSize = TypeSize;
  // Without device_image_scope DPC++'s instance is a pointer to the value (usmptr) and
  // sycl-device-global-size is the value's size, sizeof(T).
  const bool Usmptr = !Result.Info.DeviceImageScope && holdsOnePointer(Variable);
  if (TypeSize != Size && !Usmptr) {
    std::string TypeName;
    llvm::raw_string_ostream Stream(TypeName);
    Variable.getValueType()->print(Stream);
    return makeError("device global '{}' (unique id '{}'): {} says {} bytes but its type {} "
                     "has {}",
                     Result.Symbol, Result.Info.UniqueId, SizeAttribute, Size, Stream.str(),
                     TypeSize);
  }
  Result.Info.Size = static_cast<uint32_t>(Size);
  if (Variable.hasAttribute(HostAccessAttribute)) {
    const StringRef Access = Variable.getAttribute(HostAccessAttribute).getValueAsString();
    const std::optional<HostAccess> Parsed = parseHostAccess(Access);
    if (!Parsed)
      return makeError("device global '{}': {} '{}' is not 0-3 or read, write, read_write, none",
                       Result.Symbol, HostAccessAttribute, Access.str());
    Result.Info.Access = *Parsed;
  }
  return Result;
}

llvm::Expected<std::vector<DeviceGlobal>> findDeviceGlobals(const llvm::Module &M) {
  std::vector<DeviceGlobal> Result;
  for (const llvm::GlobalVariable &Variable : M.globals()) {
    if (!isDeviceGlobal(Variable) || Variable.isDeclaration())
      continue;
    llvm::Expected<DeviceGlobal> Global = readDeviceGlobal(Variable);
    if (!Global)
      return Global.takeError();
    Result.push_back(std::move(*Global));
  }
  return Result;
}

void addHostAccessDecorations(llvm::Module &M, const std::vector<DeviceGlobal> &Globals) {
  llvm::LLVMContext &Context = M.getContext();
  auto *Int32 = llvm::Type::getInt32Ty(Context);
  for (const DeviceGlobal &Global : Globals) {
    llvm::GlobalVariable *Variable = M.getNamedGlobal(Global.Symbol);
    if (Variable == nullptr)
      continue;
    llvm::Metadata *Decoration[] = {
        llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(Int32, HostAccessIntelDecoration)),
        llvm::ConstantAsMetadata::get(
            llvm::ConstantInt::get(Int32, static_cast<uint32_t>(Global.Info.Access))),
        llvm::MDString::get(Context, Global.Info.UniqueId)};
    std::vector<llvm::Metadata *> Decorations;
    if (llvm::MDNode *Existing = Variable->getMetadata("spirv.Decorations"))
      Decorations.assign(Existing->op_begin(), Existing->op_end());
    Decorations.push_back(llvm::MDNode::get(Context, Decoration));
    Variable->setMetadata("spirv.Decorations", llvm::MDNode::get(Context, Decorations));
  }
}

} // namespace dglink::shim
