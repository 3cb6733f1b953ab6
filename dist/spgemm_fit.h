/* SPDX-License-Identifier: MIT */
/* dist/spgemm_fit.h: does a predicted SpGEMM output fit the job? (dist/spgemm_fit.c) */
#ifndef GCOO_DIST_SPGEMM_FIT_H
#define GCOO_DIST_SPGEMM_FIT_H

#include "gcoo/predict.h"

/** GCOO_ERR_NO_MEMORY, naming the predicted size, when C = A B as predicted by pred (m rows,
 *  with the row space safety factor) cannot fit the memory nranks ranks can have. Rank 0, before
 *  any product is computed. Not collective. */
gcoo_status gcoo__spgemm_output_fits(const gcoo_prediction *pred, int64_t m, gcoo_dtype dtype,
                                     double safety, int nranks);

#endif
