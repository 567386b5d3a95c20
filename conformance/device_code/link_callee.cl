// Image B of the two-image link: exports link_callee for image A.
int link_callee(int X) { return X * 7 + 5; }
