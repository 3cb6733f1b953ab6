/* SPDX-License-Identifier: MIT */
/* dist/dist_ctx.c: the distributed context: a private communicator, the node-local rank, one GPU
 * per rank (checked to be distinct physical GPUs before NCCL sees them), the rank's backend
 * context and the NCCL communicator.
 *
 * GPU choice: device = node-local rank modulo the devices the rank sees. That covers both usual
 * launches: every rank sees all GPUs of the node (device = local rank), or the launcher binds one
 * GPU per rank (srun --gpus-per-task=1: every rank sees one, device 0, and they differ). Whether
 * the choice is valid is decided by what the ranks actually got: (host, PCI bus id) pairs are
 * all-gathered and a duplicate is an error on every rank, naming both ranks, the host, the counts
 * and the fix. NCCL would otherwise fail later with "Duplicate GPU detected" or hang. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dist_impl.h"
#include "params.h"

gcoo_status gcoo__check_gpu_table(const gcoo__gpu_slot *slots, int n, int allow_shared,
                                  int *shared) {
  *shared = 0;
  for (int j = 1; j < n; j++)
    for (int i = 0; i < j; i++) {
      if (strcmp(slots[i].host, slots[j].host) || strcmp(slots[i].bus, slots[j].bus)) continue;
      if (allow_shared) {
        *shared = 1;
        continue;
      }
      return GCOO_ERROR(
          GCOO_ERR_NO_DEVICE,
          "ranks %d and %d share the GPU %s on host %s (%d ranks on that host, %d GPUs visible "
          "to rank %d): run at most one rank per GPU (srun --ntasks-per-node=G --gpus-per-node=G, "
          "or fewer ranks per node with mpirun), or set GCOO_ALLOW_SHARED_GPU=1 to share GPUs "
          "(slower; collectives then go through MPI instead of NCCL)",
          i, j, slots[j].bus, slots[j].host, slots[j].local_size, slots[j].ndev, j);
    }
  return GCOO_SUCCESS;
}

/* "cpu" / "cuda" from the caller's backend string, agreed by all ranks. */
static gcoo_status resolve_backend(gcoo_dist d, const char *backend, int *use_cuda) {
  if (!backend) backend = gcoo__param_str(GCOO__P_BACKEND);
  if (!*backend) backend = "auto";
  gcoo_status st = GCOO_SUCCESS;
  int want = -1; /* 0 cpu, 1 cuda, -1 auto */
  if (!strcmp(backend, "cpu"))
    want = 0;
  else if (!strcmp(backend, "cuda") || !strcmp(backend, "gpu"))
    want = 1;
  else if (!strcmp(backend, "auto"))
    want = -1;
  else if (!strncmp(backend, "cuda:", 5) || !strncmp(backend, "gpu:", 4))
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG,
                    "backend \"%s\": a distributed context picks each rank's GPU from its "
                    "node-local rank; pass \"cuda\" (restrict GPUs with CUDA_VISIBLE_DEVICES)",
                    backend);
  else
    st = GCOO_ERROR(GCOO_ERR_INVALID_ARG,
                    "unknown backend \"%s\" (expected cpu, cuda, gpu or auto)", backend);
  GCOO_CALL(gcoo__agree_comm(d->comm, st, NULL));
  if (want >= 0) {
    *use_cuda = want;
    return GCOO_SUCCESS;
  }
  /* auto: CUDA only when every rank has a GPU, so that all ranks run the same backend */
  int has = gcoo_cuda_device_count() > 0, all = 0;
  GCOO_CALL(GCOO_MPI(MPI_Allreduce(&has, &all, 1, MPI_INT, MPI_MIN, d->comm)));
  *use_cuda = all;
  return GCOO_SUCCESS;
}

/* Pick this rank's device and check the cluster-wide table of (host, bus id). */
static gcoo_status bind_gpu(gcoo_dist d) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo__gpu_slot mine, *all = NULL;
  memset(&mine, 0, sizeof mine);
  snprintf(mine.host, sizeof mine.host, "%s", d->host);
  mine.local_size = d->local_size;
  mine.ndev = gcoo_cuda_device_count();
  if (mine.ndev <= 0) {
    const char *cvd = getenv("CUDA_VISIBLE_DEVICES");
    st = GCOO_ERROR(GCOO_ERR_NO_DEVICE,
                    "rank %d on host %s sees no CUDA device (CUDA_VISIBLE_DEVICES=%s)%s", d->rank,
                    d->host, cvd ? cvd : "unset",
                    GCOO_HAVE_CUDA ? "" : ": this gcoo was built without CUDA");
  } else {
    d->device = d->local_rank % mine.ndev;
    /* before the context exists (its device is what this picks): the CUDA backend's table, found
     * in the backend list by name; there is a device, so CUDA is compiled in */
    const gcoo_device_ops *dev = gcoo__backend_named("cuda")->device;
    st = dev->pci_bus_id(d->device, mine.bus, sizeof mine.bus);
  }
  if (st >= 0) st = gcoo__malloc_n((void **)&all, d->size, sizeof *all, "GPU table");
  GCOO_GOTO(gcoo__agree_comm(d->comm, st, NULL));
  GCOO_GOTO(GCOO_MPI(
      MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all, (int)sizeof mine, MPI_BYTE, d->comm)));
  /* every rank checks the same table: every rank reports the same error */
  GCOO_GOTO(gcoo__check_gpu_table(all, d->size, gcoo__param_bool(GCOO__P_ALLOW_SHARED_GPU),
                                  &d->shared_gpu));
  if (d->shared_gpu && d->rank == 0)
    GCOO_LOG(GCOO_LOG_WARN, "INIT",
             "ranks share GPUs (GCOO_ALLOW_SHARED_GPU=1): NCCL is not used in this run");
done:
  free(all);
  return st;
}

/* The context without its device: communicators, ranks, host, the agreed backend. */
gcoo_status gcoo_dist_create_unbound(gcoo_dist *out, MPI_Comm comm, const char *backend) {
  gcoo_status st = GCOO_SUCCESS;
  struct gcoo_dist_s *d = NULL;
  int init = 0;
  GCOO_CHECK(out != NULL, GCOO_ERR_NULL, "output handle is NULL");
  *out = NULL;
  GCOO_CALL(GCOO_MPI(MPI_Initialized(&init)));
  GCOO_CHECK(init, GCOO_ERR_INVALID_ARG, "MPI is not initialised: call MPI_Init first");
  GCOO_CALL(gcoo__calloc((void **)&d, 1, sizeof *d, "distributed context"));
  d->magic = GCOO_MAGIC_DIST;
  d->comm = d->node = MPI_COMM_NULL;
  d->device = -1;
  GCOO_GOTO(GCOO_MPI(MPI_Comm_dup(comm, &d->comm)));
  /* our calls report errors instead of aborting the job, so every rank can agree on them */
  GCOO_GOTO(GCOO_MPI(MPI_Comm_set_errhandler(d->comm, MPI_ERRORS_RETURN)));
  GCOO_GOTO(GCOO_MPI(MPI_Comm_rank(d->comm, &d->rank)));
  GCOO_GOTO(GCOO_MPI(MPI_Comm_size(d->comm, &d->size)));
  GCOO_GOTO(GCOO_MPI(
      MPI_Comm_split_type(d->comm, MPI_COMM_TYPE_SHARED, d->rank, MPI_INFO_NULL, &d->node)));
  GCOO_GOTO(GCOO_MPI(MPI_Comm_rank(d->node, &d->local_rank)));
  GCOO_GOTO(GCOO_MPI(MPI_Comm_size(d->node, &d->local_size)));
  d->threads = gcoo__rank_threads(d->local_size);
  if (gethostname(d->host, sizeof d->host) != 0) snprintf(d->host, sizeof d->host, "unknown");
  d->host[sizeof d->host - 1] = '\0';
  {
    const double t = gcoo__param_number(GCOO__P_NCCL_TIMEOUT);
    d->nccl_timeout = t > 0 ? t : 300.0;
  }
  GCOO_GOTO(resolve_backend(d, backend, &d->use_cuda));
  *out = d;
  d = NULL;
done:
  if (d) {
    if (d->node != MPI_COMM_NULL) MPI_Comm_free(&d->node);
    if (d->comm != MPI_COMM_NULL) MPI_Comm_free(&d->comm);
    d->magic = GCOO_MAGIC_FREED;
    free(d);
  }
  return st;
}

/* The device (its GPU from the node-local rank MPI reports, whatever GPU a gcoo_cuda_prestart
 * begun earlier guessed from the launcher's variables: a different guess only costs the time of
 * starting this one now), the backend context and NCCL. On failure d stays unbound. */
gcoo_status gcoo_dist_bind(gcoo_dist d) {
  GCOO_VALID_OBJECT(d, GCOO_MAGIC_DIST, "distributed context");
  if (d->bound) return GCOO_SUCCESS;
  gcoo_status st = GCOO_SUCCESS;
  const double t0 = gcoo__wtime();
  if (d->use_cuda) GCOO_CALL(bind_gpu(d));

  char resource[32];
  if (d->use_cuda)
    snprintf(resource, sizeof resource, "cuda:%d", d->device);
  else
    snprintf(resource, sizeof resource, "cpu");
  st = gcoo_ctx_create(&d->ctx, resource);
  /* one rank, one GPU: make it the process's current device too, so that the application's own
   * cudaMalloc (device operands it passes to gcoo) lands on the rank's GPU, as with NCCL */
  if (st >= 0 && d->use_cuda) st = gcoo__dist_device(d)->bind(d->device);
  GCOO_GOTO(gcoo__agree_comm(d->comm, st, NULL));

  char prefix[64];
  if (d->use_cuda)
    snprintf(prefix, sizeof prefix, "rank %d [gpu %d]", d->rank, d->device);
  else
    snprintf(prefix, sizeof prefix, "rank %d [cpu]", d->rank);
  gcoo__log_set_prefix(prefix);

#if GCOO_HAVE_NCCL
  if (d->use_cuda && !d->shared_gpu && d->size > 1 && gcoo__param_bool(GCOO__P_NCCL))
    GCOO_GOTO(gcoo__dist_nccl_init(d));
#endif
  GCOO_LOG(GCOO_LOG_INFO, "INIT",
           "rank %d of %d on %s (local %d of %d), backend %s, NCCL %s, %d CPU thread(s)", d->rank,
           d->size, d->host, d->local_rank, d->local_size, resource,
           gcoo__dist_uses_nccl(d) ? "on" : "off", d->threads);
  d->bound = 1;
  d->bind_seconds = gcoo__wtime() - t0;
done:
  if (!d->bound) {
    gcoo_ctx_destroy(&d->ctx);
    d->device = -1;
  }
  return st;
}

gcoo_status gcoo_dist_create(gcoo_dist *out, MPI_Comm comm, const char *backend) {
  GCOO_CALL(gcoo_dist_create_unbound(out, comm, backend));
  gcoo_status st = gcoo_dist_bind(*out);
  if (st < 0) (void)gcoo_dist_destroy(out);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

gcoo_status gcoo_dist_destroy(gcoo_dist *d) {
  if (!d || !*d) return GCOO_SUCCESS;
  GCOO_VALID_OBJECT(*d, GCOO_MAGIC_DIST, "distributed context");
  struct gcoo_dist_s *x = *d;
#if GCOO_HAVE_NCCL
  if (x->nccl) {
    /* ncclCommFinalize + Destroy flushes pending work; with a non-blocking communicator
     * finalize returns at once and is polled like everything else */
    gcoo_status st = GCOO_NCCL(x, ncclCommFinalize(x->nccl));
    if (st >= 0) st = gcoo__nccl_wait(x, "ncclCommFinalize");
    if (st >= 0)
      (void)ncclCommDestroy(x->nccl);
    else
      (void)ncclCommAbort(x->nccl);
    x->nccl = NULL;
  }
#endif
  gcoo_status st = gcoo_ctx_destroy(&x->ctx);
  if (x->node != MPI_COMM_NULL) MPI_Comm_free(&x->node);
  if (x->comm != MPI_COMM_NULL) MPI_Comm_free(&x->comm);
  gcoo__log_set_prefix("");
  x->magic = GCOO_MAGIC_FREED;
  free(x);
  *d = NULL;
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

int gcoo_dist_rank(gcoo_dist d) { return d && d->magic == GCOO_MAGIC_DIST ? d->rank : -1; }
int gcoo_dist_size(gcoo_dist d) { return d && d->magic == GCOO_MAGIC_DIST ? d->size : 0; }
MPI_Comm gcoo_dist_comm(gcoo_dist d) {
  return d && d->magic == GCOO_MAGIC_DIST ? d->comm : MPI_COMM_NULL;
}
gcoo_ctx gcoo_dist_ctx(gcoo_dist d) { return d && d->magic == GCOO_MAGIC_DIST ? d->ctx : NULL; }

gcoo_status gcoo_dist_get_info(gcoo_dist d, gcoo_dist_info *info) {
  GCOO_VALID_OBJECT(d, GCOO_MAGIC_DIST, "distributed context");
  GCOO_CHECK(info != NULL, GCOO_ERR_NULL, "info is NULL");
  memset(info, 0, sizeof *info);
  info->rank = d->rank;
  info->size = d->size;
  info->local_rank = d->local_rank;
  info->local_size = d->local_size;
  info->device = d->device;
  info->nccl = gcoo__dist_uses_nccl(d);
  info->shared_gpu = d->shared_gpu;
  info->bound = d->bound;
  info->bind_seconds = d->bind_seconds;
  snprintf(info->host, sizeof info->host, "%s", d->host);
  return GCOO_SUCCESS;
}
