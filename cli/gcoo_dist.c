/* SPDX-License-Identifier: MIT */
/* cli/gcoo_dist.c: `gcoo_dist <command> [options]`, one MPI rank per GPU.
 * With no arguments it runs the main job on its embedded default (see cli_default_job). */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static cli_command *commands[] = {&cmd_spdm, &cmd_spgemm,  &cmd_predict, &cmd_solve,
                                  &cmd_gen,  &cmd_convert, &cmd_info};

static void usage(FILE *f) {
  fprintf(f, "usage: gcoo_dist <command> [options]     (mpirun -np R gcoo_dist ...: one rank per "
             "GPU)\n"
             "       gcoo_dist                         run the main job on its embedded default\n"
             "       gcoo_dist --version | -V | --help     (also after a command)\n\ncommands:\n");
  for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
    fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
  fprintf(f, "\n'gcoo_dist <command> --help' describes a command.\n"
             "Environment: GCOO_BACKEND=cpu|cuda|auto, GCOO_DEBUG=WARN|INFO|TRACE, "
             "GCOO_DEBUG_FILE=path (%%h host, %%p pid),\n"
             "GCOO_PROGRESS=1|0 (progress on stderr: default on when started from a terminal),\n"
             "GCOO_FAST_STARTUP=0 (no start-up overlap, for measuring it).\n");
}

int main(int argc, char **argv) {
  int provided = 0, rc = 0;
  cli_startup_begin(argc, argv); /* the GPU's start-up overlaps MPI_Init and the input's read */
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  cli_startup_mpi_done();
  cli_install_signal_handlers(); /* after MPI_Init, which may install its own */
  if (argc < 2) {
    rc = cli_default_job();
  } else if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V") ||
             !strcmp(argv[1], "version")) {
    cli_print_version();
  } else if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
    if (cli_rank() == 0) usage(stdout);
  } else {
    cli_command *cmd = NULL;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
      if (!strcmp(argv[1], commands[i]->name)) cmd = commands[i];
    if (!cmd) {
      if (cli_rank() == 0) {
        fprintf(stderr, "gcoo_dist: unknown command \"%s\"\n\n", argv[1]);
        usage(stderr);
      }
      rc = 2;
    } else {
      for (int i = 2; i < argc; i++) /* --json: the error object too, whatever fails */
        if (!strcmp(argv[i], "--json")) cli_json_mode(cmd->name);
      int p = cli_parse(cmd, argc - 2, argv + 2);
      rc = p < 0 ? 2 : p > 0 ? 0 : cmd->run(argc - 2, argv + 2, cmd);
    }
  }
  /* every rank leaves with the worst exit code, so mpirun reports the failure once */
  int worst = rc;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  cli_json_finish(worst); /* a --json job that failed before its report: the error object */
  cli_signals_finishing(worst);
  MPI_Finalize();
  return cli_startup_end(worst);
}
