// Image 1 of the chain of four: appends 0xC and calls into image 2.
int chain_2(int X);

int chain_1(int X) { return chain_2((X << 4) | 0xC); }
