// The unit tests' module with specialization constants, made as DPC++ makes them: calls
// to __spirv_SpecConstant, which llvm-spirv turns into OpSpecConstant* with a SpecId.
int __attribute__((overloadable)) __spirv_SpecConstant(int Id, int Default);
long __attribute__((overloadable)) __spirv_SpecConstant(int Id, long Default);
bool __attribute__((overloadable)) __spirv_SpecConstant(int Id, bool Default);
short __attribute__((overloadable)) __spirv_SpecConstant(int Id, short Default);

kernel void spec(global long *Out) {
  Out[0] = __spirv_SpecConstant(0, 1000);
  Out[1] = __spirv_SpecConstant(1, (long)-5);
  Out[2] = __spirv_SpecConstant(2, false) ? 1 : 0;
  Out[3] = __spirv_SpecConstant(3, (short)7);
}
