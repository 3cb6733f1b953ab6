/* SPDX-License-Identifier: MIT */
/* src/cli/cmd_convert.c: gcoo_dist convert (not written yet). */
#include "cli.h"

static cli_option options[] = {{NULL}};

static int run(int argc, char **argv, cli_command *cmd) {
  (void)argc;
  (void)argv;
  cli_out("gcoo_dist %s: not implemented yet\n", cmd->name);
  return 3;
}

cli_command cmd_convert = {"convert", "convert between .mtx/.mtx.gz and .h5 layouts", NULL, NULL, options, run};
