/* SPDX-License-Identifier: MIT */
/* src/cli/cmd_gen.c: gcoo_dist gen (not written yet). */
#include "cli.h"

static cli_option options[] = {{NULL}};

static int run(int argc, char **argv, cli_command *cmd) {
  (void)argc;
  (void)argv;
  cli_out("gcoo_dist %s: not implemented yet\n", cmd->name);
  return 3;
}

cli_command cmd_gen = {"gen", "generate a random sparse matrix like the paper's (parallel write)", NULL, NULL, options, run};
