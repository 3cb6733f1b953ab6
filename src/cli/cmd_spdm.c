/* SPDX-License-Identifier: MIT */
/* src/cli/cmd_spdm.c: gcoo_dist spdm (not written yet). */
#include "cli.h"

static cli_option options[] = {{NULL}};

static int run(int argc, char **argv, cli_command *cmd) {
  (void)argc;
  (void)argv;
  cli_out("gcoo_dist %s: not implemented yet\n", cmd->name);
  return 3;
}

cli_command cmd_spdm = {"spdm", "Y = A X, sparse A times dense X, distributed (GCOO kernel)", NULL, NULL, options, run};

int cli_default_job(void) {
  cli_out("%s\n(the embedded default job is not written yet)\n", gcoo_version_string());
  return 3;
}
