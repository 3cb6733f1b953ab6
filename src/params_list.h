/* SPDX-License-Identifier: MIT */
/* src/params_list.h: every GCOO_* environment variable gcoo reads, declared once: the parameter
 * registry. Each GCOO_PARAM(ID, TYPE, AUDIENCE, SCOPE, DEFAULT, DOC) line gives the name
 * (GCOO_ID), the type of its value (BOOL: 1/0, yes/no, true/false, on/off; INT; NUMBER; STRING),
 * its default as the text a user would set, who it is for (USER, OPERATIONS: site and job
 * tuning, DEVELOPER: experiments and measurements), who reads it (LIBRARY, COMMAND: gcoo_dist
 * only, DIRECT: read by its own code outside the registry until that code moves to it) and a
 * one-line doc. src/params.c reads each at its first use, once, through one parser; a DEVELOPER
 * parameter of the library is read from the environment only in a build configured with
 * -DGCOO_DEVELOPER=ON, and otherwise keeps its default unless a test or benchmark sets it
 * (gcoo_param_set). docs/parameters.md is this table (tests/unit/t016-params checks it).
 * Included by src/params.h and src/params.c with GCOO_PARAM defined; add a parameter here and in
 * docs/parameters.md, nowhere else. */

/* ---- for users ------------------------------------------------------------------------------ */
GCOO_PARAM(BACKEND, STRING, USER, LIBRARY, "auto",
           "backend of gcoo_ctx_create(&ctx, NULL), of gcoo_dist_create(..., NULL) and of the "
           "command without --backend: cpu, cuda, cuda:N or auto (CUDA when a GPU is usable); "
           "asking for CUDA where there is none is an error")
GCOO_PARAM(DEBUG, STRING, USER, LIBRARY, "",
           "the library's log: WARN (every error as it is raised), INFO (also set-up decisions), "
           "TRACE (also each frame an error passes through, and every plan-time trial's "
           "candidate); unset: the library prints nothing")
GCOO_PARAM(DEBUG_SUBSYS, STRING, USER, LIBRARY, "",
           "only these log subsystems, a comma list (ERROR, TRACE, INIT, OP, TRIAL, ...); unset: "
           "all")
GCOO_PARAM(DEBUG_FILE, STRING, USER, LIBRARY, "",
           "log to this file instead of stderr; %h is the host name, %p the process id")
GCOO_PARAM(ALLOW_TF32, BOOL, USER, LIBRARY, "0",
           "AUTO may choose a TF32 dense GEMM (about 3e-4 relative error) where it is faster")
GCOO_PARAM(PROGRESS, INT, USER, COMMAND, "-1",
           "gcoo_dist's progress lines on rank 0's stderr: 1 always, 0 never, -1 when the job was "
           "started from a terminal (also under mpirun)")

/* ---- for operations: sites, clusters, jobs -------------------------------------------------- */
GCOO_PARAM(ALLOW_SHARED_GPU, BOOL, OPERATIONS, LIBRARY, "0",
           "allow more ranks on a node than GPUs: devices shared round robin, NCCL not used "
           "(slower; for tests)")
GCOO_PARAM(NCCL, BOOL, OPERATIONS, LIBRARY, "1",
           "device collectives through NCCL on the CUDA backend; 0: staged through MPI")
GCOO_PARAM(NCCL_TIMEOUT, NUMBER, OPERATIONS, LIBRARY, "300",
           "seconds before a pending NCCL operation is declared dead and its communicator "
           "aborted")
GCOO_PARAM(CUBLAS_LIBRARY, STRING, OPERATIONS, LIBRARY, "",
           "the cuBLAS opened at the first BLAS call, a name or a path; unset: "
           "libcublas.so.<major of the build's CUDA>, found as the loader would, then in the "
           "build's CUDA library directory")
GCOO_PARAM(H5_MPIO, BOOL, OPERATIONS, LIBRARY, "0",
           "read and write HDF5 through MPI-IO (collective transfers); 0: each rank opens the "
           "file with the POSIX driver, so an I/O error mid-write cannot hang the job")
GCOO_PARAM(H5_DIRECT, BOOL, OPERATIONS, LIBRARY, "1",
           "read contiguous HDF5 datasets directly (parallel preads into the slab); 0: every "
           "dataset through H5Dread in rounds")
GCOO_PARAM(H5_CHUNK_BYTES, INT, OPERATIONS, LIBRARY, "67108864",
           "bytes a rank moves per HDF5 transfer round (at least 1)")
GCOO_PARAM(GATHER_CHUNK_MB, NUMBER, OPERATIONS, LIBRARY, "0",
           "chunk size of device gathers over NCCL in MiB; 0: one transfer per peer")
GCOO_PARAM(STAGED_COPY_MIN_MB, INT, OPERATIONS, LIBRARY, "256",
           "copies between pageable host memory and a GPU from this many MiB go through pinned "
           "chunks filled by the OpenMP threads; 0: never")
GCOO_PARAM(SPGEMM_POOL_KEEP_MB, INT, OPERATIONS, LIBRARY, "-1",
           "MiB the GPU SpGEMM's memory pool keeps between calls; -1: an eighth of the device's "
           "memory (at least 256 MiB); 0: nothing")
GCOO_PARAM(FAST_STARTUP, BOOL, OPERATIONS, COMMAND, "1",
           "gcoo_dist's start-up work (a singleton's MPI defaults and components, the hwloc "
           "plugin list, the GPU's context on a thread, the input read ahead, the quick exit); "
           "0: none of it, for measuring it")

/* ---- for developers: experiments and measurements ------------------------------------------- */
GCOO_PARAM(AUTO_TRIAL, BOOL, DEVELOPER, LIBRARY, "1",
           "AUTO's plan-time trials; 0: the rule alone, and a TF32 operator's tensor-core kernel "
           "untimed")
GCOO_PARAM(TC_KSPLIT, INT, DEVELOPER, LIBRARY, "0",
           "force the tensor-core kernel's warps a window: 1, 2 or 4; 0: timed by the trial")
GCOO_PARAM(TC_COLS, INT, DEVELOPER, LIBRARY, "0",
           "force the tensor-core kernel's column tile: 32, 64 or 128; 0: timed by the trial")
GCOO_PARAM(H5_COLLECTIVE, BOOL, DEVELOPER, LIBRARY, "1",
           "with GCOO_H5_MPIO=1, collective transfers where the ranks' selections allow; 0: every "
           "transfer independent")
GCOO_PARAM(SPGEMM_BOUND_ENTRIES, INT, DEVELOPER, LIBRARY, "16777216",
           "GPU SpGEMM: products whose bounds total at most this many entries are computed at "
           "their bounds, unpredicted; 0: every product sampled and predicted")
GCOO_PARAM(SPGEMM_DENSE_REACH, INT, DEVELOPER, LIBRARY, "1",
           "GPU SpGEMM: bins past its hash table's a row of many products per column may go to "
           "be accumulated densely (0-4)")
GCOO_PARAM(SPGEMM_RECOMPUTE, STRING, DEVELOPER, LIBRARY, "plan",
           "GPU SpGEMM: overflowed rows recomputed after a host plan (plan) or relisted on the "
           "device with no host plan (direct)")
GCOO_PARAM(BCG_FUSED, STRING, DEVELOPER, LIBRARY, "",
           "block CG: 1 the fused passes where they exist, 0 the GEMM path; unset: where they win")
GCOO_PARAM(BCG_GRAM2, STRING, DEVELOPER, LIBRARY, "",
           "block CG: gram2's copies, async, async16 or regs; unset: per element type and width")
GCOO_PARAM(BCG_STAGES, STRING, DEVELOPER, LIBRARY, "",
           "block CG: \"G,U,D\" pipeline stages of gram2 (2, 3), update (2, 3), direction (3, 4); "
           "unset: per element type and width")
GCOO_PARAM(BCG_W_IN_R, STRING, DEVELOPER, LIBRARY, "0",
           "block CG: 1 stages W over R's tile in the update")
GCOO_PARAM(BCG_KK_THREADS, STRING, DEVELOPER, LIBRARY, "256",
           "block CG: block size of the one-block k x k kernels, 32, 64, 128, 256 or 512")
GCOO_PARAM(BCG_MMA, STRING, DEVELOPER, LIBRARY, "1",
           "block CG, double k = 16, 32: 0 updates X, R, W on the CUDA cores instead of the FP64 "
           "tensor cores")
GCOO_PARAM(BCG_WFORM, STRING, DEVELOPER, LIBRARY, "",
           "block CG: 1 the W form, 0 the P form; unset: W for double, P for float")
GCOO_PARAM(BCG_WFORM_RATIO, STRING, DEVELOPER, LIBRARY, "1e-6",
           "block CG: pivot ratio in (0, 1] below which the W form makes P explicit")
GCOO_PARAM(BCG_PHASE_MARKS, STRING, DEVELOPER, LIBRARY, "1",
           "block CG: 0 leaves out the CUDA events between phases (no phase times)")
