// The unit tests' module with program-scope variables (OpenCL C 2.0), as a DPC++ image
// holds device globals: an initialized int, a zeroed array, a pointer (a usmptr), and
// a constant table, which is not a device global and stays where it is.
global int counter = 5;
global int table[4];
global struct {
  global int *usmptr;
} shared;
constant int Weights[2] = {3, 4};

kernel void bump(global int *Out) {
  counter += Weights[0];
  table[get_global_id(0) % 4] += Weights[1];
  *shared.usmptr += 1;
  Out[0] = counter + table[0];
}
