// A kernel with a local-memory argument, for the shim's --local-args-as-offsets test.
kernel void local_sum(global const int *In, local int *Scratch, global int *Out) {
  const size_t Id = get_local_id(0);
  Scratch[Id] = In[get_global_id(0)];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (Id == 0)
    Out[get_group_id(0)] = Scratch[0] + Scratch[get_local_size(0) - 1];
}
