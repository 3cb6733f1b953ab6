// SPDX-License-Identifier: MIT
// python/ext/failure.cpp: gcoo statuses to Python exceptions. The exception classes live in
// gcoo/_errors.py (one per status, with the built-in exceptions they also are); this file only
// hands them the status and gcoo's message, and publishes the status table they are built from.
#include "binding.hpp"

namespace gcoo_py {

gcoo_status check(gcoo_status st) {
  if (st < 0) {
    const char *msg = gcoo_last_error();
    throw Failure{st, msg && *msg ? msg : gcoo_strerror(st)};
  }
  return st;
}

void fail(gcoo_status st, const std::string &message) { throw Failure{st, message}; }

void bind_failure(nb::module_ &m) {
  nb::register_exception_translator([](const std::exception_ptr &p, void *) {
    try {
      std::rethrow_exception(p);
    } catch (const Failure &f) {
      nb::object exc = nb::module_::import_("gcoo._errors")
                           .attr("from_status")(int(f.status), f.message);
      PyErr_SetObject(reinterpret_cast<PyObject *>(Py_TYPE(exc.ptr())), exc.ptr());
    }
  });
  // every status the library names: {name: (value, description)}
  nb::dict statuses;
  for (int s = -200; s <= 10; ++s) {
    const char *name = gcoo_status_name(static_cast<gcoo_status>(s));
    if (name && std::string(name).rfind("GCOO_", 0) == 0)
      statuses[name] = nb::make_tuple(s, gcoo_strerror(static_cast<gcoo_status>(s)));
  }
  m.attr("statuses") = statuses;
  m.def(
      "last_error", [] { return std::string(gcoo_last_error()); },
      "Message of the calling thread's last gcoo error (gcoo_last_error()).");
  m.def(
      "version", [] { return std::string(gcoo_version_string()); },
      "gcoo_version_string(): the library's version and what it was built with.");
}

} // namespace gcoo_py
