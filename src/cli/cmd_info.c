/* SPDX-License-Identifier: MIT */
/* src/cli/cmd_info.c: gcoo_dist info (not written yet). */
#include "cli.h"

static cli_option options[] = {{NULL}};

static int run(int argc, char **argv, cli_command *cmd) {
  (void)argc;
  (void)argv;
  cli_out("gcoo_dist %s: not implemented yet\n", cmd->name);
  return 3;
}

cli_command cmd_info = {"info", "shape, nnz, format and group statistics of a matrix file", NULL, NULL, options, run};
