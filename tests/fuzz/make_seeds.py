#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# tests/fuzz/make_seeds.py: writes the seed corpus of the fuzz harnesses (tests/fuzz/corpus/),
# small valid files of every variant and tricky ones. Run it again after changing it; the files it
# writes are committed. Needs /usr/bin/python3 with numpy and h5py (for the h5 seeds).
#   /usr/bin/python3 tests/fuzz/make_seeds.py
import gzip
import io
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
DATA = os.path.join(HERE, "..", "data")


def put(harness, name, data):
    d = os.path.join(CORPUS, harness)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


def gz(data, level=6, mtime=0):
    if isinstance(data, str):
        data = data.encode()
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=level, mtime=mtime) as g:
        g.write(data)
    return buf.getvalue()


B = "%%MatrixMarket matrix "
mtx = {
    # valid, one of each variant
    "coord-real-general": B + "coordinate real general\n% a comment\n3 4 5\n1 1 1.5\n1 4 -2\n2 2 3e-3\n3 1 4.25E+2\n3 3 -0.5\n",
    "coord-integer-general": B + "coordinate integer general\n2 2 3\n1 1 7\n2 1 -3\n2 2 +12\n",
    "coord-pattern-general": B + "coordinate pattern general\n3 3 4\n1 2\n2 3\n3 1\n3 3\n",
    "coord-real-symmetric-lower": B + "coordinate real symmetric\n3 3 4\n1 1 2\n2 1 -1\n3 2 -1\n3 3 2\n",
    "coord-real-symmetric-upper": B + "coordinate real symmetric\n3 3 3\n1 2 0.5\n1 3 0.25\n2 3 0.125\n",
    "coord-real-skew": B + "coordinate real skew-symmetric\n3 3 2\n2 1 1.5\n3 1 -2.5\n",
    "coord-pattern-symmetric": B + "coordinate pattern symmetric\n4 4 3\n2 1\n4 3\n4 4\n",
    "coord-integer-symmetric": B + "coordinate integer symmetric\n2 2 2\n1 1 5\n2 1 9\n",
    "coord-duplicates": B + "coordinate real general\n2 2 4\n1 1 1\n1 1 2\n2 2 3\n1 1 -0.5\n",
    "coord-unsorted": B + "coordinate real general\n3 3 4\n3 3 1\n1 2 2\n2 1 3\n1 1 4\n",
    "coord-empty-0x0": B + "coordinate real general\n0 0 0\n",
    "coord-empty-3x5": B + "coordinate real general\n3 5 0\n",
    "coord-rectangular-wide": B + "coordinate real general\n1 40 3\n1 1 1\n1 20 2\n1 40 3\n",
    "coord-rectangular-tall": B + "coordinate real general\n40 1 3\n1 1 1\n20 1 2\n40 1 3\n",
    "coord-crlf-tabs-blank": (B + "coordinate real general\r\n%c\r\n\r\n2\t2\t2\r\n1 1\t1\r\n\r\n2 2 2\r\n"),
    "coord-uppercase-banner": "%%MATRIXMARKET MATRIX COORDINATE REAL GENERAL\n1 1 1\n1 1 1\n",
    "coord-no-final-newline": B + "coordinate real general\n1 1 1\n1 1 1",
    "coord-numbers": B + "coordinate real general\n1 12 12\n1 1 -0\n1 2 1e308\n1 3 4.9e-324\n"
                     "1 4 3.40282347e+38\n1 5 1e39\n1 6 0.1234567890123456789012345\n1 7 +.5\n"
                     "1 8 5.\n1 9 -1.7976931348623157e308\n1 10 123456789012345678901234567890\n"
                     "1 11 1e-400\n1 12 2.2250738585072014e-308\n",
    "array-real-general": B + "array real general\n% column-major\n2 3\n1\n2\n3.5\n-4\n0\n6e1\n",
    "array-integer-general": B + "array integer general\n2 2\n1\n-2\n3\n4\n",
    "array-empty": B + "array real general\n0 4\n",
    # malformed or refused: each must fail cleanly
    "bad-nan": B + "coordinate real general\n1 1 1\n1 1 nan\n",
    "bad-inf": B + "coordinate real general\n1 2 2\n1 1 -inf\n1 2 Infinity\n",
    "bad-index-zero": B + "coordinate real general\n2 2 1\n0 1 1\n",
    "bad-index-range": B + "coordinate real general\n2 2 1\n3 1 1\n",
    "bad-truncated": B + "coordinate real general\n2 2 3\n1 1 1\n2 2 2\n",
    "bad-trailing": B + "coordinate real general\n2 2 1\n1 1 1\n2 2 2\n",
    "bad-both-triangles": B + "coordinate real symmetric\n2 2 2\n2 1 1\n1 2 1\n",
    "bad-skew-diagonal": B + "coordinate real skew-symmetric\n2 2 1\n1 1 1\n",
    "bad-complex": B + "coordinate complex general\n1 1 1\n1 1 1 0\n",
    "bad-hermitian": B + "coordinate real hermitian\n1 1 1\n1 1 1\n",
    "bad-no-size-line": B + "coordinate real general\n% only comments\n",
    "bad-rows-past-int32": B + "coordinate real general\n2147483648 1 0\n",
    "big-dims-int32-max": B + "coordinate real general\n2147483647 2147483647 0\n",
    "big-count": B + "coordinate real general\n2000000000 2000000000 9000000000000\n1 1 1\n",
    "big-array": B + "array real general\n100000 100000\n1\n2\n",
    "bad-hex-float": B + "coordinate real general\n1 1 1\n1 1 0x1p3\n",
    "bad-symmetric-array": B + "array real symmetric\n2 2\n1\n2\n3\n",
    "bad-nonsquare-symmetric": B + "coordinate real symmetric\n2 3 1\n1 1 1\n",
    "bad-integer-field-real-value": B + "coordinate integer general\n1 1 1\n1 1 1.5\n",
    "bad-nul-byte": B + "coordinate real general\n1 1 1\n1 1\x001\n",
    "bad-size-overflow": B + "coordinate real general\n99999999999999999999999 1 1\n",
}
for k, v in mtx.items():
    put("mtx", k, v)
    put("mtx_gz", k, v)

# the head of a real SuiteSparse file (HB/west0479, CC-BY 4.0, see tests/data/README.md)
with gzip.open(os.path.join(DATA, "west0479.mtx.gz"), "rt") as f:
    lines = f.read().splitlines()
body = [l for l in lines[1:] if not l.startswith("%")][1:]
head = [lines[0], "% first 300 entries of HB/west0479", "479 479 300"] + body[:300]
put("mtx", "west0479-head", "\n".join(head) + "\n")
head = [lines[0], "% first 100 entries of HB/west0479", "479 479 100"] + body[:100]
put("mtx_gz", "west0479-head", "\n".join(head) + "\n")

# compressed seeds for both harnesses (the reader detects gzip by its magic)
put("mtx", "gz-coord-real-general", gz(mtx["coord-real-general"]))
put("mtx", "gz-array-real-general", gz(mtx["array-real-general"], level=1))
put("mtx_gz", "raw-gz-coord", gz(mtx["coord-real-symmetric-lower"]))
put("mtx_gz", "raw-gz-two-members", gz(B + "coordinate real general\n2 2 2\n") + gz("1 1 1\n2 2 2\n"))
put("mtx_gz", "raw-gz-trailing-garbage", gz(mtx["coord-pattern-general"]) + b"\x00\x01garbage")
put("mtx_gz", "raw-gz-truncated", gz(mtx["coord-numbers"])[:-6])
put("mtx_gz", "raw-gz-level0", gz(mtx["array-integer-general"], level=0))

# command lines: NUL-separated arguments (tests/fuzz/fuzz_cli.c)
cli = {
    "empty": "",
    "help": "--help",
    "help-short": "-h",
    "path": "--a\0matrix.mtx",
    "equals": "--a=m.h5:/A\0--n=42",
    "flags": "--check\0--json",
    "int-exponent": "--n-rows\0" "2e3",
    "real": "--x\0" "0.25",
    "unknown": "--nope",
    "flag-with-value": "--check=1",
    "missing-value": "--n",
    "positional": "file.mtx",
    "negative": "--n\0-7\0--count\0" "0",
    "all": "--a\0x\0--n\0" "5\0--count\0" "9\0--x=1\0--name\0gcoo\0--check\0--json\0--n-rows=1e6",
    "repeated": "--n\0" "1\0--n\0" "2\0--n=3",
    "quote-control": "--name\0a\"b\\c\x01\x1f\x7f\xc3\xa9",
}
for k, v in cli.items():
    put("cli", k, v)

# HDF5 files in the layouts of gcoo/h5.h (docs/hdf5.md), as h5py/anndata write them
try:
    import h5py
    import numpy as np
except ImportError:
    h5py = None
if h5py is not None:
    tmp = os.path.join(CORPUS, "h5.tmp")

    def h5seed(name, fill):
        with h5py.File(tmp, "w", libver="earliest") as f:
            fill(f)
        with open(tmp, "rb") as f:
            put("h5", name, f.read())
        os.unlink(tmp)

    def csr(g, fmt="csr_matrix", shape=(3, 4), indptr=(0, 2, 2, 4), indices=(0, 3, 1, 2),
            data=(1.5, -2.0, 3.0, 0.25), itype="i4", ptype="i8", dtype="f8", version="0.1.0"):
        g.attrs["encoding-type"] = fmt
        if version is not None:
            g.attrs["encoding-version"] = version
        g.attrs["shape"] = np.array(shape, dtype="i8")
        g.create_dataset("indptr", data=np.array(indptr, dtype=ptype))
        g.create_dataset("indices", data=np.array(indices, dtype=itype))
        g.create_dataset("data", data=np.array(data, dtype=dtype))

    def gcoo(g, p=2, shape=(3, 5), gidx=(0, 2, 3, 4), rows=(0, 2, 1, 0), cols=(1, 0, 3, 4),
             values=(1.0, 2.0, 3.0, 4.0), with_counts=True):
        g.attrs["encoding-type"] = "gcoo_matrix"
        g.attrs["encoding-version"] = "0.1.0"
        g.attrs["shape"] = np.array(shape, dtype="i8")
        g.attrs["p"] = np.int64(p)
        g.create_dataset("gIdxes", data=np.array(gidx, dtype="i8"))
        if with_counts:
            g.create_dataset("nnzPerGroup", data=np.diff(np.array(gidx, dtype="i8")))
        g.create_dataset("rows", data=np.array(rows, dtype="i4"))
        g.create_dataset("cols", data=np.array(cols, dtype="i4"))
        g.create_dataset("values", data=np.array(values, dtype="f8"))

    h5seed("csr-root", lambda f: csr(f))
    h5seed("csr-group-m", lambda f: csr(f.create_group("m"), dtype="f4"))
    h5seed("csc-root", lambda f: csr(f, fmt="csc_matrix", shape=(4, 3)))
    h5seed("csr-int64-indices-int32-indptr", lambda f: csr(f, itype="i8", ptype="i4"))
    h5seed("csr-no-version", lambda f: csr(f, version=None))
    h5seed("csr-integer-data", lambda f: csr(f, data=(1, 2, 3, 4), dtype="i4"))
    h5seed("csr-unsorted-duplicates", lambda f: csr(f, indices=(3, 0, 1, 1)))
    h5seed("csr-empty", lambda f: csr(f, shape=(0, 0), indptr=(0,), indices=(), data=()))
    h5seed("gcoo-root", lambda f: gcoo(f))
    h5seed("gcoo-group-m-no-counts", lambda f: gcoo(f.create_group("m"), with_counts=False))

    def dense(f, name="m", layout="row-major", dtype="f8"):
        d = f.create_dataset(name, data=np.arange(6, dtype=dtype).reshape(2, 3) - 2.5)
        if layout:
            d.attrs["layout"] = layout
    h5seed("dense-m", lambda f: dense(f))
    h5seed("dense-m-f4-no-layout", lambda f: dense(f, layout=None, dtype="f4"))
    h5seed("dense-m-column-major", lambda f: dense(f, layout="column-major"))
    h5seed("dense-m-1d", lambda f: f.create_dataset("m", data=np.array([1.0, 2.0, 3.0])))

    def chunked(f):
        g = f.create_group("m")
        g.attrs["encoding-type"] = "csr_matrix"
        g.attrs["shape"] = np.array([4, 4], dtype="i8")
        g.create_dataset("indptr", data=np.array([0, 1, 2, 3, 4], dtype="i8"), chunks=(2,))
        g.create_dataset("indices", data=np.array([0, 1, 2, 3], dtype="i4"), chunks=(2,),
                         compression="gzip")
        g.create_dataset("data", data=np.ones(4), chunks=(2,), shuffle=True, compression="gzip")
    h5seed("csr-m-chunked-gzip", chunked)
    # tricky: every one must be refused with a message
    h5seed("bad-indptr-decreasing", lambda f: csr(f, indptr=(0, 3, 2, 4)))
    h5seed("bad-index-range", lambda f: csr(f, indices=(0, 9, 1, 2)))
    h5seed("bad-shape-negative", lambda f: csr(f, shape=(-3, 4)))
    h5seed("bad-shape-huge", lambda f: csr(f, shape=(1 << 40, 4)))
    h5seed("bad-encoding", lambda f: csr(f, fmt="coo_matrix"))
    h5seed("bad-nan", lambda f: csr(f, data=(1.0, float("nan"), 2.0, 3.0)))
    h5seed("bad-gcoo-unsorted", lambda f: gcoo(f, rows=(2, 0, 1, 0)))
    h5seed("bad-gcoo-p-zero", lambda f: gcoo(f, p=0))
    h5seed("bad-indptr-length", lambda f: csr(f, indptr=(0, 2, 4)))
    h5seed("bad-missing-data", lambda f: (csr(f), f.__delitem__("data")))
    h5seed("bad-string-shape", lambda f: (csr(f), f.attrs.__setitem__("shape", "3x4")))
    put("h5", "bad-not-hdf5", b"\x89HDF\r\n\x1a\n" + b"\x00" * 40)
print("seeds written under", CORPUS)
