// No device globals: its plain image links with a lowered one, and its kernel must not
// be given the storage argument.
kernel void lw_plain_fill(global int *Out, int Value) { Out[get_global_id(0)] = Value + 1; }
