# bench/torch_cg.py: the baseline a Python user writes instead of gcoo's solver: Jacobi-
# preconditioned CG in PyTorch (torch.sparse CSR, i.e. cuSPARSE), one right-hand side, or k of
# them in lockstep (k independent CGs on one n x k block, no block coupling). Written the plain
# way on purpose. Same problem and stopping rule as `gcoo_dist solve`: every column reaches
# ||r_j|| <= tol ||b_j|| (recursive residual), float64, X0 = 0.
#
#   python3 bench/torch_cg.py (--grid n | --mtx FILE.mtx[.gz]) --k K [--tol T] [--maxit M]
# prints one JSON line: iterations, seconds (the CG loop, warm), ms per iteration, max true
# relative residual.
import argparse, json, time
import numpy as np
import torch

ap = argparse.ArgumentParser()
ap.add_argument("--grid", type=int)
ap.add_argument("--mtx")
ap.add_argument("--k", type=int, default=1)
ap.add_argument("--tol", type=float, default=1e-8)
ap.add_argument("--maxit", type=int, default=20000)
a = ap.parse_args()
dev = "cuda"
dt = torch.float64

if a.mtx:
    import scipy.io, scipy.sparse
    M = scipy.sparse.csr_matrix(scipy.io.mmread(a.mtx)).astype(np.float64)
    M.sum_duplicates(); M.sort_indices()
    A = torch.sparse_csr_tensor(torch.from_numpy(M.indptr).long(), torch.from_numpy(M.indices).long(),
                                torch.from_numpy(M.data), M.shape, dtype=dt).to(dev)
    dinv = torch.from_numpy(1.0 / M.diagonal()).to(dev).reshape(-1, 1)
    name = a.mtx.split("/")[-1]
else:
    n = a.grid
    N = n ** 3
    idx = torch.arange(N, device=dev)
    i, j, l = idx // (n * n), (idx // n) % n, idx % n
    rows, cols, vals = [idx], [idx], [torch.full((N,), 6.0, dtype=dt, device=dev)]
    for d, c in ((n * n, i), (n, j), (1, l)):
        m = c > 0
        rows += [idx[m], idx[m] - d]; cols += [idx[m] - d, idx[m]]
        vals += [torch.full((int(m.sum()),), -1.0, dtype=dt, device=dev)] * 2
    A = torch.sparse_coo_tensor(torch.stack([torch.cat(rows), torch.cat(cols)]), torch.cat(vals),
                                (N, N)).coalesce().to_sparse_csr()
    dinv = torch.full((N, 1), 1.0 / 6.0, dtype=dt, device=dev)
    name = f"poisson3d-7 {n}^3"

def cg(B, tol, maxit):
    X = torch.zeros_like(B); R = B.clone(); Z = R * dinv; P = Z.clone()
    rz = (R * Z).sum(0); bn = B.norm(dim=0); it = 0
    while it < maxit:
        Q = A @ P
        alpha = rz / (P * Q).sum(0)
        X += P * alpha; R -= Q * alpha; it += 1
        if bool((R.norm(dim=0) <= tol * bn).all()): break
        Z = R * dinv; rz2 = (R * Z).sum(0); P = Z + P * (rz2 / rz); rz = rz2
    return X, it

torch.manual_seed(0)
B = torch.randn(A.shape[0], a.k, dtype=dt, device=dev)
cg(B, a.tol, 20)  # warm-up (cuSPARSE handles, allocator)
torch.cuda.synchronize(); t = time.perf_counter()
X, it = cg(B, a.tol, a.maxit)
torch.cuda.synchronize(); dt_s = time.perf_counter() - t
res = ((B - A @ X).norm(dim=0) / B.norm(dim=0)).max().item()
print(json.dumps({"solver": "torch", "matrix": name, "m": A.shape[0], "k": a.k, "iterations": it,
                  "seconds": dt_s, "ms_per_iteration": 1e3 * dt_s / max(it, 1),
                  "true_residual_max": res, "torch": torch.__version__}))
