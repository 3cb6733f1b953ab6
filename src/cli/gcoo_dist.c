/* SPDX-License-Identifier: MIT */
/* src/cli/gcoo_dist.c: the gcoo_dist command (being written: see issue 4). */
#include <stdio.h>

#include "gcoo/gcoo.h"

int main(void) {
  printf("%s\n", gcoo_version_string());
  return 0;
}
