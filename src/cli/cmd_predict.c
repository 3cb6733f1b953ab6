/* SPDX-License-Identifier: MIT */
/* src/cli/cmd_predict.c: gcoo_dist predict (not written yet). */
#include "cli.h"

static cli_option options[] = {{NULL}};

static int run(int argc, char **argv, cli_command *cmd) {
  (void)argc;
  (void)argv;
  cli_out("gcoo_dist %s: not implemented yet\n", cmd->name);
  return 3;
}

cli_command cmd_predict = {"predict", "predict the output size of A*B (sampled compression ratio)", NULL, NULL, options, run};
