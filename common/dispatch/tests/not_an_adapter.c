/* A test-only shared library named like an adapter but without piPluginInit: the
 * dispatch layer must skip it. */
__attribute__((visibility("default"))) int dglinkTestNotAnAdapter(void) { return 42; }
