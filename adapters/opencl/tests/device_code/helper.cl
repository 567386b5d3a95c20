// Defines helper() for caller.cl: the exporting side of a link.
int helper(int X) { return 3 * X + 1; }
