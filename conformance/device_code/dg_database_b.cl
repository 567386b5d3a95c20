// The second module of the device-global database scenarios (see dg_database_a.cl):
// db_shared again (the same value on a device as in dg_database_a's program) and
// db_twice again (device_image_scope: another instance, so a copy by host address
// cannot tell which one is meant).
#include "device.h"

#include <dglink/device_global.h>

DGLINK_SHARED_DEVICE_GLOBAL(int, db_shared, "db_shared_uid");
DGLINK_IMAGE_SCOPE_DEVICE_GLOBAL(int, db_twice, "db_twice_uid");

kernel void db_b_read(global int *Out) {
  Out[0] = DGLINK_SHARED(db_shared);
  Out[1] = DGLINK_IMAGE_SCOPE(db_twice);
}

kernel void db_b_set(int V) { DGLINK_SHARED(db_shared) = V; }
