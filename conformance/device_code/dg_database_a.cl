// Device code of the runtime's device-global database scenarios (runtime/tests/
// device_global_db_test.cpp), in the layout of the device-global design
// (dglink/device_global.h): db_shared and db_table have no device_image_scope, so each
// program holds only a pointer (usmptr) to the one value per device; db_scoped and
// db_twice are device_image_scope, so each program holds the value. dg_database_b.cl
// has db_shared and db_twice too (another module): db_twice is then in two programs.
#include "device.h"

#include <dglink/device_global.h>

DGLINK_SHARED_DEVICE_GLOBAL(int, db_shared, "db_shared_uid");
DGLINK_SHARED_DEVICE_GLOBAL_ARRAY(int, 16, db_table, "db_table_uid");
DGLINK_IMAGE_SCOPE_DEVICE_GLOBAL(int, db_scoped, "db_scoped_uid");
DGLINK_IMAGE_SCOPE_DEVICE_GLOBAL(int, db_twice, "db_twice_uid");
// 64 KiB of each kind, for the runtime's device-global benchmark.
DGLINK_SHARED_DEVICE_GLOBAL_ARRAY(int, 16384, db_big_shared, "db_big_shared_uid");
DGLINK_IMAGE_SCOPE_DEVICE_GLOBAL_ARRAY(int, 16384, db_big_scoped, "db_big_scoped_uid");

// Out: db_shared, db_scoped, db_twice, then the 16 elements of db_table.
kernel void db_a_read(global int *Out) {
  Out[0] = DGLINK_SHARED(db_shared);
  Out[1] = DGLINK_IMAGE_SCOPE(db_scoped);
  Out[2] = DGLINK_IMAGE_SCOPE(db_twice);
  for (int I = 0; I < 16; ++I)
    Out[3 + I] = DGLINK_SHARED_ELEMENT(db_table, I);
}

// Out: the last element of each 64 KiB variable.
kernel void db_a_read_big(global int *Out) {
  Out[0] = DGLINK_SHARED_ELEMENT(db_big_shared, 16383);
  Out[1] = DGLINK_IMAGE_SCOPE(db_big_scoped)[16383];
}

// One work-item: adds V to db_shared and to db_scoped, and I * V to db_table[I].
kernel void db_a_add(int V) {
  DGLINK_SHARED(db_shared) += V;
  DGLINK_IMAGE_SCOPE(db_scoped) += V;
  for (int I = 0; I < 16; ++I)
    DGLINK_SHARED_ELEMENT(db_table, I) += I * V;
}
