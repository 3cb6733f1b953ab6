/* SPDX-License-Identifier: MIT */
/* tests/faults/t950-faults-dist.c: faults on one rank of a distributed run, through the API
 * (gcoo/dist.h, gcoo/h5.h), CPU backend, any number of ranks >= 2 (ctest: 4). The rank that
 * suffers is F = 2 (the last rank when there are fewer). After every fault, every rank must return
 * an error (no hang: the ctest timeout is the judge, every step here takes milliseconds), the
 * failing rank its own status and message, the others GCOO_ERR_REMOTE with a message that names
 * the failing rank ("rank F: ..."), and the next collective call must work again.
 *   1. gcoo_dist_agree: a NO_MEMORY on rank F reaches everyone;
 *   2. a corrupt slab: column indices out of range in rows that only rank F reads, from a CSR
 *      HDF5 file (gcoo_dist_op_create_from_file);
 *   3. a rank that runs out of memory: rank F's address space is limited (setrlimit) to what it
 *      uses plus 48 MiB, then the operator is built from in-memory slabs, rank F's being the
 *      largest (its GCOO conversion needs ~150 MB);
 *   4. a file whose data disappears between open and read: all ranks open the file
 *      (gcoo_h5_sparse_open), then rank 0 truncates it, then every rank reads its slab: every
 *      rank must fail (HDF5 returns zeros for reads past the end of a file: the reader must notice
 *      that the file shrank, not compute with zeros); and the control: a file unlinked between
 *      open and read is still read whole (POSIX keeps open files), equal to the slab read before. */
#define _GNU_SOURCE
#include <hdf5.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "backend_impl.h" /* gcoo__set_error_text */
#include "gcoo/dist.h"
#include "gcoo/h5.h"
#include "unit_util.h"

static int rank, size, F;
static char dir[512];

/* Every rank's status after a collective call that failed on rank F: the failing rank keeps
 * `want`, the others GCOO_ERR_REMOTE naming rank F. */
static void expect_everyone_failed(gcoo_status st, gcoo_status want, const char *needle,
                                   const char *what) {
  char named[32];
  snprintf(named, sizeof named, "rank %d", F);
  if (rank == F) {
    TEST_CHECK(st == want, "%s: rank %d (the faulty one) returned %s, expected %s: %s", what, rank,
               gcoo_status_name(st), gcoo_status_name(want), gcoo_last_error());
    TEST_CHECK(!needle || strstr(gcoo_last_error(), needle),
               "%s: rank %d: message \"%s\" does not "
               "mention \"%s\"",
               what, rank, gcoo_last_error(), needle);
  } else {
    TEST_CHECK(st == GCOO_ERR_REMOTE, "%s: rank %d returned %s, expected GCOO_ERR_REMOTE: %s", what,
               rank, gcoo_status_name(st), gcoo_last_error());
    TEST_CHECK(strstr(gcoo_last_error(), named) != NULL,
               "%s: rank %d: message \"%s\" does not name "
               "%s",
               what, rank, gcoo_last_error(), named);
  }
}

/* The next collective works: a sum over ranks. */
static void still_works(gcoo_dist d, const char *after) {
  double v = 1.0;
  TEST_CALL(gcoo_dist_allreduce_sum(d, GCOO_FLOAT64, &v, 1, GCOO_MEM_HOST));
  TEST_CHECK(v == (double)size, "after %s: the sum over %d ranks is %g", after, size, v);
}

static void t_agree(gcoo_dist d) {
  gcoo_status local = GCOO_SUCCESS;
  if (rank == F) {
    gcoo__set_error_text("t950: cannot allocate 123456789 bytes for a test buffer");
    local = GCOO_ERR_NO_MEMORY;
  }
  gcoo_status st = gcoo_dist_agree(d, local);
  expect_everyone_failed(st, GCOO_ERR_NO_MEMORY, "123456789 bytes", "agree");
  still_works(d, "a failed agreement");
}

/* Overwrite entries [lo, hi) of dataset "indices" of a CSR file with an out-of-range column. */
static void corrupt_indices(const char *path, int64_t lo, int64_t hi, int32_t value) {
  hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
  hid_t ds = H5Dopen2(f, "indices", H5P_DEFAULT);
  hid_t fs = H5Dget_space(ds);
  hsize_t start = (hsize_t)lo, count = (hsize_t)(hi - lo);
  hid_t ms = H5Screate_simple(1, &count, NULL);
  int32_t *buf = malloc((size_t)count * sizeof *buf);
  for (hsize_t i = 0; i < count; i++) buf[i] = value;
  H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL);
  herr_t e = H5Dwrite(ds, H5T_NATIVE_INT32, ms, fs, H5P_DEFAULT, buf);
  free(buf);
  H5Sclose(ms);
  H5Sclose(fs);
  H5Dclose(ds);
  H5Fclose(f);
  if (e < 0) {
    fprintf(stderr, "t950: cannot corrupt %s\n", path);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

static void t_corrupt_slab(gcoo_dist d, const char *good, int64_t n) {
  char bad[600];
  snprintf(bad, sizeof bad, "%s/index.h5", dir);
  if (rank == 0) {
    /* the rows of rank F under an even split by entries (uniform rows: rows in proportion) */
    gcoo_sparse A = NULL;
    gcoo_sparse_arrays a;
    TEST_CALL(gcoo_h5_read_sparse(good, GCOO_FLOAT64, &A));
    TEST_CALL(gcoo_sparse_get_arrays(A, &a));
    int64_t r0 = n * (2 * F + 1) / (2 * size); /* the middle of rank F's share */
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", good, bad);
    if (system(cmd) != 0) MPI_Abort(MPI_COMM_WORLD, 2);
    corrupt_indices(bad, a.ptr[r0], a.ptr[r0 + 4], (int32_t)n + 5);
    gcoo_sparse_destroy(&A);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  gcoo_dist_op op = NULL;
  gcoo_status st = gcoo_dist_op_create_from_file(d, bad, GCOO_FLOAT64, NULL, &op);
  TEST_CHECK(op == NULL, "a failed operator creation returned an operator");
  expect_everyone_failed(st, GCOO_ERR_INDEX_RANGE, "outside", "corrupt slab");
  gcoo_dist_op_destroy(&op);
  still_works(d, "a corrupt slab");
}

static long vm_kib(void) {
  FILE *f = fopen("/proc/self/status", "r");
  char line[256];
  long kib = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "VmSize: %ld kB", &kib) == 1) break;
  if (f) fclose(f);
  return kib;
}

static void t_out_of_memory(gcoo_dist d) {
  /* slabs: rank F 2000 x 4000 at half density (4M entries), the others 10 rows */
  int64_t m_local = rank == F ? 2000 : 10, row0 = 0, m = 0;
  MPI_Exscan(&m_local, &row0, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) row0 = 0;
  MPI_Allreduce(&m_local, &m, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  gcoo_sparse slab = NULL;
  TEST_CALL(gcoo_sparse_random(&slab, GCOO_FLOAT32, GCOO_FORMAT_CSR, m_local, 4000,
                               rank == F ? 0.5 : 0.99, 77 + (uint64_t)rank, 0));
  struct rlimit old, rl;
  getrlimit(RLIMIT_AS, &old);
  if (rank == F) {
    /* below the slab's own size (4M entries: 32 MiB of indices and values), so that its one
     * copy into the operator's frame cannot be made */
    rl.rlim_cur = (rlim_t)(vm_kib() + 20 * 1024) * 1024;
    rl.rlim_max = old.rlim_max;
    if (setrlimit(RLIMIT_AS, &rl) != 0) perror("setrlimit");
  }
  gcoo_dist_op op = NULL;
  gcoo_status st = gcoo_dist_op_create(d, slab, row0, m, NULL, &op);
  if (rank == F) setrlimit(RLIMIT_AS, &old); /* raising the soft limit back is allowed */
  expect_everyone_failed(st, GCOO_ERR_NO_MEMORY, "cannot allocate", "out of memory");
  TEST_CHECK(op == NULL, "a failed operator creation returned an operator");
  gcoo_dist_op_destroy(&op);
  gcoo_sparse_destroy(&slab);
  still_works(d, "a rank out of memory");
}

/* Read this rank's even share of rows of an open file. */
static gcoo_status read_share(gcoo_h5_sparse_file f, int64_t n, gcoo_sparse *slab) {
  return gcoo_h5_sparse_read_slab(f, GCOO_FLOAT64, n * rank / size, n * (rank + 1) / size, slab);
}

static void t_disappearing_file(const char *good, int64_t n) {
  char path[600], cmd[1400];
  snprintf(path, sizeof path, "%s/vanish.h5", dir);
  for (int unlinked = 0; unlinked < 2; unlinked++) {
    if (rank == 0) {
      snprintf(cmd, sizeof cmd, "cp '%s' '%s'", good, path);
      if (system(cmd) != 0) MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    gcoo_h5_sparse_file f = NULL;
    gcoo_sparse before = NULL, after = NULL;
    TEST_CALL(gcoo_h5_sparse_open(MPI_COMM_WORLD, path, &f));
    TEST_CALL(read_share(f, n, &before));
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      if (unlinked)
        TEST_CHECK(unlink(path) == 0, "cannot unlink %s", path);
      else
        TEST_CHECK(truncate(path, 0) == 0, "cannot truncate %s", path);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    gcoo_status st = read_share(f, n, &after);
    if (unlinked) {
      TEST_CHECK(st == GCOO_SUCCESS, "rank %d: reading an unlinked (still open) file failed: %s",
                 rank, gcoo_last_error());
      if (st >= 0) ut_check_same(before, after, "a slab read after its file was unlinked");
    } else {
      TEST_CHECK(st < 0,
                 "rank %d: the file was truncated to 0 bytes between open and read, and "
                 "the read succeeded (HDF5 returns zeros past the end of a file)",
                 rank);
      TEST_CHECK(after == NULL, "rank %d: a failed read returned a slab", rank);
    }
    gcoo_sparse_destroy(&before);
    gcoo_sparse_destroy(&after);
    gcoo_h5_sparse_close(&f);
    if (rank == 0 && !unlinked) unlink(path);
  }
}

int main(int argc, char **argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    if (rank == 0) printf("t950-faults-dist: skipped (needs 2 ranks or more)\n");
    MPI_Finalize();
    return GCOO_TEST_SKIP;
  }
  F = size > 2 ? 2 : size - 1;
  if (rank == 0) {
    const char *base = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/gcoo-t950-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp(dir)) MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, MPI_COMM_WORLD);
  gcoo_dist d = NULL;
  TEST_CALL(gcoo_dist_create(&d, MPI_COMM_WORLD, "cpu"));

  const int64_t n = 4000;
  char good[600];
  snprintf(good, sizeof good, "%s/good.h5", dir);
  if (rank == 0) {
    gcoo_sparse A = NULL;
    TEST_CALL(gcoo_sparse_random(&A, GCOO_FLOAT64, GCOO_FORMAT_CSR, n, n, 0.99, 5, 0));
    TEST_CALL(gcoo_h5_write_sparse(good, A, 0));
    gcoo_sparse_destroy(&A);
  }
  MPI_Barrier(MPI_COMM_WORLD);

  t_agree(d);
  t_corrupt_slab(d, good, n);
  t_out_of_memory(d);
  t_disappearing_file(good, n);

  gcoo_dist_destroy(&d);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "t950: cannot remove %s\n", dir);
  }
  int failures = gcoo_test_failures, total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  gcoo_test_failures = total;
  int rc = rank == 0 ? gcoo_test_finish("t950-faults-dist") : (total ? 1 : 0);
  MPI_Finalize();
  return rc;
}
