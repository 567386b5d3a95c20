// Stands in for UR's test/conformance/device_code/usm_ll.cpp: `single_task<class
// linkedlist>` walks a linked list of USM nodes ({Node *next; uint32_t num}) from the
// head pointer (the one capture) and sets each num to num * 2 + 1.
#include "ur_cts.h"

typedef struct Node {
  global struct Node *next;
  uint num;
} Node;

kernel void UR_CTS_CGH_KERNEL(10linkedlist)(global Node *head) {
  for (global Node *node = head; node; node = node->next)
    node->num = node->num * 2 + 1;
}
