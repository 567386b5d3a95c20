// Calls helper(), which another image defines: the importing side of a link.
int helper(int X);

kernel void callHelper(global int *Out) {
  int I = (int)get_global_id(0);
  Out[I] = helper(I);
}
