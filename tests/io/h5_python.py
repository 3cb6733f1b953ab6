#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# tests/io/h5_python.py: the Python side of the io tests, with h5py + numpy + scipy only.
#
#   h5_python.py write DIR   write HDF5 files the way scipy/h5py/anndata users do, each with the
#                            expected matrix in an independent text form (DIR/<name>.txt:
#                            canonical triplets; DIR/<name>.dense.txt: dense values), and the
#                            malformed files of the failure tests (DIR/bad.h5, ...)
#   h5_python.py verify DIR  read the files gcoo wrote (listed in DIR/manifest.txt by the tests:
#                            "sparse|dense FILE.h5 /object EXPECTED" or "mtx FILE.mtx - EXPECTED")
#                            with h5py and scipy, and compare them with the expected text files
#
# Exit status: 0 ok, 1 mismatch, 77 when h5py/scipy are missing (the test is then skipped).
import os
import sys

try:
    import numpy as np
    import h5py
    import scipy.io
    import scipy.sparse as sp
except ImportError as e:  # pragma: no cover
    print(f"h5_python.py: {e}: skipping", file=sys.stderr)
    sys.exit(77)

RNG = np.random.default_rng(20241130)


def canonical(A):
    """CSR with duplicates summed and columns sorted: the order the triplet files use."""
    A = sp.csr_matrix(A, dtype=np.float64)
    A.sum_duplicates()
    A.sort_indices()
    return A


def write_triplets(path, A):
    A = canonical(A).tocoo()
    with open(path, "w") as f:
        f.write(f"{A.shape[0]} {A.shape[1]} {A.nnz}\n")
        for i, j, v in zip(A.row, A.col, A.data):
            f.write(f"{i} {j} {float(v)!r}\n")


def write_dense_text(path, D):
    D = np.asarray(D, dtype=np.float64)
    if D.ndim == 1:
        D = D[:, None]
    with open(path, "w") as f:
        f.write(f"{D.shape[0]} {D.shape[1]}\n")
        for v in D.ravel():
            f.write(f"{float(v)!r}\n")


def random_sparse(m, n, density, dtype=np.float64, fmt="csr"):
    A = sp.random(m, n, density=density, format=fmt, dtype=np.float64, random_state=RNG)
    A.data = np.round(A.data * 8 - 4, 3)  # a few digits, some negative, no zeros
    A.data[A.data == 0] = 0.5
    A.eliminate_zeros()
    return A.astype(dtype)


def anndata_group(g, A, indptr_dtype=None, index_dtype=None):
    """What anndata's write_elem does for a scipy sparse matrix (strings as h5py str)."""
    g.attrs["encoding-type"] = "csr_matrix" if A.format == "csr" else "csc_matrix"
    g.attrs["encoding-version"] = "0.1.0"
    g.attrs["shape"] = A.shape
    g.create_dataset("data", data=A.data)
    g.create_dataset("indices", data=A.indices.astype(index_dtype or A.indices.dtype))
    g.create_dataset("indptr", data=A.indptr.astype(indptr_dtype or A.indptr.dtype))


def gcoo_arrays(A, p):
    """GCOO of A: groups of p columns, row-then-column order inside each group."""
    A = canonical(A).tocoo()
    n = A.shape[1]
    g = (n + p - 1) // p
    grp = A.col // p
    order = np.lexsort((A.col, A.row, grp))  # by group, then row, then column
    rows, cols, vals = A.row[order], A.col[order], A.data[order]
    counts = np.bincount(grp, minlength=g)[:g] if g else np.zeros(0, np.int64)
    gidx = np.zeros(g + 1, np.int64)
    np.cumsum(counts, out=gidx[1:])
    return rows.astype(np.int32), cols.astype(np.int32), vals, gidx, counts.astype(np.int64)


def gcoo_group(g, A, p, values_dtype=np.float64):
    rows, cols, vals, gidx, counts = gcoo_arrays(A, p)
    g.attrs["encoding-type"] = "gcoo_matrix"
    g.attrs["encoding-version"] = "0.1.0"
    g.attrs["shape"] = np.array(A.shape, dtype=np.int64)
    g.attrs["p"] = np.int64(p)
    g.create_dataset("rows", data=rows)
    g.create_dataset("cols", data=cols)
    g.create_dataset("values", data=vals.astype(values_dtype))
    g.create_dataset("gIdxes", data=gidx)
    g.create_dataset("nnzPerGroup", data=counts)


def write_good(d):
    # 1. an anndata file: X is CSR float32 with int32 indptr, vlen UTF-8 attributes
    X = random_sparse(40, 23, 0.15, np.float32)
    counts = random_sparse(40, 23, 0.2, np.float64, "csc")
    with h5py.File(f"{d}/anndata.h5", "w") as f:
        f.attrs["encoding-type"] = "anndata"
        f.attrs["encoding-version"] = "0.1.0"
        anndata_group(f.create_group("X"), X, indptr_dtype=np.int32, index_dtype=np.int32)
        obs = f.create_group("obs")
        obs.attrs["encoding-type"] = "dataframe"
        obs.create_dataset("_index", data=np.array([f"cell{i}" for i in range(40)], dtype="S"))
        f.create_group("var")
        anndata_group(f.create_group("layers").create_group("counts"), counts,
                      index_dtype=np.int64, indptr_dtype=np.int64)
    write_triplets(f"{d}/anndata_X.txt", X)
    write_triplets(f"{d}/anndata_counts.txt", counts)

    # 2. fixed-length ASCII attributes, uint64 shape, CSC float64 with int64 indices
    M = random_sparse(17, 31, 0.2, np.float64, "csc")
    with h5py.File(f"{d}/fixed.h5", "w") as f:
        g = f.create_group("M")
        g.attrs["encoding-type"] = np.bytes_(b"csc_matrix")
        g.attrs["encoding-version"] = np.bytes_(b"0.1.0")
        g.attrs["shape"] = np.array(M.shape, dtype=np.uint64)
        g.create_dataset("data", data=M.data)
        g.create_dataset("indices", data=M.indices.astype(np.int64))
        g.create_dataset("indptr", data=M.indptr.astype(np.int64))
    write_triplets(f"{d}/fixed.txt", M)

    # 3. integer counts, uint32 indices, int32 shape, no encoding-version
    A = random_sparse(25, 12, 0.3)
    A.data = np.abs(np.round(A.data * 10)).astype(np.float64) + 1
    with h5py.File(f"{d}/ints.h5", "w") as f:
        g = f.create_group("A")
        g.attrs["encoding-type"] = "csr_matrix"
        g.attrs["shape"] = np.array(A.shape, dtype=np.int32)
        g.create_dataset("data", data=A.data.astype(np.int32))
        g.create_dataset("indices", data=A.indices.astype(np.uint32))
        g.create_dataset("indptr", data=A.indptr.astype(np.int64))
    write_triplets(f"{d}/ints.txt", A)

    # 4. nested group, chunked + gzip-compressed datasets
    N = random_sparse(300, 70, 0.05)
    with h5py.File(f"{d}/nested.h5", "w") as f:
        g = f.create_group("a/b/c")
        g.attrs["encoding-type"] = "csr_matrix"
        g.attrs["encoding-version"] = "0.1.0"
        g.attrs["shape"] = N.shape
        for name, arr in (("data", N.data), ("indices", N.indices), ("indptr", N.indptr)):
            g.create_dataset(name, data=arr, chunks=(64,), compression="gzip")
    write_triplets(f"{d}/nested.txt", N)

    # 5. unsorted columns inside rows and duplicates (scipy allows both): read sorted, summed
    indptr = np.array([0, 3, 3, 7, 8], dtype=np.int64)
    indices = np.array([4, 0, 2, 3, 1, 3, 0, 5], dtype=np.int32)
    data = np.array([1.5, -2.0, 3.25, 1.0, 2.0, 0.5, 7.0, -1.0])
    U = sp.csr_matrix((data, indices, indptr), shape=(4, 6))
    with h5py.File(f"{d}/unsorted.h5", "w") as f:
        g = f.create_group("U")
        g.attrs["encoding-type"] = "csr_matrix"
        g.attrs["encoding-version"] = "0.1.0"
        g.attrs["shape"] = (4, 6)
        g["data"], g["indices"], g["indptr"] = data, indices, indptr
    write_triplets(f"{d}/unsorted.txt", U)

    # 6. plain numpy datasets: float64, float32, int16, a vector, column-major, empty
    D64 = np.round(RNG.standard_normal((9, 7)), 6)
    D32 = RNG.standard_normal((5, 11)).astype(np.float32)
    Di = RNG.integers(-300, 300, size=(4, 3)).astype(np.int16)
    v = np.round(RNG.standard_normal(13), 5)
    C = np.round(RNG.standard_normal((6, 4)), 4)  # the matrix; stored transposed
    with h5py.File(f"{d}/dense.h5", "w") as f:
        f["D64"], f["D32"], f["Dint"], f["vec"] = D64, D32, Di, v
        f["colmajor"] = C.T
        f["colmajor"].attrs["layout"] = "column-major"
        f["empty"] = np.zeros((0, 3))
        f.create_dataset("grp/chunked", data=D64, chunks=(2, 3), compression="gzip")
    for name, arr in (("D64", D64), ("D32", D32), ("Dint", Di), ("vec", v), ("colmajor", C),
                      ("empty", np.zeros((0, 3)))):
        write_dense_text(f"{d}/dense_{name}.dense.txt", arr)

    # 7. a GCOO group written by Python (p = 4, last group narrower), float32 values
    G = random_sparse(30, 18, 0.2, np.float32)
    with h5py.File(f"{d}/gcoo.h5", "w") as f:
        gcoo_group(f.create_group("G"), G, 4, np.float32)
    write_triplets(f"{d}/gcoo.txt", G)

    # 8. the matrix in the root group: "root.h5" alone names it
    R = random_sparse(8, 8, 0.3)
    with h5py.File(f"{d}/root.h5", "w") as f:
        anndata_group(f, R)
    write_triplets(f"{d}/root.txt", R)


def write_mtx(d):
    """Matrix Market files as scipy.io.mmwrite writes them."""
    S = random_sparse(30, 20, 0.2)
    scipy.io.mmwrite(f"{d}/mm_general.mtx", S, symmetry="general")
    write_triplets(f"{d}/mm_general.txt", S)
    Y = random_sparse(15, 15, 0.15)
    Y = (Y + Y.T).tocoo()
    scipy.io.mmwrite(f"{d}/mm_sym.mtx", Y, symmetry="symmetric")
    write_triplets(f"{d}/mm_sym.txt", Y)
    Dm = np.round(RNG.standard_normal((6, 4)), 5)
    scipy.io.mmwrite(f"{d}/mm_array.mtx", Dm)
    write_dense_text(f"{d}/mm_array.dense.txt", Dm)


def bad_csr(g, shape=(4, 5), data=None, indices=None, indptr=None, **attrs):
    data = np.array([1.0, 2.0, 3.0, 4.0]) if data is None else data
    indices = np.array([0, 3, 1, 4], dtype=np.int32) if indices is None else indices
    indptr = np.array([0, 2, 2, 3, 4], dtype=np.int64) if indptr is None else indptr
    g.attrs["encoding-type"] = attrs.get("enc", "csr_matrix")
    if attrs.get("version", "0.1.0") is not None:
        g.attrs["encoding-version"] = attrs.get("version", "0.1.0")
    if shape is not None:
        g.attrs["shape"] = np.array(shape, dtype=np.int64)
    if data is not False:
        g["data"] = data
    if indices is not False:
        g["indices"] = indices
    g["indptr"] = indptr


def write_bad(d):
    with h5py.File(f"{d}/bad.h5", "w") as f:
        g = f.create_group("noenc")
        g["data"], g["indices"], g["indptr"] = [1.0], [0], [0, 1]
        bad_csr(f.create_group("unknown"), enc="coo_matrix")
        bad_csr(f.create_group("version"), version="2.0.0")
        bad_csr(f.create_group("noversion"), version=None)  # fine: read as 0.1.0
        bad_csr(f.create_group("noshape"), shape=None)
        bad_csr(f.create_group("shape_mismatch"), shape=(5, 5))
        bad_csr(f.create_group("indptr0"), indptr=np.array([1, 2, 2, 3, 4]))
        bad_csr(f.create_group("indptr_dec"), indptr=np.array([0, 3, 2, 3, 4]))
        bad_csr(f.create_group("indptr_last"), indptr=np.array([0, 2, 2, 3, 3]))
        bad_csr(f.create_group("len_mismatch"), data=np.array([1.0, 2.0, 3.0]))
        bad_csr(f.create_group("idx_range"), indices=np.array([0, 3, 7, 4], dtype=np.int32))
        bad_csr(f.create_group("idx_neg"), indices=np.array([0, 3, -1, 4], dtype=np.int32))
        bad_csr(f.create_group("idx_huge"), indices=np.array([0, 3, 2**33, 4], dtype=np.int64))
        bad_csr(f.create_group("nan"), data=np.array([1.0, np.nan, 3.0, 4.0]))
        bad_csr(f.create_group("inf"), data=np.array([1.0, 2.0, 3.0, -np.inf]))
        bad_csr(f.create_group("overflow32"), data=np.array([1.0, 2.0, 1e300, 4.0]))
        bad_csr(f.create_group("toolarge"), shape=(3_000_000_000, 5),
                indptr=np.array([0, 4]))
        bad_csr(f.create_group("negshape"), shape=(-4, 5))
        bad_csr(f.create_group("missing_indices"), indices=False)
        bad_csr(f.create_group("string_data"), data=np.array([b"a", b"b", b"c", b"d"]))
        bad_csr(f.create_group("indices_float"), indices=np.array([0.0, 3.0, 1.0, 4.0]))
        bad_csr(f.create_group("data2d"), data=np.ones((4, 1)))
        bad_csr(f.create_group("bool_data"), data=np.array([True, False, True, True]))
        bad_csr(f.create_group("shape3"), shape=(4, 5, 1))
        bad_csr(f.create_group("unsorted_ok"), indices=np.array([3, 0, 1, 4], dtype=np.int32))

        G = sp.csr_matrix(np.array([[1.0, 0, 2, 0, 0], [0, 3, 0, 0, 4], [5, 0, 0, 6, 0]]))
        def gcoo_bad(name, fix=None, p=2):
            g = f.create_group(name)
            gcoo_group(g, G, p)
            if fix:
                fix(g)
        def swap_rows(g):  # group 0 holds (0,0) (2,0) (1,1): put (1,1) before (0,0)
            r, c = g["rows"][...], g["cols"][...]
            r[[0, 2]], c[[0, 2]] = r[[2, 0]], c[[2, 0]]
            g["rows"][...], g["cols"][...] = r, c
        def col_out(g):
            c = g["cols"][...]
            c[0] = 3  # group 0 covers columns 0..1
            g["cols"][...] = c
        def counts_off(g):
            n = g["nnzPerGroup"][...]
            n[0] += 1
            n[1] -= 1
            g["nnzPerGroup"][...] = n
        def no_p(g):
            del g.attrs["p"]
        def gidx_len(g):
            x = g["gIdxes"][...]
            del g["gIdxes"]
            g["gIdxes"] = np.concatenate([x, x[-1:]])
        gcoo_bad("gcoo_ok")
        gcoo_bad("gcoo_unsorted", swap_rows)
        gcoo_bad("gcoo_colrange", col_out)
        gcoo_bad("gcoo_counts", counts_off)
        gcoo_bad("gcoo_nop", no_p)
        gcoo_bad("gcoo_gidx_len", gidx_len)

        f["dense3d"] = np.zeros((2, 2, 2))
        f["dense_nan"] = np.array([[1.0, 2.0], [np.inf, 4.0]])
        f["dense_badlayout"] = np.ones((2, 2))
        f["dense_badlayout"].attrs["layout"] = "diagonal"
        f["dense_str"] = np.array([[b"x"]])
    with open(f"{d}/notahdf5.h5", "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2.0\n")
    with h5py.File(f"{d}/truncated.h5", "w") as f:
        f["big"] = np.arange(100000, dtype=np.float64)
    size = os.path.getsize(f"{d}/truncated.h5")
    with open(f"{d}/truncated.h5", "r+b") as f:
        f.truncate(size // 2)


def same_dense(D, expected_path, what):
    D = np.asarray(D, dtype=np.float64)
    if D.ndim == 1:
        D = D[:, None]
    shape = tuple(int(x) for x in open(expected_path).readline().split())
    want = np.loadtxt(expected_path, skiprows=1, ndmin=1)
    if D.shape != shape or not np.array_equal(D.ravel(), want.ravel()):
        print(f"{what}: dense {D.shape} differs from {expected_path} {shape}")
        return 1
    return 0


def same_triplets(A, expected_path, what):
    """A equals the text form exactly (values rounded to float32 first when A holds float32)."""
    single = A.dtype == np.float32
    A = canonical(A).tocoo()
    t = open(expected_path).read().split("\n")
    m, n, nnz = (int(x) for x in t[0].split())
    rows = np.array([int(l.split()[0]) for l in t[1:] if l], dtype=np.int64)
    cols = np.array([int(l.split()[1]) for l in t[1:] if l], dtype=np.int64)
    vals = np.array([float(l.split()[2]) for l in t[1:] if l])
    if single:
        vals = vals.astype(np.float32).astype(np.float64)
    if (A.shape != (m, n) or A.nnz != nnz or not np.array_equal(A.row, rows)
            or not np.array_equal(A.col, cols) or not np.array_equal(A.data, vals)):
        print(f"{what}: {A.shape} nnz {A.nnz} differs from {expected_path} ({m}, {n}) nnz {nnz}")
        return 1
    return 0


def read_group(o, what):
    """A sparse group as scipy reads it, checking gcoo's attributes; None if unreadable."""
    bad = 0
    enc = o.attrs["encoding-type"]
    if o.attrs["encoding-version"] != "0.1.0":
        print(f"{what}: encoding-version {o.attrs['encoding-version']!r}")
        bad += 1
    shape = tuple(int(x) for x in o.attrs["shape"])
    if enc == "csr_matrix":
        A = sp.csr_matrix((o["data"][...], o["indices"][...], o["indptr"][...]), shape)
    elif enc == "csc_matrix":
        A = sp.csc_matrix((o["data"][...], o["indices"][...], o["indptr"][...]), shape)
    elif enc == "gcoo_matrix":
        p = int(o.attrs["p"])
        gidx, counts = o["gIdxes"][...], o["nnzPerGroup"][...]
        rows, cols = o["rows"][...], o["cols"][...]
        if len(gidx) != (shape[1] + p - 1) // p + 1 or not np.array_equal(np.diff(gidx), counts):
            print(f"{what}: gIdxes/nnzPerGroup inconsistent")
            bad += 1
        for q in range(len(gidx) - 1):
            a, b = gidx[q], gidx[q + 1]
            key = rows[a:b].astype(np.int64) * shape[1] + cols[a:b]
            if np.any(cols[a:b] // p != q) or np.any(np.diff(key) <= 0):
                print(f"{what}: group {q} out of order or range")
                bad += 1
        A = sp.coo_matrix((o["values"][...], (rows, cols)), shape)
    else:
        print(f"{what}: encoding-type {enc!r}")
        return None, bad + 1
    if A.dtype.kind != "f":
        print(f"{what}: values are {A.dtype}")
        bad += 1
    return A, bad


def verify(d):
    """Every object listed in the manifest, read with h5py/scipy only, against its text form."""
    bad = 0
    lines = [l for l in open(f"{d}/manifest.txt").read().split("\n") if l]
    for line in lines:
        kind, path, obj, expected = line.split()
        what, exp = f"{path}:{obj}", f"{d}/{expected}"
        if kind == "mtx":
            M = scipy.io.mmread(f"{d}/{path}")
            bad += same_dense(M, exp, what) if expected.endswith(".dense.txt") else same_triplets(M, exp, what)
            continue
        with h5py.File(f"{d}/{path}", "r") as f:
            o = f[obj]
            if kind == "dense":
                if o.attrs.get("layout") != "row-major":
                    print(f"{what}: layout attribute is {o.attrs.get('layout')!r}")
                    bad += 1
                bad += same_dense(o[...], exp, what)
                continue
            A, b = read_group(o, what)
            bad += b
            if A is not None:
                bad += same_triplets(A, exp, what)
    print(f"h5_python.py verify: {len(lines)} objects, {bad} problems")
    return bad


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("write", "verify"):
        print("usage: h5_python.py write|verify DIR", file=sys.stderr)
        return 2
    d = sys.argv[2]
    if sys.argv[1] == "write":
        write_good(d)
        write_bad(d)
        write_mtx(d)
        return 0
    return 1 if verify(d) else 0


if __name__ == "__main__":
    sys.exit(main())
