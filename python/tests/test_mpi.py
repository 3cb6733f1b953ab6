# SPDX-License-Identifier: MIT
"""gcoo across MPI ranks: mpi_ranks.py under `mpirun -np 2`, with mpi4py and without it, and a
distributed context on one process (gcoo initialises MPI itself)."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import gcoo

HERE = Path(__file__).resolve().parent
needs_mpi = pytest.mark.skipif(not gcoo._core.have_mpi, reason="gcoo built without MPI")


@pytest.fixture(scope="module")
def h5_file(tmp_path_factory):
    """mpi_ranks.py's matrix in scipy's CSR layout for HDF5 (DESIGN.md §3)."""
    h5py = pytest.importorskip("h5py")
    A = sp.random(1000, 700, density=0.01, format="csr", random_state=42)
    path = tmp_path_factory.mktemp("h5") / "A.h5"
    with h5py.File(path, "w") as f:
        g = f.create_group("A")
        g.attrs["encoding-type"] = "csr_matrix"
        g.attrs["encoding-version"] = "0.1.0"
        g.attrs["shape"] = np.array(A.shape, dtype=np.int64)
        g["data"] = A.data
        g["indices"] = A.indices.astype(np.int32)
        g["indptr"] = A.indptr.astype(np.int64)
    return path


def mpirun(ranks, *args):
    launcher = shutil.which("mpirun") or shutil.which("mpiexec")
    if launcher is None:
        pytest.skip("no mpirun")
    env = dict(os.environ, OMP_NUM_THREADS="1", OMPI_MCA_rmaps_base_oversubscribe="1",
               OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = [launcher, "-np", str(ranks), sys.executable, str(HERE / "mpi_ranks.py"), *args]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    out = p.stdout + p.stderr
    assert p.returncode == 0, out
    for r in range(ranks):
        assert f"mpi_ranks: rank {r} of {ranks}: OK" in out, out


@needs_mpi
def test_two_ranks_with_mpi4py(h5_file):
    pytest.importorskip("mpi4py")
    mpirun(2, "mpi4py", str(h5_file))


@needs_mpi
def test_two_ranks_without_mpi4py(h5_file):
    mpirun(2, "plain", str(h5_file))


@needs_mpi
def test_one_process(h5_file):
    with gcoo.Dist(backend="cpu") as d:  # MPI_COMM_WORLD of a process started alone
        assert (d.rank, d.size) == (0, 1)
        op = d.operator_from_file(str(h5_file) + ":/A")
        A = sp.random(1000, 700, density=0.01, format="csr", random_state=42)
        X = np.ones((700, 2))
        assert np.allclose(op @ X, A @ X, rtol=0, atol=1e-12)
        assert np.allclose(d.gather(op @ X), A @ X, rtol=0, atol=1e-12)
    with pytest.raises(gcoo.InvalidObjectError, match="closed"):
        op @ X
    with pytest.raises(gcoo.FileError):
        gcoo.Dist("self").operator_from_file("/nonexistent/gcoo-test.h5:/A")
