// SPDX-License-Identifier: MIT
// python/ext/probe.cpp: what the binding can tell about itself, for the tests and the overhead
// benchmark: the addresses of the last operands it handed to the library (no copy was made if
// they are the arrays' own), and the wall time spent inside library calls (the rest of a Python
// call's time is the binding's and the package's).
#include <time.h>

#include <atomic>

#include "binding.hpp"

namespace gcoo_py {

namespace {
const void *last_x = nullptr, *last_y = nullptr;
std::atomic<double> library_seconds{0.0};
} // namespace

double monotonic_seconds() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

void add_library_seconds(double s) {
  double cur = library_seconds.load(std::memory_order_relaxed);
  while (!library_seconds.compare_exchange_weak(cur, cur + s, std::memory_order_relaxed)) {
  }
}

void record_operands(const void *x, const void *y) {
  last_x = x;
  last_y = y;
}

void bind_probe(nb::module_ &m) {
  m.def(
      "last_operands", [] { return nb::make_tuple(uintptr_t(last_x), uintptr_t(last_y)); },
      "Addresses of the input and output buffers of the last product or solve handed to the "
      "library (the tests check that they are the arrays' own).");
  m.def(
      "library_seconds", [] { return library_seconds.load(); },
      "Wall seconds spent inside library calls so far (all threads), for the overhead benchmark.");
}

} // namespace gcoo_py
