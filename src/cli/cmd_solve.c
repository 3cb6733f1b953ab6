/* SPDX-License-Identifier: MIT */
/* src/cli/cmd_solve.c: gcoo_dist solve (not written yet). */
#include "cli.h"

static cli_option options[] = {{NULL}};

static int run(int argc, char **argv, cli_command *cmd) {
  (void)argc;
  (void)argv;
  cli_out("gcoo_dist %s: not implemented yet\n", cmd->name);
  return 3;
}

cli_command cmd_solve = {"solve", "block conjugate gradients on the distributed GCOO operator", NULL, NULL, options, run};
