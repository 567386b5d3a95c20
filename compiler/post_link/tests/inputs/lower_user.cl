// Uses lower_counter.cl's device global and exported function from another image: the
// link of the two lowered images shares one storage.
extern global int lw_counter;
int lw_bump(int By);

kernel void lw_add_twice(global int *Out, int By) {
  lw_bump(By);
  Out[0] = lw_bump(By);
  Out[1] = lw_counter;
}
