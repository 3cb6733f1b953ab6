/* SPDX-License-Identifier: MIT */
/* src/ctx.c: contexts: parse the resource string, pick the backend table from the backend list,
 * bind the device; the backend-wide calls (device count, start-up) through the list. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_impl.h"
#include "params.h"

gcoo_status gcoo_ctx_create(gcoo_ctx *out, const char *resource) {
  gcoo_status st = GCOO_SUCCESS;
  struct gcoo_ctx_s *ctx = NULL;
  GCOO_CHECK(out != NULL, GCOO_ERR_NULL, "output handle is NULL");
  *out = NULL;
  if (!resource) resource = gcoo__param_str(GCOO__P_BACKEND);
  if (!*resource) resource = "auto";

  const gcoo_backend_ops *ops = NULL;
  int device = -1;
  if (!strcmp(resource, "cpu")) {
    ops = gcoo__backend_named("cpu");
  } else if (!strcmp(resource, "auto")) {
    ops = gcoo__backend_named(gcoo_cuda_device_count() > 0 ? "cuda" : "cpu");
  } else if (!strncmp(resource, "cuda", 4) || !strncmp(resource, "gpu", 3)) {
    const char *colon = strchr(resource, ':');
    const char *tail = resource + (resource[0] == 'c' ? 4 : 3);
    GCOO_CHECK(*tail == '\0' || colon == tail, GCOO_ERR_INVALID_ARG,
               "unknown resource \"%s\" (expected cpu, cuda, cuda:N or auto)", resource);
    if (colon) {
      char *end = NULL;
      long d = strtol(colon + 1, &end, 10);
      GCOO_CHECK(end && end != colon + 1 && *end == '\0' && d >= 0 && d < 1 << 20,
                 GCOO_ERR_INVALID_ARG, "bad device number in \"%s\"", resource);
      device = (int)d;
    }
    ops = gcoo__backend_named("cuda");
  } else {
    return GCOO_ERROR(GCOO_ERR_INVALID_ARG,
                      "unknown resource \"%s\" (expected cpu, cuda, cuda:N or auto)", resource);
  }
  GCOO_GOTO(gcoo__calloc((void **)&ctx, 1, sizeof *ctx, "context"));
  ctx->magic = GCOO_MAGIC_CTX;
  ctx->ops = ops;
  ctx->device = -1;
  GCOO_GOTO(ops->ctx_init(ctx, device));
  GCOO_LOG(GCOO_LOG_INFO, "INIT", "context on backend %s, device %d", ops->name, ctx->device);
  *out = ctx;
  ctx = NULL;
done:
  if (ctx) {
    ctx->magic = GCOO_MAGIC_FREED;
    free(ctx);
  }
  return st;
}

const gcoo_backend_ops *gcoo__backend_named(const char *name) {
#define GCOO_BACKEND_NAMED_(id, table, compiled, label, how) \
  if (!strcmp(name, #id)) return &table;
  GCOO_BACKEND_LIST(GCOO_BACKEND_NAMED_)
#undef GCOO_BACKEND_NAMED_
  return NULL;
}

int gcoo_cuda_device_count(void) {
  const gcoo_backend_ops *cuda = gcoo__backend_named("cuda");
  return cuda->device_count ? cuda->device_count() : 0;
}

void gcoo_cuda_prestart(int device) {
  const gcoo_backend_ops *cuda = gcoo__backend_named("cuda");
  if (cuda->prestart) cuda->prestart(device);
}

gcoo_status gcoo__ctx_solver(gcoo_ctx ctx, const gcoo_solver_ops **sv) {
  *sv = ctx->ops->solver;
  GCOO_CHECK(*sv != NULL, GCOO_ERR_UNSUPPORTED,
             "the %s backend has no device-resident solver iterations (device operands need a "
             "CUDA context)",
             ctx->ops->name);
  return GCOO_SUCCESS;
}

gcoo_status gcoo_ctx_destroy(gcoo_ctx *ctx) {
  if (!ctx || !*ctx) return GCOO_SUCCESS;
  GCOO_VALID_OBJECT(*ctx, GCOO_MAGIC_CTX, "context");
  gcoo_status st = (*ctx)->ops->ctx_fini(*ctx);
  (*ctx)->magic = GCOO_MAGIC_FREED;
  free(*ctx);
  *ctx = NULL;
  GCOO_CALL(st);
  return GCOO_SUCCESS;
}

const char *gcoo_ctx_backend(gcoo_ctx ctx) {
  return ctx && ctx->magic == GCOO_MAGIC_CTX ? ctx->ops->name : "invalid";
}

int gcoo_ctx_device(gcoo_ctx ctx) { return ctx && ctx->magic == GCOO_MAGIC_CTX ? ctx->device : -1; }

gcoo_status gcoo_ctx_describe(gcoo_ctx ctx, char *buf, size_t len) {
  GCOO_VALID_OBJECT(ctx, GCOO_MAGIC_CTX, "context");
  GCOO_CHECK(buf != NULL && len > 0, GCOO_ERR_NULL, "buffer is NULL");
  GCOO_CALL(ctx->ops->ctx_describe(ctx, buf, len));
  return GCOO_SUCCESS;
}

gcoo_status gcoo_ctx_set_stream(gcoo_ctx ctx, void *stream) {
  GCOO_VALID_OBJECT(ctx, GCOO_MAGIC_CTX, "context");
  if (ctx->device >= 0) ctx->stream = stream;
  return GCOO_SUCCESS;
}

void *gcoo_ctx_stream(gcoo_ctx ctx) {
  return ctx && ctx->magic == GCOO_MAGIC_CTX ? ctx->stream : NULL;
}

gcoo_status gcoo_ctx_synchronize(gcoo_ctx ctx) {
  GCOO_VALID_OBJECT(ctx, GCOO_MAGIC_CTX, "context");
  GCOO_CALL(ctx->ops->ctx_synchronize(ctx));
  return GCOO_SUCCESS;
}
