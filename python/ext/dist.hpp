// SPDX-License-Identifier: MIT
// python/ext/dist.hpp: the distributed context and operator wrappers, shared by dist.cpp and
// solver.cpp (built only when gcoo has MPI).
#pragma once

#include "binding.hpp"

#if GCOO_HAVE_MPI
namespace gcoo_py {

// A gcoo_dist. Freed with its Python object, or at exit before MPI_Finalize; a handle still alive
// after MPI was finalised is dropped without MPI calls.
struct Dist {
  gcoo_dist d = nullptr;
  Dist(const std::string &which, int64_t fortran_handle, const std::optional<std::string> &backend);
  Dist(const Dist &) = delete;
  Dist &operator=(const Dist &) = delete;
  ~Dist() { close(); }
  void close();
  gcoo_dist live() const; // d, or a Failure when closed
};

// A gcoo_dist_op on a Dist (which it keeps alive).
struct DistOp {
  gcoo_dist_op op = nullptr;
  DistOp() = default;
  DistOp(const DistOp &) = delete;
  DistOp &operator=(const DistOp &) = delete;
  ~DistOp() { gcoo_dist_op_destroy(&op); }
  gcoo_dist_op_info info() const;
  gcoo_dist_op live() const; // op, or a Failure when closed
};

bool mpi_finalized();

} // namespace gcoo_py
#endif
