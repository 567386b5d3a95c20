// Global offsets in the shim's nvptx64 images: ids reads the offset through the marker
// (DPC++'s "<kernel>_with_offset" entry point follows), plain does not.
size_t __dglink_global_offset(uint d);

#ifdef __NVPTX__
static size_t offset_of(uint d) { return __dglink_global_offset(d); }
static size_t local_id(void) { return (size_t)__nvvm_read_ptx_sreg_tid_x(); }
#else
static size_t offset_of(uint d) { return get_global_offset(d); }
static size_t local_id(void) { return get_local_id(0); }
#endif

kernel void ids(global int *Out) {
  const size_t Id = local_id() + offset_of(0);
  Out[Id - offset_of(0)] = (int)Id;
}

kernel void plain(global int *Out) { Out[local_id()] = 1; }
