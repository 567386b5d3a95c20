/* The PI C API from C, built with `pkg-config --cflags --libs dglink` (and the runtime's
 * .pc file checked beside it) by scripts/check-install.sh: counts the platforms the
 * dispatch layer finds beside itself; exit status 0 when there is one at least. */
#include <dglink/dispatch.h>
#include <dglink/pi.h>
#include <dglink/version.h>

#include <stdio.h>

int main(void) {
  pi_uint32 Platforms = 0;
  if (piPlatformsGet(0, NULL, &Platforms) != PI_SUCCESS) {
    fprintf(stderr, "pkg-config consumer: piPlatformsGet failed\n");
    return 1;
  }
  printf("dglink %s (C, pkg-config): %u adapters considered, %u platforms\n", DGLINK_VERSION_STRING,
         dglinkDispatchAdapterCount(), Platforms);
  return Platforms > 0 ? 0 : 1;
}
