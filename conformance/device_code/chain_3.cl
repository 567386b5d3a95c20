// Image 3 of the chain of four: appends the last digit, 0xA.
int chain_3(int X) { return (X << 4) | 0xA; }
