/* SPDX-License-Identifier: MIT */
/* kernels/backend/device_cuda.c: the CUDA backend's device copies, streams, events and device
 * binding (gcoo_device_ops of gcoo/backend.h), so that dist/ reaches the CUDA runtime only
 * through the backend interface. Every failure goes through the one CUDA checker, kernels/common/cuda_check.h. */
#include <limits.h>

#include "copy_staged.h"
#include "common/cuda_check.h"

static gcoo_status copy_rows(void *dst, size_t dpitch, const void *src, size_t spitch,
                             size_t rowbytes, int64_t nrows, void *stream) {
  /* unified addressing tells the direction from the pointers; large pageable copies staged */
  GCOO_CALL(gcoo__cuda_copy_rows(dst, dpitch, src, spitch, rowbytes, nrows, (cudaStream_t)stream));
  return GCOO_SUCCESS;
}

static gcoo_status stream_create(void **stream) {
  *stream = NULL; /* cudaStream_t is a pointer: the handle is written in place */
  GCOO_CALL_CUDA(cudaStreamCreateWithFlags((cudaStream_t *)stream, cudaStreamNonBlocking));
  return GCOO_SUCCESS;
}

static void stream_destroy(void *stream) {
  if (stream) (void)cudaStreamDestroy((cudaStream_t)stream);
}

static gcoo_status stream_sync(void *stream) {
  GCOO_CALL_CUDA(cudaStreamSynchronize((cudaStream_t)stream));
  return GCOO_SUCCESS;
}

static gcoo_status stream_query(void *stream, int *done) {
  cudaError_t e = cudaStreamQuery((cudaStream_t)stream);
  *done = e != cudaErrorNotReady;
  if (e == cudaErrorNotReady) return GCOO_SUCCESS;
  GCOO_CALL_CUDA(e);
  return GCOO_SUCCESS;
}

static gcoo_status event_create(void **event) {
  *event = NULL; /* cudaEvent_t is a pointer: the handle is written in place */
  GCOO_CALL_CUDA(cudaEventCreateWithFlags((cudaEvent_t *)event, cudaEventDisableTiming));
  return GCOO_SUCCESS;
}

static void event_destroy(void *event) {
  if (event) (void)cudaEventDestroy((cudaEvent_t)event);
}

static gcoo_status event_record(void *event, void *stream) {
  GCOO_CALL_CUDA(cudaEventRecord((cudaEvent_t)event, (cudaStream_t)stream));
  return GCOO_SUCCESS;
}

static gcoo_status stream_wait_event(void *stream, void *event) {
  GCOO_CALL_CUDA(cudaStreamWaitEvent((cudaStream_t)stream, (cudaEvent_t)event, 0));
  return GCOO_SUCCESS;
}

static gcoo_status bind(int device) {
  GCOO_CALL_CUDA(cudaSetDevice(device));
  return GCOO_SUCCESS;
}

static gcoo_status pci_bus_id(int device, char *buf, size_t len) {
  GCOO_CHECK(buf != NULL && len > 0, GCOO_ERR_NULL, "bus id buffer is NULL or empty");
  GCOO_CALL_CUDA(cudaDeviceGetPCIBusId(buf, len > INT_MAX ? INT_MAX : (int)len, device));
  return GCOO_SUCCESS;
}

const gcoo_device_ops gcoo__device_cuda = {
    .copy_rows = copy_rows,
    .stream_create = stream_create,
    .stream_destroy = stream_destroy,
    .stream_sync = stream_sync,
    .stream_query = stream_query,
    .event_create = event_create,
    .event_destroy = event_destroy,
    .event_record = event_record,
    .stream_wait_event = stream_wait_event,
    .bind = bind,
    .pci_bus_id = pci_bus_id,
};
