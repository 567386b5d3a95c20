// Image 2 of the chain of four: appends 0xB and calls into image 3.
int chain_3(int X);

int chain_2(int X) { return chain_3((X << 4) | 0xB); }
