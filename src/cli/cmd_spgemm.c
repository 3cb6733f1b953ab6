/* SPDX-License-Identifier: MIT */
/* src/cli/cmd_spgemm.c: gcoo_dist spgemm (not written yet). */
#include "cli.h"

static cli_option options[] = {{NULL}};

static int run(int argc, char **argv, cli_command *cmd) {
  (void)argc;
  (void)argv;
  cli_out("gcoo_dist %s: not implemented yet\n", cmd->name);
  return 3;
}

cli_command cmd_spgemm = {"spgemm", "C = A B, sparse times sparse, output preallocated from the prediction", NULL, NULL, options, run};
