// SPDX-License-Identifier: MIT
// python/ext/dist.cpp: MPI for Python programs (initialised here when nothing else did: a
// program run without mpi4py, or a one-process solve), distributed contexts on a communicator
// (mpi4py's, passed as its Fortran handle, or MPI_COMM_WORLD / MPI_COMM_SELF), and distributed
// operators from each rank's rows or from a file read in parallel (gcoo/dist.h).

#include "dist.hpp"

namespace gcoo_py {

#if GCOO_HAVE_MPI
namespace {
bool initialised_here = false;

void mpi_init() {
  int done = 0;
  MPI_Initialized(&done);
  if (done) return;
  int provided = 0;
  // as mpi4py asks by default: Python threads may call gcoo while another one waits in it
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
    fail(GCOO_ERR_MPI, "MPI_Init_thread failed");
  initialised_here = true;
}

void mpi_finalize() {
  if (initialised_here && !mpi_finalized()) MPI_Finalize();
}

gcoo_dist_op_options dist_options(const std::string &xmode, const std::string &alg) {
  gcoo_dist_op_options o = GCOO_DIST_OP_OPTIONS_INIT;
  if (xmode == "replicated")
    o.xmode = GCOO_DIST_X_REPLICATED;
  else if (xmode == "partitioned")
    o.xmode = GCOO_DIST_X_PARTITIONED;
  else
    fail(GCOO_ERR_INVALID_ARG, "x must be 'replicated' or 'partitioned', not '" + xmode + "'");
  o.local.alg = spdm_alg(alg);
  return o;
}
} // namespace

bool mpi_finalized() {
  int fin = 0;
  MPI_Finalized(&fin);
  return fin != 0;
}

Dist::Dist(const std::string &which, int64_t fortran_handle,
           const std::optional<std::string> &backend) {
  int init = 0;
  MPI_Initialized(&init);
  if (!init) fail(GCOO_ERR_INVALID_ARG, "MPI is not initialised (gcoo.Dist initialises it)");
  MPI_Comm comm;
  if (which == "world")
    comm = MPI_COMM_WORLD;
  else if (which == "self")
    comm = MPI_COMM_SELF;
  else if (which == "fortran")
    comm = MPI_Comm_f2c(static_cast<MPI_Fint>(fortran_handle));
  else
    fail(GCOO_ERR_INVALID_ARG, "communicator '" + which + "'");
  const gcoo_status st = call(
      [&] { return gcoo_dist_create(&d, comm, backend ? backend->c_str() : nullptr); });
  check(st);
}

void Dist::close() {
  if (!d) return;
  if (mpi_finalized())
    d = nullptr; // MPI is gone: nothing can be freed any more, and the process is ending
  else
    gcoo_dist_destroy(&d);
}

gcoo_dist Dist::live() const {
  if (!d) fail(GCOO_ERR_INVALID_OBJECT, "the distributed context was closed");
  return d;
}

gcoo_dist_op DistOp::live() const {
  if (!op) fail(GCOO_ERR_INVALID_OBJECT, "the distributed operator was closed");
  return op;
}

gcoo_dist_op_info DistOp::info() const {
  gcoo_dist_op_info i;
  live();
  check(gcoo_dist_op_get_info(op, &i));
  return i;
}

void bind_dist(nb::module_ &m) {
  m.attr("have_mpi") = true;
  m.def("mpi_init", &mpi_init, "MPI_Init_thread (MPI_THREAD_MULTIPLE) unless MPI is initialised.");
  m.def("mpi_finalize", &mpi_finalize, "MPI_Finalize, if mpi_init initialised MPI.");
  m.def("mpi_initialized", [] {
    int init = 0;
    MPI_Initialized(&init);
    return init != 0 && !mpi_finalized();
  });
  m.def("mpi_finalized", &mpi_finalized);

  nb::class_<Dist>(m, "Dist", "A gcoo_dist: the ranks of a communicator, each with its backend.")
      .def(nb::init<const std::string &, int64_t, const std::optional<std::string> &>(),
           nb::arg("comm"), nb::arg("fortran_handle"), nb::arg("backend").none(),
           "gcoo_dist_create on MPI_COMM_WORLD ('world'), MPI_COMM_SELF ('self') or the "
           "communicator of a Fortran handle ('fortran': mpi4py's comm.py2f()). Collective.")
      .def("close", &Dist::close, "gcoo_dist_destroy. Collective.")
      .def_prop_ro("rank", [](const Dist &x) { return gcoo_dist_rank(x.live()); })
      .def_prop_ro("size", [](const Dist &x) { return gcoo_dist_size(x.live()); })
      .def_prop_ro("backend",
                   [](const Dist &x) {
                     return std::string(gcoo_ctx_backend(gcoo_dist_ctx(x.live())));
                   })
      .def_prop_ro("device", [](const Dist &x) { return gcoo_ctx_device(gcoo_dist_ctx(x.live())); })
      .def(
          "exscan",
          [](const Dist &x, int64_t local) {
            // (sum over lower ranks, sum over all ranks) of local: the row offsets of slabs
            int64_t mine[2] = {local, 0}, all[2] = {0, 0};
            MPI_Comm c = gcoo_dist_comm(x.live());
            if (MPI_Exscan(mine, all, 1, MPI_INT64_T, MPI_SUM, c) != MPI_SUCCESS ||
                MPI_Allreduce(&local, &mine[1], 1, MPI_INT64_T, MPI_SUM, c) != MPI_SUCCESS)
              fail(GCOO_ERR_MPI, "MPI_Exscan/MPI_Allreduce of the slab sizes failed");
            if (gcoo_dist_rank(x.d) == 0) all[0] = 0; // MPI leaves rank 0's result undefined
            return nb::make_tuple(all[0], mine[1]);
          },
          nb::arg("local"), "(sum of local over the lower ranks, sum over all ranks). Collective.")
      .def(
          "gather_rows",
          [](Dist &x, Array Y, int root, nb::object out) {
            gcoo_dense y = dense_view(Y, "Y_local"), full{}, *pf = nullptr;
            MutArray F;
            if (!out.is_none()) {
              F = nb::cast<MutArray>(out, false);
              full = dense_view(F, "out");
              pf = &full;
            }
            const gcoo_status st = call(
                [&] { return gcoo_dist_gather_rows(x.live(), &y, root, pf); });
            check(st);
          },
          nb::arg("Y_local").noconvert(), nb::arg("root"), nb::arg("out").none(),
          "gcoo_dist_gather_rows: the ranks' row slabs into out on root (-1: every rank). "
          "Collective.");

  nb::class_<DistOp>(m, "DistOp", "A gcoo_dist_op: this rank's slab of rows of A as an operator.")
      .def_static(
          "from_rows",
          [](Dist &x, Sparse &A, int64_t row0, int64_t m_global, const std::string &xmode,
             const std::string &alg) {
            gcoo_dist_op_options o = dist_options(xmode, alg);
            auto *r = new DistOp();
            const gcoo_status st = call(
                [&] { return gcoo_dist_op_create(x.live(), A.A, row0, m_global, &o, &r->op); });
            if (st < 0) delete r;
            check(st);
            return r;
          },
          nb::arg("dist"), nb::arg("A_rows"), nb::arg("row0"), nb::arg("m_global"),
          nb::arg("x") = "replicated", nb::arg("alg") = "auto", nb::keep_alive<0, 1>(),
          "gcoo_dist_op_create from this rank's rows [row0, row0 + rows) of A. Collective.")
      .def_static(
          "from_file",
          [](Dist &x, const std::string &path, const std::string &dtype, const std::string &xmode,
             const std::string &alg) {
            gcoo_dist_op_options o = dist_options(xmode, alg);
            const gcoo_dtype t = dtype_from_name(dtype);
            auto *r = new DistOp();
            const gcoo_status st = call([&] {
              return gcoo_dist_op_create_from_file(x.live(), path.c_str(), t, &o, &r->op);
            });
            if (st < 0) delete r;
            check(st);
            return r;
          },
          nb::arg("dist"), nb::arg("path"), nb::arg("dtype") = "float64",
          nb::arg("x") = "replicated", nb::arg("alg") = "auto", nb::keep_alive<0, 1>(),
          "gcoo_dist_op_create_from_file: .h5[:/object] read in parallel, .mtx[.gz] on rank 0. "
          "Collective.")
      .def(
          "apply",
          [](DistOp &o, Array X, MutArray Y, double alpha, double beta, uintptr_t stream) {
            o.live();
            gcoo_dense x = dense_view(X, "X"), y = dense_view(Y, "out");
            if (x.mem == GCOO_MEM_DEVICE)
              check(gcoo_ctx_set_stream(gcoo_dist_ctx(gcoo_dist_op_get_dist(o.op)),
                                        reinterpret_cast<void *>(stream)));
            record_operands(x.data, y.data);
            const gcoo_status st = call(
                [&] { return gcoo_dist_op_apply(o.op, alpha, &x, beta, &y); });
            check(st);
          },
          nb::arg("X").noconvert(), nb::arg("out").noconvert(), nb::arg("alpha") = 1.0,
          nb::arg("beta") = 0.0, nb::arg("stream") = 0,
          "gcoo_dist_op_apply: this rank's rows of alpha A X + beta out. Collective.")
      .def(
          "close", [](DistOp &o) { gcoo_dist_op_destroy(&o.op); },
          "gcoo_dist_op_destroy (before its distributed context is closed).")
      .def(
          "local_matrix",
          [](DistOp &o) {
            gcoo_sparse A = nullptr;
            check(gcoo_dist_op_get_local_matrix(o.op, &A));
            return new Sparse(A);
          },
          "gcoo_dist_op_get_local_matrix: this rank's rows of A (CSR, global columns).")
      .def("info", [](const DistOp &o) {
        gcoo_dist_op_info i = o.info();
        nb::dict r;
        r["m_global"] = i.m_global;
        r["k"] = i.k;
        r["nnz_global"] = i.nnz_global;
        r["nnz_local"] = i.nnz_local;
        r["row0"] = i.row0;
        r["nrows_local"] = i.nrows_local;
        r["imbalance"] = i.imbalance;
        r["x"] = i.xmode == GCOO_DIST_X_PARTITIONED ? "partitioned" : "replicated";
        r["halo_rows_recv"] = i.halo_rows_recv;
        r["halo_rows_send"] = i.halo_rows_send;
        r["read_seconds"] = i.read_seconds;
        r["setup_seconds"] = i.setup_seconds;
        r["dtype"] = i.local.dtype == GCOO_FLOAT32 ? "float32" : "float64";
        r["alg"] = gcoo_spdm_alg_name(i.local.alg);
        return r;
      });
}

#else // gcoo built without MPI: the package works on one process, without Dist and solvers

void bind_dist(nb::module_ &m) { m.attr("have_mpi") = false; }

#endif

} // namespace gcoo_py
