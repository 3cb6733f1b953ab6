/* SPDX-License-Identifier: MIT */
/* kernels/backend/cublas_lazy.c: opens cuBLAS at its first use (kernels/backend/cublas_lazy.h says why) and
 * fills gcoo__cublas from it.
 *
 * The library is looked for by its versioned name, as the loader would have found it had libgcoo
 * been linked with it (LD_LIBRARY_PATH, libgcoo's run path, the system's cache), then in the
 * CUDA toolkit's library directory that the build found (GCOO_CUDA_LIBDIR); GCOO_CUBLAS_LIBRARY
 * (a name or a path) replaces both. The first attempt's outcome is kept: a process either has
 * cuBLAS or reports the same error at every use. */
#define _GNU_SOURCE
#include "cublas_lazy.h"
#include "params.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GCOO_STR_(x) #x
#define GCOO_XSTR_(x) GCOO_STR_(x)
/* the soname of the cuBLAS whose headers gcoo was compiled with: libcublas.so.13 for CUDA 13 */
#define CUBLAS_SONAME "libcublas.so." GCOO_XSTR_(CUBLAS_VER_MAJOR)

gcoo__cublas_api gcoo__cublas;

/* each field has the type of the function the header declares (written out for cublasGemmEx) */
#define GCOO_CUBLAS_TYPE_CHECK_(field, symbol, type)                     \
  _Static_assert(__builtin_types_compatible_p(__typeof__(symbol), type), \
                 "gcoo__cublas." #field " does not have the type of " #symbol);
GCOO_CUBLAS_FUNCTIONS(GCOO_CUBLAS_TYPE_CHECK_)
#undef GCOO_CUBLAS_TYPE_CHECK_

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int loaded;
static char failure[1024]; /* why loading failed (empty when it did not) */

/* dlopen's own message, or a generic one (dlerror may return NULL). */
static const char *loader_says(void) {
  const char *e = dlerror();
  return e ? e : "no reason given";
}

static void *open_library(void) {
  const char *chosen = gcoo__param_str(GCOO__P_CUBLAS_LIBRARY);
  if (*chosen) { /* the user's choice, alone */
    void *h = dlopen(chosen, RTLD_NOW | RTLD_LOCAL);
    if (!h)
      snprintf(failure, sizeof failure,
               "cannot load cuBLAS from GCOO_CUBLAS_LIBRARY=%s (needed by the dense products and "
               "block operations on the GPU): %s",
               chosen, loader_says());
    return h;
  }
  void *h = dlopen(CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (h) return h;
  char first[512];
  snprintf(first, sizeof first, "%s", loader_says());
#ifdef GCOO_CUDA_LIBDIR
  h = dlopen(GCOO_CUDA_LIBDIR "/" CUBLAS_SONAME, RTLD_NOW | RTLD_LOCAL);
  if (h) return h;
  snprintf(failure, sizeof failure,
           "cannot load cuBLAS (%s), needed by the dense products and block operations on the "
           "GPU: %s; nor from the CUDA toolkit found at build time: %s. Put the directory holding "
           "%s on LD_LIBRARY_PATH, or name the library in GCOO_CUBLAS_LIBRARY",
           CUBLAS_SONAME, first, loader_says(), CUBLAS_SONAME);
#else
  snprintf(failure, sizeof failure,
           "cannot load cuBLAS (%s), needed by the dense products and block operations on the "
           "GPU: %s. Put the directory holding %s on LD_LIBRARY_PATH, or name the library in "
           "GCOO_CUBLAS_LIBRARY",
           CUBLAS_SONAME, first, CUBLAS_SONAME);
#endif
  return NULL;
}

static void load_once(void) {
  void *h = open_library();
  if (!h) return;
  gcoo__cublas_api api;
  memset(&api, 0, sizeof api);
  /* dlsym returns an object pointer; POSIX guarantees it converts to a function pointer */
#define GCOO_CUBLAS_LOOKUP_(field, symbol, type)                                                   \
  *(void **)&api.field = dlsym(h, #symbol);                                                        \
  if (!api.field) {                                                                                \
    snprintf(failure, sizeof failure, "cuBLAS (%s) lacks %s, which gcoo needs: %s", CUBLAS_SONAME, \
             #symbol, loader_says());                                                              \
    dlclose(h);                                                                                    \
    return;                                                                                        \
  }
  GCOO_CUBLAS_FUNCTIONS(GCOO_CUBLAS_LOOKUP_)
#undef GCOO_CUBLAS_LOOKUP_
  /* the handle is kept open for the life of the process: handles and their streams outlive
   * any one context */
  gcoo__cublas = api;
  loaded = 1;
}

gcoo_status gcoo__cublas_load(void) {
  pthread_once(&once, load_once);
  GCOO_CHECK(loaded, GCOO_ERR_CUBLAS, "%s", failure);
  return GCOO_SUCCESS;
}
