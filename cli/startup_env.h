/* SPDX-License-Identifier: MIT */
/* cli/startup_env.h: what gcoo_dist sets up before MPI_Init, in functions that need nothing but
 * the C library (and libmpi's address), so that bench/startup_null.c, the benchmark's null
 * program, starts exactly as the command does (cli/startup_env.c). */
#ifndef GCOO_CLI_STARTUP_ENV_H
#define GCOO_CLI_STARTUP_ENV_H

/** CLOCK_MONOTONIC or CLOCK_REALTIME in seconds. */
double cli_clock_s(int clock_id);
/** Seconds since this process was started (exec), from /proc (10 ms resolution); -1 without. */
double cli_since_exec(void);
/** Whether no launcher (mpirun, srun, hydra) started this process: a one-rank job. */
int cli_is_singleton(void);
/** The environment defaults of a short MPI_Init: hwloc's plugins not needed, and for a singleton
 *  the isolated start, the in-process transports and the components it needs. Variables the
 *  user set win. */
void cli_mpi_env_defaults(void);

#endif
