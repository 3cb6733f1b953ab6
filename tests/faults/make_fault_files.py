#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# tests/faults/make_fault_files.py DIR [ROWS]: the inputs of the fault tests (run_fault.sh), in DIR:
#   good.h5     a random ROWS x ROWS CSR matrix (scipy/anndata layout), ~40 entries a row
#   index.h5    the same with 10 rows at 60 % of the matrix (rank 2 of 4 when split by nnz)
#               pointing at column ROWS + 5: a logically corrupt slab
#   nan.h5      the same rows holding NaN values
#   bytes.h5    the same rows' column indices overwritten on disk with 0xff bytes (-1 as int32):
#               a slab damaged below HDF5, as a bad disk or a torn write would leave it
#   good.mtx    the matrix as Matrix Market;  line.mtx  with line 1000 broken ("12 x 7")
# Needs numpy, scipy and h5py (/usr/bin/python3 on Debian).
import os
import sys

import h5py
import numpy as np
import scipy.sparse as sp

d = sys.argv[1]
n = int(sys.argv[2]) if len(sys.argv) > 2 else 4000
A = sp.random(n, n, density=40.0 / n, format="csr", random_state=np.random.RandomState(7),
              dtype=np.float64)
A.sort_indices()
bad_rows = range(int(0.6 * n), int(0.6 * n) + 10)


def write(path, indices, data):
    with h5py.File(os.path.join(d, path), "w") as f:
        f.attrs["encoding-type"] = "csr_matrix"
        f.attrs["encoding-version"] = "0.1.0"
        f.attrs["shape"] = np.array(A.shape, dtype=np.int64)
        f.create_dataset("indptr", data=A.indptr.astype(np.int64))
        f.create_dataset("indices", data=indices.astype(np.int32))
        f.create_dataset("data", data=data)


lo, hi = A.indptr[bad_rows[0]], A.indptr[bad_rows[-1] + 1]
write("good.h5", A.indices, A.data)
ind = A.indices.copy()
ind[lo:hi] = n + 5
write("index.h5", ind, A.data)
val = A.data.copy()
val[lo:hi] = np.nan
write("nan.h5", A.indices, val)
write("bytes.h5", A.indices, A.data)
with h5py.File(os.path.join(d, "bytes.h5"), "r") as f:
    off = f["indices"].id.get_offset()  # contiguous: raw bytes start here
with open(os.path.join(d, "bytes.h5"), "r+b") as f:
    f.seek(off + 4 * int(lo))
    f.write(b"\xff" * (4 * int(hi - lo)))

lines = ["%%MatrixMarket matrix coordinate real general", "%d %d %d" % (n, n, A.nnz)]
coo = A.tocoo()
lines += ["%d %d %.17g" % (i + 1, j + 1, v) for i, j, v in zip(coo.row, coo.col, coo.data)]
with open(os.path.join(d, "good.mtx"), "w") as f:
    f.write("\n".join(lines) + "\n")
lines[999] = "12 x 7"
with open(os.path.join(d, "line.mtx"), "w") as f:
    f.write("\n".join(lines) + "\n")
print("fault inputs in %s: %d x %d, %d entries, rows %d..%d damaged (entries %d..%d)"
      % (d, n, n, A.nnz, bad_rows[0], bad_rows[-1], lo, hi - 1))
