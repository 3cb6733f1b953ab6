/* SPDX-License-Identifier: MIT */
/* gcoo/predict.h: predict the number of nonzeros of C = A B (and of each row of C) before
 * computing it, from the exact FLOP of every row and the exact NNZ of a sample of rows.
 *
 * Terms (docs/predictor.md). For A (M x K) and B (K x N), both CSR:
 *   flop(i) = sum over k in row i of A of nnz(B row k)  (products row i of C needs; exact)
 *   nnz(i)  = number of distinct columns among them        (what row i of C holds)
 *   F = sum flop(i), Z = sum nnz(i), compression ratio r = F / Z >= 1.
 * Cheap exact bounds on every row, computed with the FLOP: lo(i) = max_k nnz(B row k) <= nnz(i)
 * <= hi(i) = min(flop(i), N); a row with at most one entry in A has lo(i) = hi(i) = nnz(i).
 *
 * Methods (all selectable, so they can be compared on the same products):
 *   GCOO_PREDICT_ADAPTIVE   (the default) Z = sum lo(i) + sum (hi - lo)(i) u(i), the unknown
 *       part estimated from rows drawn systematically with probability proportional to
 *       hi(i) - lo(i), rows whose share exceeds one sampling interval taken whole; the sample
 *       doubles until the estimated relative standard error is at most `rel_error` or the
 *       sampled FLOP would pass `max_cost` of F. Unbiased for every sample size.
 *   GCOO_PREDICT_PAPER      Du et al.'s proposed design: s rows drawn uniformly (without
 *       replacement), r* = f* / z*, Z = F / r*. s = min(floor(0.003 M), 300), all rows when that is 0.
 *   GCOO_PREDICT_REFERENCE  the paper's reference design on the same kind of sample: Z = z* M / s.
 *   GCOO_PREDICT_PPS        s rows drawn with probability proportional to flop(i), with
 *       replacement; Z = F mean(nnz(i) / flop(i)) (Hansen-Hurwitz, unbiased). s = 300 by default.
 *   GCOO_PREDICT_UPPER      Z = sum hi(i): the FLOP upper bound (no sampling), what an
 *       upper-bound allocation (BRMerge-Upper, bhSPARSE) would reserve.
 *   GCOO_PREDICT_EXACT      every row counted: the symbolic phase of an SpGEMM (exact, slow).
 *   GCOO_PREDICT_CLASSES    rows with uncertainty classed by floor(log2 hi(i)); in each class
 *       1 % of its rows (at least 32, all of a smaller class) chosen by a seeded hash of the row
 *       are counted; Z = sum lo + sum_c u_c G_c with u_c the class's mean filled fraction of
 *       hi - lo. The GPU SpGEMM computes the same estimate on the device for the same seed.
 * Every method counts a sampled row's NNZ exactly with an open-addressing hash table sized to
 * twice the row's upper bound. Counts are 64-bit throughout. Sampling uses gcoo's seeded
 * generator (xoshiro256**): the same seed gives the same prediction on every machine. */
#ifndef GCOO_PREDICT_H
#define GCOO_PREDICT_H

#include "gcoo/sparse.h"

#ifdef __cplusplus
extern "C" {
#endif

/** How the size of C = A B is predicted (the methods above). */
typedef enum gcoo_predict_method {
  GCOO_PREDICT_DEFAULT = 0,   /**< GCOO_PREDICT_ADAPTIVE */
  GCOO_PREDICT_ADAPTIVE = 1,  /**< bounds + systematic PPS sample grown to a confidence target */
  GCOO_PREDICT_PAPER = 2,     /**< Du et al. proposed: F * z* / f* on a uniform row sample */
  GCOO_PREDICT_REFERENCE = 3, /**< Du et al. reference: z* M / s on a uniform row sample */
  GCOO_PREDICT_PPS = 4,       /**< rows drawn proportional to FLOP, F * mean(nnz/flop) */
  GCOO_PREDICT_UPPER = 5,     /**< sum of min(flop(i), N), no sampling */
  GCOO_PREDICT_EXACT = 6,     /**< all rows counted (symbolic SpGEMM) */
  GCOO_PREDICT_CLASSES = 7    /**< per-class sample (classes of floor(log2 hi)): the GPU's */
} gcoo_predict_method;

/** Name of a method ("adaptive", "paper", "reference", "pps", "upper", "exact", "classes"): a
 *  static string, "unknown" outside the enumeration. */
const char *gcoo_predict_method_name(gcoo_predict_method m);
/** The method named name (as gcoo_predict_method_name spells it), or -1 if unknown or NULL. */
int gcoo_predict_method_from_name(const char *name);

/** Options. Initialise with GCOO_PREDICT_OPTIONS_INIT, then change what you need. */
typedef struct gcoo_predict_options {
  size_t size; /**< sizeof(gcoo_predict_options) */
  gcoo_predict_method method;
  int64_t samples;   /**< PAPER/REFERENCE/PPS: rows drawn; ADAPTIVE: first sample size;
                                    0: the method's default. Never 0 in effect; all rows when it
                                    reaches M. */
  uint64_t seed;     /**< sampling seed (the same seed, the same answer) */
  double rel_error;  /**< ADAPTIVE: stop when the estimated relative standard error of
                                    the NNZ is at most this (0: default 0.003) */
  double max_cost;   /**< ADAPTIVE: never sample more FLOP than this fraction of F
                                    (0: default; 1: may count every row) */
  int want_row_flop; /**< fill gcoo_prediction.row_flop */
  int want_row_nnz;  /**< fill gcoo_prediction.row_nnz */
} gcoo_predict_options;

/** The sampling seed of GCOO_PREDICT_OPTIONS_INIT. */
#define GCOO_PREDICT_DEFAULT_SEED 0x9cc0f00dull
/** The defaults: the default method and seed, default error target and cost, no per-row
 *  arrays. */
#define GCOO_PREDICT_OPTIONS_INIT                                                                  \
  {                                                                                                \
    sizeof(gcoo_predict_options), GCOO_PREDICT_DEFAULT, 0, GCOO_PREDICT_DEFAULT_SEED, 0.0, 0.0, 0, \
        0                                                                                          \
  }

/** Defaults of the ADAPTIVE method (see docs/predictor.md for how they were chosen). */
#define GCOO_PREDICT_ADAPTIVE_FIRST 64        /**< rows in the first sample */
#define GCOO_PREDICT_ADAPTIVE_REL_ERROR 0.003 /**< target relative standard error */
#define GCOO_PREDICT_ADAPTIVE_MAX_COST 0.10   /**< most FLOP sampled, a fraction of F */

/** What a prediction found. Free with gcoo_prediction_free. */
typedef struct gcoo_prediction {
  gcoo_predict_method method;   /**< the method that ran (DEFAULT resolved) */
  int64_t nrows, ncols;         /**< of C */
  int64_t flop_total;           /**< F, exact */
  int64_t nnz_lower, nnz_upper; /**< sum lo(i), sum hi(i): exact bounds on nnz(C) */
  int64_t nnz_predicted;        /**< the prediction of nnz(C) (rounded, inside the bounds) */
  double nnz_estimate;          /**< the same before rounding */
  double compression_ratio;     /**< F / nnz_predicted; 1 when F = 0 */
  double rel_stderr;            /**< estimated relative standard error of nnz_estimate: 0 when
                                    exact, NaN when the method gives none */
  int exact;                    /**< 1 when every row with uncertainty was counted */
  int64_t samples;              /**< sample points drawn (with repetitions) */
  int64_t rows_counted;         /**< distinct rows whose NNZ was counted */
  int64_t flop_counted;         /**< FLOP of those rows: the cost of the sampling */
  double seconds_flop;          /**< time of the FLOP/bounds pass */
  double seconds;               /**< total time, FLOP pass included */
  int64_t *row_flop;            /**< nrows, when asked for (else NULL) */
  int64_t *row_nnz;             /**< nrows predicted row sizes, when asked for: exact for counted
                                    rows, otherwise inside [lo(i), hi(i)] */
} gcoo_prediction;

/** Predict nnz(A B). A and B of any format (CSR avoids a conversion), same element type not
 *  needed (only the pattern is read); A->ncols must equal B->nrows. opts NULL: defaults.
 *  Uses OpenMP threads. Not collective. */
gcoo_status gcoo_predict(gcoo_sparse A, gcoo_sparse B, const gcoo_predict_options *opts,
                         gcoo_prediction *pred);

/** Free the arrays of a prediction (the struct itself is the caller's). */
void gcoo_prediction_free(gcoo_prediction *pred);

/** Exact nnz(A B) and, if row_nnz is not NULL, of each row (nrows(A) entries, caller's array):
 *  the symbolic phase of SpGEMM (structural: numerical cancellation is not looked at). */
gcoo_status gcoo_spgemm_nnz_exact(gcoo_sparse A, gcoo_sparse B, int64_t *nnz, int64_t *row_nnz);

#ifdef __cplusplus
}
#endif
#endif
