// Writes Base + i to element i: the smallest kernel whose result can be checked.
kernel void fill(global int *Out, int Base) {
  size_t I = get_global_id(0);
  Out[I] = Base + (int)I;
}
