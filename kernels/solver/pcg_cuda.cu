// SPDX-License-Identifier: MIT
// kernels/solver/pcg_cuda.cu: the device-resident PCG of one right-hand side on one rank, and the
// inverse diagonal of Jacobi from the operator's device CSR (solver/ksp_bcg.c's device path).
//
// Jacobi PCG (gcoo__cuda_pcg) in three fused kernels per iteration, every scalar kept on the
// device:
//   spmv_dot   q = A p and p.q; its last block forms alpha = (r.z) / (p.q)
//   update     x += alpha p, r -= alpha q, z = D^-1 r, r.r and r.z in one pass; its last block
//              counts the iteration, records ||r|| / ||b||, sets `done` on convergence (or at
//              maxit, or on a breakdown) and forms beta
//   direction  p = z + beta p
// Every kernel returns at once while `done` is set, so a CUDA graph of G iterations replayed
// past convergence changes nothing: x, the count and the history are those of the converged
// iteration, exactly. The host keeps two replays in flight and reads the state of the older one
// (an asynchronous copy) before queueing the next: no round trip stalls the GPU.
// Partial sums go through per-block slots summed in a fixed order by the last block to finish
// (threadfence + ticket): results are reproducible run to run.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <math.h>
#include <string.h>

#include "backend/backend_cuda_impl.h"
#include "solver_cuda.h"

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
  GCOO_CALL(gcoo__cuda_alloc(&buf.vec, sizeof(T) * (size_t)(4 * (n > 0 ? n : 1)), "PCG vectors"));
  GCOO_CALL(gcoo__cuda_alloc(&buf.slots, sizeof(double) * 3 * kMaxBlocks, "PCG partial sums"));
  GCOO_CALL(gcoo__cuda_alloc(&buf.st, sizeof(pcg_state), "PCG state"));
  if (a->history)
    GCOO_CALL(gcoo__cuda_alloc(&buf.dhist, sizeof(double) * (size_t)(a->maxit + 1),
                               "PCG residual history"));
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

} // namespace

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
  gcoo__cuda_device_guard g;
  GCOO_CALL(gcoo__cuda_device_enter(A->ctx, &g));
  unsigned long long *bad = nullptr, hbad = ~0ull;
  const int grid = grid_for(n, kThreads);
  GCOO_GOTO(gcoo__cuda_alloc(&bad, sizeof *bad, "inverse diagonal's bad row"));
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
  if (bad) (void)cudaFree(bad);
  gcoo__cuda_device_leave(&g);
  return st;
}

extern "C" gcoo_status gcoo__cuda_pcg(gcoo_ctx ctx, gcoo__pcg_device *a) {
  gcoo__cuda_device_guard g;
  GCOO_CALL(gcoo__cuda_device_enter(ctx, &g));
  gcoo_status st = a->dtype == GCOO_FLOAT64 ? pcg_run<double>(ctx, a) : pcg_run<float>(ctx, a);
  gcoo__cuda_device_leave(&g);
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}
