// End-to-end device code: the exported function shim_caller.cl imports.
int shim_callee(int Value) { return Value * Value + 7; }
