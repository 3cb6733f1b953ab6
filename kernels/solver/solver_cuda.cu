// SPDX-License-Identifier: MIT
// kernels/solver/solver_cuda.cu: the device-resident iterations of dist/bcg.c on a CUDA context.
//
// 1. Single right-hand side, one rank (gcoo__cuda_pcg): Jacobi PCG in three fused kernels per
//    iteration, every scalar kept on the device:
//      spmv_dot   q = A p and p.q; its last block forms alpha = (r.z) / (p.q)
//      update     x += alpha p, r -= alpha q, z = D^-1 r, r.r and r.z in one pass; its last block
//                 counts the iteration, records ||r|| / ||b||, sets `done` on convergence (or at
//                 maxit, or on a breakdown) and forms beta
//      direction  p = z + beta p
//    Every kernel returns at once while `done` is set, so a CUDA graph of G iterations replayed
//    past convergence changes nothing: x, the count and the history are those of the converged
//    iteration, exactly. The host keeps two replays in flight and reads the state of the older one
//    (an asynchronous copy) before queueing the next: no round trip stalls the GPU.
//    Partial sums go through per-block slots summed in a fixed order by the last block to finish
//    (threadfence + ticket): results are reproducible run to run.
// 2. Block CG (gcoo__bcg_device): the k x k steps (Cholesky of P^T Q and the solves for alpha and
//    beta, the pivoted Cholesky of W^T W that gives T) in one single-block kernel each, the
//    preconditioner and the residual norms in one pass over R, the convergence test on the
//    device, the state read back asynchronously as above; dist/bcg.c queues the multiply, the
//    cuBLAS GEMMs and the reductions around them.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend_cuda_impl.h"
#include "bcg_fused.cuh"
#include "bcg_kernels.cuh"

namespace {

constexpr int kThreads = 256;    // threads per block of the vector kernels
constexpr int kMaxBlocks = 1024; // grid-stride: partial sums per reduction stay few

// ---------------------------------------------------------------------------------------------
// Reductions: per-block partial sums, the last block sums the slots in a fixed order.

// Sum of v over the block, in thread 0 (warp shuffles, then one value per warp).
template <int NV>
__device__ void block_sum(double (&v)[NV], double *smem /* [NV][32] */) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nw = blockDim.x >> 5;
#pragma unroll
  for (int a = 0; a < NV; a++) {
    for (int o = 16; o > 0; o >>= 1) v[a] += __shfl_down_sync(0xffffffffu, v[a], o);
    if (lane == 0) smem[a * 32 + warp] = v[a];
  }
  __syncthreads();
  if (warp == 0) {
#pragma unroll
    for (int a = 0; a < NV; a++) {
      v[a] = lane < nw ? smem[a * 32 + lane] : 0.0;
      for (int o = 16; o > 0; o >>= 1) v[a] += __shfl_down_sync(0xffffffffu, v[a], o);
    }
  }
}

// Store this block's NV sums in slots[a * gridDim.x + block]; returns true in every thread of
// the last block to arrive, which then may read all slots (totals with finish_sum).
template <int NV>
__device__ bool publish_partial(double (&v)[NV], double *slots, unsigned *ticket, double *smem) {
  block_sum<NV>(v, smem);
  __shared__ bool last;
  if (threadIdx.x == 0) {
#pragma unroll
    for (int a = 0; a < NV; a++) slots[a * gridDim.x + blockIdx.x] = v[a];
    __threadfence();
    last = atomicAdd(ticket, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last) __threadfence();
  return last;
}

// In the last block: totals of the NV slot rows, in thread 0 (a fixed order: reproducible).
template <int NV>
__device__ void finish_sum(double (&tot)[NV], const double *slots, unsigned *ticket, double *smem) {
#pragma unroll
  for (int a = 0; a < NV; a++) {
    tot[a] = 0.0;
    for (unsigned b = threadIdx.x; b < gridDim.x; b += blockDim.x)
      tot[a] += ((volatile const double *)slots)[a * gridDim.x + b];
  }
  __syncthreads();
  block_sum<NV>(tot, smem);
  if (threadIdx.x == 0) *ticket = 0; // ready for the next kernel that uses it
}

// ---------------------------------------------------------------------------------------------
// Single right-hand side PCG.

struct pcg_state {
  double bb, rz, rr, pq, alpha, beta, rtol;
  int64_t it, maxit;
  int done, converged, breakdown, pad;
  unsigned ticket;
};

// ||r|| / ||b|| from the state's r.r and b.b (b = 0: ||r||), recorded as iteration it's.
__device__ double record_residual(const pcg_state *st, int64_t it, double *hist) {
  const double rr = fmax(st->rr, 0.0);
  const double rel = st->bb > 0.0 ? sqrt(rr / st->bb) : sqrt(rr);
  if (hist) hist[it] = rel;
  return rel;
}

// (A v)_i for the row handled by a group of TPR lanes (the sum lands in lane 0 of the group);
// every lane of the warp calls it (the shuffles span the warp).
template <typename T, int TPR>
__device__ double row_dot(const int64_t *ptr, const int32_t *ind, const T *val, const T *v,
                          int64_t i, int sub) {
  double s = 0.0;
  const int64_t e1 = i >= 0 ? ptr[i + 1] : 0; // i < 0: a lane past the last row (adds 0)
  for (int64_t e = (i >= 0 ? ptr[i] : 0) + sub; e < e1; e += TPR)
    s += (double)val[e] * (double)v[ind[e]];
#pragma unroll
  for (int o = TPR / 2; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o, TPR);
  return s;
}

// Set up: r = b - A x, z = D^-1 r, p = z; totals b.b, r.r, r.z; record iteration 0.
template <typename T, int TPR>
__global__ void pcg_init(int64_t n, const int64_t *ptr, const int32_t *ind, const T *val,
                         const T *b, const T *x, const T *dinv, T *r, T *z, T *p, pcg_state *st,
                         double *slots, double *hist) {
  __shared__ double smem[3 * 32];
  const int sub = threadIdx.x % TPR, rows_per_block = blockDim.x / TPR;
  double v[3] = {0.0, 0.0, 0.0};
  for (int64_t base = (int64_t)blockIdx.x * rows_per_block; base < n;
       base += (int64_t)gridDim.x * rows_per_block) { // uniform trip count: the shuffles need it
    const int64_t i = base + threadIdx.x / TPR;
    double ax = row_dot<T, TPR>(ptr, ind, val, x, i < n ? i : -1, sub);
    if (sub == 0 && i < n) {
      T ri = (T)((double)b[i] - ax);
      T zi = dinv ? (T)((double)dinv[i] * (double)ri) : ri;
      r[i] = ri;
      z[i] = zi;
      p[i] = zi;
      v[0] += (double)b[i] * (double)b[i];
      v[1] += (double)ri * (double)ri;
      v[2] += (double)ri * (double)zi;
    }
  }
  if (!publish_partial<3>(v, slots, &st->ticket, smem)) return;
  double t[3];
  finish_sum<3>(t, slots, &st->ticket, smem);
  if (threadIdx.x == 0) {
    st->bb = t[0];
    st->rr = t[1];
    st->rz = t[2];
    st->it = 0;
    st->converged = record_residual(st, 0, hist) <= st->rtol;
    st->done = st->converged || st->maxit == 0;
    st->breakdown = 0;
  }
}

template <typename T, int TPR>
__global__ void pcg_spmv_dot(int64_t n, const int64_t *ptr, const int32_t *ind, const T *val,
                             const T *p, T *q, pcg_state *st, double *slots) {
  if (((volatile pcg_state *)st)->done) return;
  __shared__ double smem[32];
  const int sub = threadIdx.x % TPR, rows_per_block = blockDim.x / TPR;
  double v[1] = {0.0};
  for (int64_t base = (int64_t)blockIdx.x * rows_per_block; base < n;
       base += (int64_t)gridDim.x * rows_per_block) {
    const int64_t i = base + threadIdx.x / TPR;
    double qi = row_dot<T, TPR>(ptr, ind, val, p, i < n ? i : -1, sub);
    if (sub == 0 && i < n) {
      q[i] = (T)qi;
      v[0] += (double)p[i] * (double)(T)qi;
    }
  }
  if (!publish_partial<1>(v, slots, &st->ticket, smem)) return;
  double t[1];
  finish_sum<1>(t, slots, &st->ticket, smem);
  if (threadIdx.x == 0) {
    st->pq = t[0];
    if (!(t[0] > 0.0) || !isfinite(t[0])) { // p^T A p <= 0: A is not SPD (or p vanished)
      st->breakdown = 1;
      st->done = 1;
    } else {
      st->alpha = st->rz / t[0];
    }
  }
}

template <typename T>
__global__ void pcg_update(int64_t n, const T *p, const T *q, const T *dinv, T *x, T *r, T *z,
                           pcg_state *st, double *slots, double *hist) {
  if (((volatile pcg_state *)st)->done) return;
  __shared__ double smem[2 * 32];
  const T alpha = (T)st->alpha;
  double v[2] = {0.0, 0.0};
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    x[i] += alpha * p[i];
    T ri = r[i] - alpha * q[i];
    T zi = dinv ? dinv[i] * ri : ri;
    r[i] = ri;
    z[i] = zi;
    v[0] += (double)ri * (double)ri;
    v[1] += (double)ri * (double)zi;
  }
  if (!publish_partial<2>(v, slots, &st->ticket, smem)) return;
  double t[2];
  finish_sum<2>(t, slots, &st->ticket, smem);
  if (threadIdx.x == 0) {
    const int64_t it = st->it + 1;
    st->it = it;
    st->rr = t[0];
    const double rel = record_residual(st, it, hist);
    st->beta = t[1] / st->rz;
    st->rz = t[1];
    if (rel <= st->rtol) st->converged = 1;
    if (st->converged || it >= st->maxit) st->done = 1;
  }
}

template <typename T>
__global__ void pcg_direction(int64_t n, const T *z, T *p, const pcg_state *st) {
  if (((volatile const pcg_state *)st)->done) return;
  const T beta = (T)st->beta;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x)
    p[i] = z[i] + beta * p[i];
}

int grid_for(int64_t items, int per_block) {
  int64_t g = (items + per_block - 1) / per_block;
  if (g < 1) g = 1;
  if (g > kMaxBlocks) g = kMaxBlocks;
  return (int)g;
}

// Lanes per row from the mean row length (a warp per row for long rows, a lane for stencils).
int lanes_per_row(int64_t nnz, int64_t n) {
  double mean = n > 0 ? (double)nnz / (double)n : 0.0;
  int tpr = 1;
  while (tpr < 32 && tpr * 2 <= mean) tpr *= 2;
  return tpr;
}

// The queued kernels of one PCG iteration (or of the set-up) for element type T.
template <typename T>
struct pcg_kernels {
  int64_t n;
  gcoo_cuda_csr A;
  const T *b, *dinv;
  T *x, *r, *z, *p, *q;
  pcg_state *st;
  double *slots, *hist;
  int tpr, grid_rows, grid_vec;
  cudaStream_t s;

  template <int TPR>
  cudaError_t spmv_t() {
    pcg_spmv_dot<T, TPR>
        <<<grid_rows, kThreads, 0, s>>>(n, A.ptr, A.ind, (const T *)A.values, p, q, st, slots);
    return cudaGetLastError();
  }
  template <int TPR>
  cudaError_t init_t() {
    pcg_init<T, TPR><<<grid_rows, kThreads, 0, s>>>(n, A.ptr, A.ind, (const T *)A.values, b, x,
                                                    dinv, r, z, p, st, slots, hist);
    return cudaGetLastError();
  }
#define GCOO_BY_TPR(fn)       \
  switch (tpr) {              \
    case 1: return fn<1>();   \
    case 2: return fn<2>();   \
    case 4: return fn<4>();   \
    case 8: return fn<8>();   \
    case 16: return fn<16>(); \
    default: return fn<32>(); \
  }
  cudaError_t spmv(){GCOO_BY_TPR(spmv_t)} cudaError_t init(){GCOO_BY_TPR(init_t)}
#undef GCOO_BY_TPR
  cudaError_t update() {
    pcg_update<T><<<grid_vec, kThreads, 0, s>>>(n, p, q, dinv, x, r, z, st, slots, hist);
    return cudaGetLastError();
  }
  cudaError_t direction() {
    pcg_direction<T><<<grid_vec, kThreads, 0, s>>>(n, z, p, st);
    return cudaGetLastError();
  }
};

// Everything one PCG solve allocates, freed in one place.
struct pcg_buffers {
  void *vec = nullptr;     // r, z, p, q
  double *slots = nullptr; // 3 x kMaxBlocks partial sums
  double *dhist = nullptr; // maxit + 1 relative residuals
  pcg_state *st = nullptr;
  pcg_state *host = nullptr;  // pinned: two snapshots of the state
  cudaEvent_t ev[2 + 8] = {}; // two snapshot events, then profiling marks
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ~pcg_buffers() {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    for (cudaEvent_t e : ev)
      if (e) cudaEventDestroy(e);
    if (host) cudaFreeHost(host);
    cudaFree(st);
    cudaFree(dhist);
    cudaFree(slots);
    cudaFree(vec);
    (void)cudaGetLastError();
  }
};

template <typename T>
gcoo_status pcg_run(gcoo_ctx ctx, gcoo__pcg_device *a) {
  cuda_op_state *o = gcoo__cuda_op(a->A);
  GCOO_CHECK(o != nullptr && o->csr.nrows == a->n && o->csr.ncols == a->n, GCOO_ERR_INTERNAL,
             "PCG needs the operator's square device CSR");
  cudaStream_t s = (cudaStream_t)ctx->stream;
  const int64_t n = a->n;
  pcg_buffers buf;
  GCOO_CALL_CUDA(cudaMalloc(&buf.vec, sizeof(T) * (size_t)(4 * (n > 0 ? n : 1))));
  GCOO_CALL_CUDA(cudaMalloc((void **)&buf.slots, sizeof(double) * 3 * kMaxBlocks));
  GCOO_CALL_CUDA(cudaMalloc((void **)&buf.st, sizeof(pcg_state)));
  if (a->history)
    GCOO_CALL_CUDA(cudaMalloc((void **)&buf.dhist, sizeof(double) * (size_t)(a->maxit + 1)));
  GCOO_CALL_CUDA(cudaMallocHost((void **)&buf.host, 2 * sizeof(pcg_state)));
  for (cudaEvent_t &e : buf.ev) GCOO_CALL_CUDA(cudaEventCreate(&e));
  pcg_state init;
  memset(&init, 0, sizeof init);
  init.rtol = a->rtol;
  init.maxit = a->maxit;
  GCOO_CALL_CUDA(cudaMemcpyAsync(buf.st, &init, sizeof init, cudaMemcpyHostToDevice, s));
  pcg_kernels<T> K;
  K.n = n;
  K.A = o->csr;
  K.b = (const T *)a->b;
  K.dinv = (const T *)a->dinv;
  K.x = (T *)a->x;
  K.r = (T *)buf.vec;
  K.z = K.r + n;
  K.p = K.z + n;
  K.q = K.p + n;
  K.st = buf.st;
  K.slots = buf.slots;
  K.hist = buf.dhist;
  K.tpr = lanes_per_row(o->csr.nnz, n);
  K.grid_rows = grid_for(n, kThreads / K.tpr);
  K.grid_vec = grid_for(n, kThreads);
  K.s = s;
  GCOO_CALL_CUDA(K.init());
  GCOO_CALL_CUDA(cudaStreamSynchronize(s));
  const double t_start = gcoo__wtime();

  // The first G iterations run as plain launches with events between the phases of the second
  // one (the first pays for loading the kernels): the only per-phase times of this path (a
  // graph's kernels cannot be timed one by one).
  const int G = 16;
  a->graph_iterations = G;
  float ms[3] = {0, 0, 0};
  GCOO_CALL_CUDA(cudaEventRecord(buf.ev[7], s));
  for (int i = 0; i < G; i++) {
    if (i == 1) GCOO_CALL_CUDA(cudaEventRecord(buf.ev[2], s));
    GCOO_CALL_CUDA(K.spmv());
    if (i == 1) GCOO_CALL_CUDA(cudaEventRecord(buf.ev[3], s));
    GCOO_CALL_CUDA(K.update());
    if (i == 1) GCOO_CALL_CUDA(cudaEventRecord(buf.ev[4], s));
    GCOO_CALL_CUDA(K.direction());
    if (i == 1) GCOO_CALL_CUDA(cudaEventRecord(buf.ev[5], s));
  }
  GCOO_CALL_CUDA(cudaEventRecord(buf.ev[6], s));

  // The graph: G iterations, replayed until the device says done.
  GCOO_CALL_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  cudaError_t ce = cudaSuccess;
  for (int i = 0; i < G && ce == cudaSuccess; i++) {
    ce = K.spmv();
    if (ce == cudaSuccess) ce = K.update();
    if (ce == cudaSuccess) ce = K.direction();
  }
  cudaError_t ce_end = cudaStreamEndCapture(s, &buf.graph);
  GCOO_CALL_CUDA(ce);
  GCOO_CALL_CUDA(ce_end);
  GCOO_CALL_CUDA(cudaGraphInstantiate(&buf.exec, buf.graph, 0));

  // Replays with two in flight: snapshot j of the state is read before replay j + 2 is queued.
  GCOO_CALL_CUDA(
      cudaMemcpyAsync(&buf.host[0], buf.st, sizeof(pcg_state), cudaMemcpyDeviceToHost, s));
  GCOO_CALL_CUDA(cudaEventRecord(buf.ev[0], s));
  int64_t queued = G, j = 0;
  for (;;) {
    const int slot = (int)((j + 1) & 1);
    if (queued < a->maxit) {
      GCOO_CALL_CUDA(cudaGraphLaunch(buf.exec, s));
      queued += G;
      GCOO_CALL_CUDA(
          cudaMemcpyAsync(&buf.host[slot], buf.st, sizeof(pcg_state), cudaMemcpyDeviceToHost, s));
      GCOO_CALL_CUDA(cudaEventRecord(buf.ev[slot], s));
    }
    GCOO_CALL_CUDA(cudaEventSynchronize(buf.ev[j & 1]));
    const pcg_state seen = buf.host[j & 1];
    j++;
    if (seen.done) break;
    if (queued >= a->maxit) { // everything allowed is queued: the last snapshot decides
      GCOO_CALL_CUDA(cudaEventSynchronize(buf.ev[j & 1]));
      break;
    }
  }
  pcg_state fin;
  GCOO_CALL_CUDA(cudaMemcpyAsync(&fin, buf.st, sizeof fin, cudaMemcpyDeviceToHost, s));
  GCOO_CALL_CUDA(cudaStreamSynchronize(s));
  a->t_iterate = gcoo__wtime() - t_start;
  GCOO_CALL_CUDA(cudaEventElapsedTime(&ms[0], buf.ev[2], buf.ev[3]));
  GCOO_CALL_CUDA(cudaEventElapsedTime(&ms[1], buf.ev[3], buf.ev[4]));
  GCOO_CALL_CUDA(cudaEventElapsedTime(&ms[2], buf.ev[4], buf.ev[5]));
  float first_batch = 0;
  GCOO_CALL_CUDA(cudaEventElapsedTime(&first_batch, buf.ev[7], buf.ev[6]));
  a->iterations = fin.it;
  a->converged = fin.converged;
  a->breakdown = fin.breakdown;
  a->residual = fin.bb > 0.0 ? sqrt(fmax(fin.rr, 0.0) / fin.bb) : sqrt(fmax(fin.rr, 0.0));
  a->t_spmm = 1e-3 * ms[0];
  a->t_update = 1e-3 * ms[1];
  a->t_direction = 1e-3 * ms[2];
  a->t_first_batch = 1e-3 * first_batch;
  if (a->history)
    GCOO_CALL_CUDA(cudaMemcpy(a->history, buf.dhist, sizeof(double) * (size_t)(fin.it + 1),
                              cudaMemcpyDeviceToHost));
  return GCOO_SUCCESS;
}

using namespace gcoo_bcg;

constexpr int kBcgMarks = 16; // phase marks per iteration at most
constexpr int kBcgRing = 4;   // iterations whose marks and snapshots are kept

} // namespace

// ---------------------------------------------------------------------------------------------

struct gcoo__bcg_device {
  gcoo_ctx ctx;
  gcoo_dtype dt;
  int64_t k, maxit, nblocks;
  bcg_arrays a;
  void *dmem;       // device arrays of a, one allocation
  void *red, *coef; // reduction buffer (2k^2 + k) and 3 coefficient matrices (k x k), dtype
  double *partial;  // nblocks x k
  int kk_threads;   // threads of the one-block k x k kernels (GCOO_BCG_KK_THREADS)
  int phase_marks;  // events between the phases (GCOO_BCG_PHASE_MARKS=0: none, for measuring them)
  int tgrid;        // blocks of bcg_transform (the W form's explicit P)
  // the fused block-vector passes (k in {8, 16, 32}; kernels/solver/bcg_fused.cuh)
  int fused;        // k is one of them
  int mma;          // the updates of X, R, W on the FP64 tensor cores (double, k = 16, 32)
  int fgrid[3];     // blocks of gram2, update, direction: one wave of resident blocks
  void *fkern[3];   // those kernels (typed in their launchers: fused_fn<T>), chosen at set-up
  size_t fsmem[3];  // their dynamic shared memory
  double *fpartial; // max(fgrid) x 2k^2 per-block partial sums
  bcg_state *snap;  // pinned: kBcgRing snapshots
  cudaEvent_t snap_ev[kBcgRing];
  cudaEvent_t marks[kBcgRing][kBcgMarks];
  int mark_phase[kBcgRing][kBcgMarks];
  int nmarks[kBcgRing];
  double phase_s[GCOO__BCG_PHASES];
};

static cudaStream_t bcg_stream(const gcoo__bcg_device *h) { return (cudaStream_t)h->ctx->stream; }

// ---- set-up: the inverse diagonal from the operator's device CSR -------------------------------

// dinv_i = 1 / A_ii (the diagonal of row i at column i: the local block's own columns); rows whose
// diagonal is not positive and finite lower *bad to their index (the first one is reported).
template <typename T>
__global__ void inverse_diagonal_kernel(int64_t n, const int64_t *ptr, const int32_t *ind,
                                        const T *val, T *dinv, unsigned long long *bad) {
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (int64_t)gridDim.x * blockDim.x) {
    double d = 0.0;
    for (int64_t e = ptr[i]; e < ptr[i + 1]; e++)
      if (ind[e] == i) d = (double)val[e];
    dinv[i] = (T)(1.0 / d);
    if (!(d > 0.0 && isfinite(d))) atomicMin(bad, (unsigned long long)i);
  }
}

extern "C" gcoo_status gcoo__cuda_inverse_diagonal(gcoo_op A, void *dinv, int64_t *bad_row,
                                                   double *bad_value) {
  cuda_op_state *o = gcoo__cuda_op(A);
  GCOO_CHECK(o != nullptr && o->csr.nrows == o->csr.ncols, GCOO_ERR_INTERNAL,
             "the inverse diagonal needs the operator's square device CSR");
  cudaStream_t s = (cudaStream_t)A->ctx->stream;
  const int64_t n = o->csr.nrows;
  *bad_row = -1;
  if (n == 0) return GCOO_SUCCESS;
  gcoo_status st = GCOO_SUCCESS;
  int prev = 0;
  GCOO_CALL_CUDA(cudaGetDevice(&prev));
  if (prev != A->ctx->device) GCOO_CALL_CUDA(cudaSetDevice(A->ctx->device));
  unsigned long long *bad = nullptr, hbad = ~0ull;
  const int grid = grid_for(n, kThreads);
  GCOO_CALL_CUDA(cudaMalloc((void **)&bad, sizeof *bad));
  GCOO_CALL_CUDA_GOTO(cudaMemcpyAsync(bad, &hbad, sizeof hbad, cudaMemcpyHostToDevice, s));
  if (o->csr.dtype == GCOO_FLOAT64)
    inverse_diagonal_kernel<double><<<grid, kThreads, 0, s>>>(n, o->csr.ptr, o->csr.ind,
                                                              (const double *)o->csr.values,
                                                              (double *)dinv, bad);
  else
    inverse_diagonal_kernel<float><<<grid, kThreads, 0, s>>>(n, o->csr.ptr, o->csr.ind,
                                                             (const float *)o->csr.values,
                                                             (float *)dinv, bad);
  GCOO_CHECK_LAUNCH_GOTO("inverse diagonal");
  GCOO_CALL_CUDA_GOTO(cudaMemcpyAsync(&hbad, bad, sizeof hbad, cudaMemcpyDeviceToHost, s));
  GCOO_CALL_CUDA_GOTO(cudaStreamSynchronize(s));
  if (hbad < (unsigned long long)n) {
    double inv = 0.0;
    float invf = 0.0f;
    const size_t es = o->csr.dtype == GCOO_FLOAT64 ? sizeof inv : sizeof invf;
    void *dst = o->csr.dtype == GCOO_FLOAT64 ? (void *)&inv : (void *)&invf;
    GCOO_CALL_CUDA_GOTO(cudaMemcpy(dst, (char *)dinv + hbad * es, es, cudaMemcpyDeviceToHost));
    *bad_row = (int64_t)hbad;
    *bad_value = 1.0 / (o->csr.dtype == GCOO_FLOAT64 ? inv : (double)invf);
  }
done:
  cudaFree(bad);
  if (prev != A->ctx->device) (void)cudaSetDevice(prev);
  return st;
}

extern "C" gcoo_status gcoo__cuda_pcg(gcoo_ctx ctx, gcoo__pcg_device *a) {
  int prev = 0;
  GCOO_CALL_CUDA(cudaGetDevice(&prev));
  if (prev != ctx->device) GCOO_CALL_CUDA(cudaSetDevice(ctx->device));
  gcoo_status st = a->dtype == GCOO_FLOAT64 ? pcg_run<double>(ctx, a) : pcg_run<float>(ctx, a);
  if (prev != ctx->device) (void)cudaSetDevice(prev);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

extern "C" void gcoo__cuda_bcg_destroy(gcoo__bcg_device *h) {
  if (!h) return;
  for (int s = 0; s < kBcgRing; s++) {
    if (h->snap_ev[s]) cudaEventDestroy(h->snap_ev[s]);
    for (int m = 0; m < kBcgMarks; m++)
      if (h->marks[s][m]) cudaEventDestroy(h->marks[s][m]);
  }
  if (h->snap) cudaFreeHost(h->snap);
  cudaFree(h->dmem);
  cudaFree(h->red);
  cudaFree(h->coef);
  cudaFree(h->partial);
  cudaFree(h->fpartial);
  (void)cudaGetLastError();
  free(h);
}

// ---- the fused passes (kernels/solver/bcg_fused.cuh) ------------------------------------------------

// Blocks of a fused kernel: as many as fit on the device at once with its dynamic shared memory
// (one wave: every block gets the same rows), fewer when there are fewer tiles.
template <typename K>
static gcoo_status wave_blocks(K kernel, size_t smem, int64_t n, int sms, int *grid) {
  int per_sm = 0;
  GCOO_CALL_CUDA(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  GCOO_CALL_CUDA(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kFusedThreads, smem));
  int64_t g = (int64_t)(per_sm > 0 ? per_sm : 1) * sms;
  const int64_t tiles = (n + kTile - 1) / kTile;
  if (g > tiles) g = tiles;
  *grid = (int)(g < 1 ? 1 : g);
  return GCOO_SUCCESS;
}

// The fused kernels' variants (kernels/solver/bcg_fused.cuh), for benchmarks and tests; the defaults
// are the forms measured fastest (fused_shape<T, K>: per element type and width; the environment
// is read once, at set-up):
//   GCOO_BCG_STAGES="G,U,D"  pipeline stages of gram2 (2 or 3), update (2 or 3), direction (3
//                            or 4); default "2,2,3" for double K = 32, "3,2,3" for double
//                            K = 16, "3,3,4" otherwise
//   GCOO_BCG_GRAM2=async|async16|regs  gram2's copies: cp.async of elements, of 16 bytes (the
//                            default for double K = 32), or a register prefetch of one tile
//   GCOO_BCG_W_IN_R=0|1      update: W staged over R's tile (one tile less: at 2 stages 72.5 KiB,
//                            three blocks an SM at k = 32 double); default 0
struct fused_variant {
  int gram2_form, gram2_stages, update_stages, direction_stages, w_in_r;
};

// A 0/1 switch from the environment: unset or empty keeps the default, anything but "0" or "1"
// is refused (a mistyped switch must not silently measure the other variant).
static gcoo_status env_switch(const char *name, int def, int *out) {
  *out = def;
  const char *e = getenv(name);
  if (!e || !*e) return GCOO_SUCCESS;
  GCOO_CHECK(!strcmp(e, "0") || !strcmp(e, "1"), GCOO_ERR_INVALID_ARG,
             "%s=\"%s\": want 0 or 1 (default %d here)", name, e, def);
  *out = e[0] == '1';
  return GCOO_SUCCESS;
}

template <typename T, int K>
static gcoo_status fused_variant_from_env(fused_variant *v) {
  typedef fused_shape<T, K> F;
  v->gram2_form = F::GRAM2_FORM;
  v->gram2_stages = F::GRAM2_STAGES;
  v->update_stages = F::UPDATE_STAGES;
  v->direction_stages = F::DIRECTION_STAGES;
  v->w_in_r = 0;
  const char *st = getenv("GCOO_BCG_STAGES");
  if (st && *st) {
    char tail = 0;
    const int got = sscanf(st, "%d,%d,%d%c", &v->gram2_stages, &v->update_stages,
                           &v->direction_stages, &tail);
    GCOO_CHECK(got == 3 && (v->gram2_stages == 2 || v->gram2_stages == 3) &&
                   (v->update_stages == 2 || v->update_stages == 3) &&
                   (v->direction_stages == 3 || v->direction_stages == 4),
               GCOO_ERR_INVALID_ARG,
               "GCOO_BCG_STAGES=\"%s\": want \"G,U,D\" with G, U in {2, 3} and D in {3, 4} "
               "(the stages of gram2, update, direction; default %d,%d,%d here)",
               st, F::GRAM2_STAGES, F::UPDATE_STAGES, F::DIRECTION_STAGES);
  }
  const char *g2 = getenv("GCOO_BCG_GRAM2");
  if (g2 && *g2) {
    v->gram2_form = !strcmp(g2, "async")     ? kGram2Async
                    : !strcmp(g2, "async16") ? kGram2Async16
                    : !strcmp(g2, "regs")    ? kGram2Regs
                                             : -1;
    GCOO_CHECK(v->gram2_form >= 0, GCOO_ERR_INVALID_ARG,
               "GCOO_BCG_GRAM2=\"%s\": want async, async16 or regs (default %s here)", g2,
               F::GRAM2_FORM == kGram2Async16 ? "async16" : "async");
  }
  return env_switch("GCOO_BCG_W_IN_R", 0, &v->w_in_r);
}

// The fused kernels' types, whatever their variant's template arguments.
template <typename T>
struct fused_fn {
  typedef void (*gram2)(int64_t, const T *, int64_t, const T *, int64_t, const T *, int64_t,
                        double *);
  typedef void (*update)(int64_t, const T *, int64_t, const T *, int64_t, const T *, T *, int64_t,
                         T *, int64_t, const T *, T *, int64_t, double *);
  typedef void (*direction)(int64_t, const T *, int64_t, const T *, T *, int64_t, double *);
};

template <typename T, int K>
static typename fused_fn<T>::gram2 pick_gram2(const fused_variant &v, size_t *smem) {
  typedef fused_shape<T, K> F;
  if (v.gram2_form == kGram2Regs) {
    *smem = F::gram2_bytes(1);
    return bcg_fused_gram2<T, K, kGram2Regs>;
  }
  *smem = F::gram2_bytes(v.gram2_stages);
  if (v.gram2_form == kGram2Async16)
    return v.gram2_stages == 2 ? bcg_fused_gram2<T, K, kGram2Async16, 2>
                               : bcg_fused_gram2<T, K, kGram2Async16, 3>;
  return v.gram2_stages == 2 ? bcg_fused_gram2<T, K, kGram2Async, 2>
                             : bcg_fused_gram2<T, K, kGram2Async, 3>;
}

template <typename T, int K, bool TC>
static void pick_updates(gcoo__bcg_device *h, const fused_variant &v) {
  typedef fused_shape<T, K> F;
  h->fsmem[1] = F::update_bytes(v.update_stages, v.w_in_r);
  h->fkern[1] = (void *)(v.w_in_r ? (v.update_stages == 2 ? bcg_fused_update<T, K, TC, 2, true>
                                                          : bcg_fused_update<T, K, TC, 3, true>)
                                  : (v.update_stages == 2 ? bcg_fused_update<T, K, TC, 2>
                                                          : bcg_fused_update<T, K, TC, 3>));
  h->fsmem[2] = F::direction_bytes(v.direction_stages);
  h->fkern[2] = (void *)(v.direction_stages == 3 ? bcg_fused_direction<T, K, TC, 3>
                                                 : bcg_fused_direction<T, K, TC, 4>);
}

// The kernels of this solve and their grids. h->mma is only set where update_mma<T, K>::on, so
// the TC = true kernels exist where it is true.
template <typename T, int K>
static gcoo_status fused_grids(gcoo__bcg_device *h, int64_t n, int sms) {
  fused_variant v;
  GCOO_CALL((fused_variant_from_env<T, K>(&v)));
  h->fkern[0] = (void *)pick_gram2<T, K>(v, &h->fsmem[0]);
  if (h->mma)
    pick_updates<T, K, update_mma<T, K>::on>(h, v);
  else
    pick_updates<T, K, false>(h, v);
  GCOO_CALL(
      wave_blocks((typename fused_fn<T>::gram2)h->fkern[0], h->fsmem[0], n, sms, &h->fgrid[0]));
  GCOO_CALL(
      wave_blocks((typename fused_fn<T>::update)h->fkern[1], h->fsmem[1], n, sms, &h->fgrid[1]));
  GCOO_CALL(
      wave_blocks((typename fused_fn<T>::direction)h->fkern[2], h->fsmem[2], n, sms, &h->fgrid[2]));
  return GCOO_SUCCESS;
}

// The element type and width as template arguments: fn<T, K>(args...) for k in {8, 16, 32}.
#define GCOO_FUSED_DISPATCH(dt, k, fn, ...)                           \
  ((dt) == GCOO_FLOAT64 ? ((k) == 8    ? fn<double, 8>(__VA_ARGS__)   \
                           : (k) == 16 ? fn<double, 16>(__VA_ARGS__)  \
                                       : fn<double, 32>(__VA_ARGS__)) \
                        : ((k) == 8    ? fn<float, 8>(__VA_ARGS__)    \
                           : (k) == 16 ? fn<float, 16>(__VA_ARGS__)   \
                                       : fn<float, 32>(__VA_ARGS__)))

// Threads of the one-block k x k kernels (kernels/solver/bcg_kernels.cuh: any block size; their time is
// latency: a barrier or more a row or column): GCOO_BCG_KK_THREADS = 32, 64, 128, 256 (the
// default) or 512, for measurements.
static gcoo_status kk_threads_from_env(int *threads) {
  *threads = 256;
  const char *e = getenv("GCOO_BCG_KK_THREADS");
  if (!e || !*e) return GCOO_SUCCESS;
  *threads = !strcmp(e, "32")    ? 32
             : !strcmp(e, "64")  ? 64
             : !strcmp(e, "128") ? 128
             : !strcmp(e, "256") ? 256
             : !strcmp(e, "512") ? 512
                                 : 0;
  GCOO_CHECK(*threads > 0, GCOO_ERR_INVALID_ARG,
             "GCOO_BCG_KK_THREADS=\"%s\": want 32, 64, 128, 256 (default) or 512", e);
  return GCOO_SUCCESS;
}

static gcoo_status fused_setup(gcoo__bcg_device *h, int64_t n) {
  const int64_t k = h->k;
  // k = 8: 2.2x faster than the GEMM path (H200, Poisson 10^6 rows, float64); k = 32
  // with CUDA-core K x K sums: 1.3x slower (7168 FP64 FMAs a row), hence the tensor-core sums of
  // double (gram_mma); float at k = 32 keeps the GEMM path (its sums would run on FP64 cores).
  h->fused = k == 8 || k == 16 ? 1 : k == 32 ? (h->dt == GCOO_FLOAT64 ? 1 : 2) : 0;
  if (!h->fused) return GCOO_SUCCESS;
  // double k = 16, 32: X, R, W updated on the FP64 tensor cores (tile_mma); GCOO_BCG_MMA=0 keeps
  // the CUDA-core updates, for comparisons
  const char *mz = getenv("GCOO_BCG_MMA");
  h->mma = h->dt == GCOO_FLOAT64 && (k == 16 || k == 32) && !(mz && !strcmp(mz, "0"));
  int sms = 0;
  GCOO_CALL_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, h->ctx->device));
  GCOO_CALL(GCOO_FUSED_DISPATCH(h->dt, k, fused_grids, h, n, sms));
  int gmax = h->fgrid[0];
  for (int i = 1; i < 3; i++) gmax = h->fgrid[i] > gmax ? h->fgrid[i] : gmax;
  GCOO_CALL_CUDA(cudaMalloc((void **)&h->fpartial, sizeof(double) * (size_t)gmax * 2 * k * k));
  return GCOO_SUCCESS;
}

// The per-block partials (grid x count) summed into red[0, count) in the solver's element type.
template <typename T>
static gcoo_status fused_finish(gcoo__bcg_device *h, int grid, int64_t count) {
  gcoo_colsum::column_totals<T>
      <<<gcoo_colsum::totals_grid(count), 256, 0, bcg_stream(h)>>>(h->fpartial, grid, count,
                                                                   (T *)h->red, 1);
  GCOO_CHECK_LAUNCH("block CG partial sums");
  return GCOO_SUCCESS;
}

template <typename T, int K>
static gcoo_status gram2_t(gcoo__bcg_device *h, const gcoo_dense *P, const gcoo_dense *Q,
                           const gcoo_dense *R) {
  const typename fused_fn<T>::gram2 kernel = (typename fused_fn<T>::gram2)h->fkern[0];
  kernel<<<h->fgrid[0], kFusedThreads, h->fsmem[0], bcg_stream(h)>>>(P->nrows, (const T *)P->data,
                                                                     P->ld, (const T *)Q->data,
                                                                     Q->ld, (const T *)R->data,
                                                                     R->ld, h->fpartial);
  GCOO_CHECK_LAUNCH("block CG [P^T Q | P^T R]");
  GCOO_CALL(fused_finish<T>(h, h->fgrid[0], 2 * K * K));
  return GCOO_SUCCESS;
}

template <typename T, int K>
static gcoo_status update_t(gcoo__bcg_device *h, const gcoo_dense *P, const gcoo_dense *Q,
                            gcoo_dense *X, gcoo_dense *R, const gcoo_dense *dinv, gcoo_dense *W) {
  const typename fused_fn<T>::update kernel = (typename fused_fn<T>::update)h->fkern[1];
  kernel<<<h->fgrid[1], kFusedThreads, h->fsmem[1], bcg_stream(h)>>>(P->nrows, (const T *)P->data,
                                                                     P->ld, (const T *)Q->data,
                                                                     Q->ld,
                                                                     (const T *)
                                                                         gcoo__cuda_bcg_coef(h, 0),
                                                                     (T *)X->data, X->ld,
                                                                     (T *)R->data, R->ld,
                                                                     dinv ? (const T *)dinv->data
                                                                          : nullptr,
                                                                     (T *)W->data, W->ld,
                                                                     h->fpartial);
  GCOO_CHECK_LAUNCH("block CG fused update");
  GCOO_CALL(fused_finish<T>(h, h->fgrid[1], K + K * K));
  return GCOO_SUCCESS;
}

template <typename T, int K>
static gcoo_status direction_t(gcoo__bcg_device *h, const gcoo_dense *P, gcoo_dense *W) {
  const typename fused_fn<T>::direction kernel = (typename fused_fn<T>::direction)h->fkern[2];
  kernel<<<h->fgrid[2], kFusedThreads, h->fsmem[2], bcg_stream(h)>>>(P->nrows, (const T *)P->data,
                                                                     P->ld,
                                                                     (const T *)
                                                                         gcoo__cuda_bcg_coef(h, 1),
                                                                     (T *)W->data, W->ld,
                                                                     h->fpartial);
  GCOO_CHECK_LAUNCH("block CG fused direction");
  GCOO_CALL(fused_finish<T>(h, h->fgrid[2], K * K));
  return GCOO_SUCCESS;
}

extern "C" int gcoo__cuda_bcg_fused(const gcoo__bcg_device *h) { return h->fused; }

extern "C" gcoo_status gcoo__cuda_bcg_gram2(gcoo__bcg_device *h, const gcoo_dense *P,
                                            const gcoo_dense *Q, const gcoo_dense *R) {
  GCOO_CHECK(h->fused && P->ncols == h->k, GCOO_ERR_INTERNAL, "no fused passes for k = %lld",
             (long long)P->ncols);
  GCOO_CALL(GCOO_FUSED_DISPATCH(h->dt, h->k, gram2_t, h, P, Q, R));
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo__cuda_bcg_update(gcoo__bcg_device *h, const gcoo_dense *P,
                                             const gcoo_dense *Q, gcoo_dense *X, gcoo_dense *R,
                                             const gcoo_dense *dinv, gcoo_dense *W) {
  GCOO_CHECK(h->fused && P->ncols == h->k, GCOO_ERR_INTERNAL, "no fused passes for k = %lld",
             (long long)P->ncols);
  GCOO_CALL(GCOO_FUSED_DISPATCH(h->dt, h->k, update_t, h, P, Q, X, R, dinv, W));
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo__cuda_bcg_direction(gcoo__bcg_device *h, const gcoo_dense *P,
                                                gcoo_dense *W) {
  GCOO_CHECK(h->fused && P->ncols == h->k, GCOO_ERR_INTERNAL, "no fused passes for k = %lld",
             (long long)P->ncols);
  GCOO_CALL(GCOO_FUSED_DISPATCH(h->dt, h->k, direction_t, h, P, W));
  return GCOO_SUCCESS;
}

// The W form (bcg_arrays::wform): on by default for double, off for float (its rounding
// errors, grown by W's conditioning, would reach the coefficients' precision);
// GCOO_BCG_WFORM=0|1 decides otherwise, GCOO_BCG_WFORM_RATIO (0 < ratio <= 1, default 1e-6:
// the Gram products' rounding grown at most ~10^6-fold, ~1e-10 relative in double) sets the
// pivot ratio below which an iteration's P is formed explicitly.
static gcoo_status wform_from_env(gcoo__bcg_device *h) {
  h->a.wform_ratio = 1e-6;
  GCOO_CALL(env_switch("GCOO_BCG_WFORM", h->dt == GCOO_FLOAT64, &h->a.wform));
  const char *r = getenv("GCOO_BCG_WFORM_RATIO");
  if (r && *r) {
    char *end = nullptr;
    const double v = strtod(r, &end);
    GCOO_CHECK(end != r && !*end && v > 0.0 && v <= 1.0, GCOO_ERR_INVALID_ARG,
               "GCOO_BCG_WFORM_RATIO=\"%s\": want a number in (0, 1] (default 1e-6)", r);
    h->a.wform_ratio = v;
  }
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo__cuda_bcg_create(gcoo_ctx ctx, gcoo_dtype dt, int64_t n, int64_t k,
                                             double rtol, double rank_tol, int64_t maxit,
                                             int history, gcoo__bcg_device **out) {
  gcoo_status st = GCOO_SUCCESS;
  gcoo__bcg_device *h = (gcoo__bcg_device *)calloc(1, sizeof *h);
  GCOO_CHECK(h != nullptr, GCOO_ERR_NO_MEMORY, "block CG device state");
  h->ctx = ctx;
  h->dt = dt;
  h->k = k;
  h->maxit = maxit;
  const size_t es = gcoo_dtype_size(dt), kk = (size_t)(k * k);
  const size_t nd = 2 * (size_t)k + 5 * kk + (history ? (size_t)(maxit + 1) * k : 0);
  char *p = nullptr;
  // enough blocks for the loads in flight that a streaming pass needs (1024 rows a block or
  // more; 245 blocks of 4096 rows ran the 10^6 x 32 pass at 1.8 TB/s on an H200)
  int64_t nb = (n + 1023) / 1024;
  h->nblocks = nb < 1 ? 1 : nb > 1024 ? 1024 : nb;
  GCOO_CALL_CUDA_GOTO(cudaMalloc(&h->dmem, sizeof(bcg_state) + nd * sizeof(double) +
                                               (size_t)k * (sizeof(int64_t) + sizeof(int))));
  GCOO_CALL_CUDA_GOTO(cudaMalloc(&h->red, es * (2 * kk + k)));
  GCOO_CALL_CUDA_GOTO(cudaMalloc(&h->coef, es * 3 * kk));
  GCOO_CALL_CUDA_GOTO(cudaMalloc((void **)&h->partial, sizeof(double) * h->nblocks * k));
  GCOO_CALL_CUDA_GOTO(cudaMallocHost((void **)&h->snap, kBcgRing * sizeof(bcg_state)));
  GCOO_GOTO(kk_threads_from_env(&h->kk_threads));
  GCOO_GOTO(env_switch("GCOO_BCG_PHASE_MARKS", 1, &h->phase_marks));
  GCOO_GOTO(wform_from_env(h));
  GCOO_GOTO(fused_setup(h, n));
  {
    int sms = 0;
    GCOO_CALL_CUDA_GOTO(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, ctx->device));
    const int64_t rows = kTransformValues / k, tiles = (n + rows - 1) / rows;
    h->tgrid = (int)(tiles < 2 * (int64_t)sms ? (tiles < 1 ? 1 : tiles) : 2 * (int64_t)sms);
  }
  for (int s = 0; s < kBcgRing; s++) {
    GCOO_CALL_CUDA_GOTO(cudaEventCreateWithFlags(&h->snap_ev[s], cudaEventDisableTiming));
    for (int m = 0; m < kBcgMarks; m++) GCOO_CALL_CUDA_GOTO(cudaEventCreate(&h->marks[s][m]));
  }
  p = (char *)h->dmem;
  h->a.k = k;
  h->a.rtol = rtol;
  h->a.rank_tol = rank_tol;
  h->a.st = (bcg_state *)p;
  p += sizeof(bcg_state);
  h->a.b2 = (double *)p;
  h->a.rel = h->a.b2 + k;
  h->a.L = h->a.rel + k;
  h->a.S = h->a.L + kk;
  h->a.Lp = h->a.S + kk;
  h->a.Rinv = h->a.Lp + kk;
  h->a.Y = h->a.Rinv + kk;
  h->a.hist = history ? h->a.Y + kk : nullptr;
  p += nd * sizeof(double);
  h->a.col_its = (int64_t *)p;
  h->a.piv = (int *)(h->a.col_its + k);
  {
    bcg_state s0;
    memset(&s0, 0, sizeof s0);
    s0.rank = (int)k;
    s0.min_rank = (int)k;
    cudaStream_t s = (cudaStream_t)ctx->stream;
    GCOO_CALL_CUDA_GOTO(cudaMemcpyAsync(h->a.st, &s0, sizeof s0, cudaMemcpyHostToDevice, s));
    GCOO_CALL_CUDA_GOTO(cudaMemsetAsync(h->a.col_its, 0xff, sizeof(int64_t) * k, s)); /* -1 */
    if (history)
      GCOO_CALL_CUDA_GOTO(cudaMemsetAsync(h->a.hist, 0, sizeof(double) * (maxit + 1) * k, s));
    GCOO_CALL_CUDA_GOTO(cudaStreamSynchronize(s));
  }
  *out = h;
  return GCOO_SUCCESS;
done:
  gcoo__cuda_bcg_destroy(h);
  return st;
}

extern "C" void *gcoo__cuda_bcg_red(gcoo__bcg_device *h) { return h->red; }
extern "C" void *gcoo__cuda_bcg_coef(gcoo__bcg_device *h, int which) {
  return (char *)h->coef + (size_t)which * h->k * h->k * gcoo_dtype_size(h->dt);
}

template <typename T>
static gcoo_status bcg_step_t(gcoo__bcg_device *h, gcoo__bcg_step step) {
  cudaStream_t s = bcg_stream(h);
  const T *red = (const T *)h->red;
  T *alpha = (T *)gcoo__cuda_bcg_coef(h, 0), *beta = (T *)gcoo__cuda_bcg_coef(h, 1),
    *Tm = (T *)gcoo__cuda_bcg_coef(h, 2);
  const T *Tw = h->a.wform ? Tm : nullptr; // the W form: T in the k x k products
  const int nt = h->kk_threads;
  switch (step) {
    case GCOO__BCG_STORE_B2: bcg_store_b2<T><<<1, nt, 0, s>>>(h->a, red); break;
    case GCOO__BCG_CHECK0: bcg_check<T><<<1, nt, 0, s>>>(h->a, red, beta, 1, Tw); break;
    case GCOO__BCG_ALPHA: bcg_alpha<T><<<1, nt, 0, s>>>(h->a, red, alpha, Tw); break;
    case GCOO__BCG_CHECK: bcg_check<T><<<1, nt, 0, s>>>(h->a, red, beta, 0, Tw); break;
    case GCOO__BCG_ORTH: bcg_orth<T><<<1, nt, 0, s>>>(h->a, red, Tm); break;
  }
  GCOO_CHECK_LAUNCH("block CG k x k step");
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo__cuda_bcg_step(gcoo__bcg_device *h, gcoo__bcg_step step) {
  GCOO_CALL(h->dt == GCOO_FLOAT64 ? bcg_step_t<double>(h, step) : bcg_step_t<float>(h, step));
  return GCOO_SUCCESS;
}

extern "C" int gcoo__cuda_bcg_wform(const gcoo__bcg_device *h) { return h->a.wform; }

template <typename T>
static gcoo_status transform_t(gcoo__bcg_device *h, gcoo_dense *W) {
  bcg_transform<T><<<h->tgrid, 256, 0, bcg_stream(h)>>>(h->a, W->nrows, (T *)W->data, W->ld,
                                                        (const T *)gcoo__cuda_bcg_coef(h, 2));
  GCOO_CHECK_LAUNCH("block CG explicit search block");
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo__cuda_bcg_transform(gcoo__bcg_device *h, gcoo_dense *W) {
  GCOO_CHECK(W->ncols == h->k && W->layout == GCOO_ROW_MAJOR, GCOO_ERR_INTERNAL,
             "explicit search block: W is %lld columns, the solve has %lld", (long long)W->ncols,
             (long long)h->k);
  GCOO_CALL(h->dt == GCOO_FLOAT64 ? transform_t<double>(h, W) : transform_t<float>(h, W));
  return GCOO_SUCCESS;
}

template <typename T>
static gcoo_status precond_norms_t(gcoo__bcg_device *h, const gcoo_dense *dinv, const gcoo_dense *R,
                                   gcoo_dense *W) {
  cudaStream_t s = bcg_stream(h);
  const int64_t n = R->nrows, k = R->ncols;
  const int nb = (int)h->nblocks;
  const precond_norms_op<T> f = {(const T *)R->data, R->ld, dinv ? (const T *)dinv->data : nullptr,
                                 (T *)W->data, W->ld};
  gcoo_colsum::column_partials<<<nb, 256, 256 * sizeof(double), s>>>(n, k, f, h->partial);
  GCOO_CHECK_LAUNCH("preconditioner and residual norms");
  gcoo_colsum::column_totals<T>
      <<<gcoo_colsum::totals_grid(k), 256, 0, s>>>(h->partial, nb, k, (T *)h->red, 1);
  GCOO_CHECK_LAUNCH("residual norms");
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo__cuda_bcg_precond_norms(gcoo__bcg_device *h, const gcoo_dense *dinv,
                                                    const gcoo_dense *R, gcoo_dense *W) {
  GCOO_CHECK(R->nrows <= h->nblocks * 1024 || h->nblocks == 1024, GCOO_ERR_INTERNAL,
             "block CG state made for fewer rows");
  GCOO_CALL(h->dt == GCOO_FLOAT64 ? precond_norms_t<double>(h, dinv, R, W)
                                  : precond_norms_t<float>(h, dinv, R, W));
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo__cuda_bcg_mark(gcoo__bcg_device *h, int64_t it, int phase) {
  const int slot = (int)(it % kBcgRing);
  int m = h->nmarks[slot];
  if (phase < 0) m = 0; // start of the iteration
  if (m >= kBcgMarks || (!h->phase_marks && phase >= 0)) return GCOO_SUCCESS;
  GCOO_CALL_CUDA(cudaEventRecord(h->marks[slot][m], bcg_stream(h)));
  h->mark_phase[slot][m] = phase;
  h->nmarks[slot] = m + 1;
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo__cuda_bcg_post(gcoo__bcg_device *h, int64_t it) {
  const int slot = (int)(it % kBcgRing);
  cudaStream_t s = bcg_stream(h);
  GCOO_CALL_CUDA(
      cudaMemcpyAsync(&h->snap[slot], h->a.st, sizeof(bcg_state), cudaMemcpyDeviceToHost, s));
  GCOO_CALL_CUDA(cudaEventRecord(h->snap_ev[slot], s));
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo__cuda_bcg_wait(gcoo__bcg_device *h, int64_t it, int *done) {
  const int slot = (int)(it % kBcgRing);
  GCOO_CALL_CUDA(cudaEventSynchronize(h->snap_ev[slot]));
  for (int m = 1; m < h->nmarks[slot]; m++) {
    float ms = 0;
    GCOO_CALL_CUDA(cudaEventElapsedTime(&ms, h->marks[slot][m - 1], h->marks[slot][m]));
    int ph = h->mark_phase[slot][m];
    if (ph >= 0 && ph < GCOO__BCG_PHASES) h->phase_s[ph] += 1e-3 * ms;
  }
  h->nmarks[slot] = 0;
  *done = h->snap[slot].done;
  return GCOO_SUCCESS;
}

extern "C" gcoo_status gcoo__cuda_bcg_result(gcoo__bcg_device *h, gcoo__bcg_outcome *o) {
  cudaStream_t s = bcg_stream(h);
  bcg_state fin;
  GCOO_CALL_CUDA(cudaMemcpyAsync(&fin, h->a.st, sizeof fin, cudaMemcpyDeviceToHost, s));
  GCOO_CALL_CUDA(cudaMemcpyAsync(o->column_iterations, h->a.col_its, sizeof(int64_t) * h->k,
                                 cudaMemcpyDeviceToHost, s));
  GCOO_CALL_CUDA(
      cudaMemcpyAsync(o->residual, h->a.rel, sizeof(double) * h->k, cudaMemcpyDeviceToHost, s));
  GCOO_CALL_CUDA(cudaStreamSynchronize(s));
  for (int slot = 0; slot < kBcgRing; slot++) { // iterations queued after the last wait
    for (int m = 1; m < h->nmarks[slot]; m++) {
      float ms = 0;
      GCOO_CALL_CUDA(cudaEventElapsedTime(&ms, h->marks[slot][m - 1], h->marks[slot][m]));
      int ph = h->mark_phase[slot][m];
      if (ph >= 0 && ph < GCOO__BCG_PHASES) h->phase_s[ph] += 1e-3 * ms;
    }
    h->nmarks[slot] = 0;
  }
  if (o->history && h->a.hist)
    GCOO_CALL_CUDA(cudaMemcpy(o->history, h->a.hist, sizeof(double) * (fin.it + 1) * h->k,
                              cudaMemcpyDeviceToHost));
  o->iterations = fin.it;
  o->converged = fin.converged;
  o->breakdown = fin.breakdown;
  o->bad_pivot = fin.bad_pivot;
  o->min_rank = fin.min_rank;
  o->explicit_blocks = fin.explicit_blocks;
  for (int p = 0; p < GCOO__BCG_PHASES; p++) o->phase_seconds[p] = h->phase_s[p];
  return GCOO_SUCCESS;
}
