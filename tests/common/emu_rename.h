/* SPDX-License-Identifier: MIT */
/* tests/common/emu_rename.h: in the CPU-emulated build of the kernel files (GCOO_CUDA_EMULATE), the
 * gateway functions they define get other names, so a test can link the emulated kernels and
 * the real libgcoo side by side. Include before gcoo_kernels.h. One line per function defined
 * in a .cu file. */
#ifndef GCOO_EMU_RENAME_H
#define GCOO_EMU_RENAME_H
#ifdef GCOO_CUDA_EMULATE
#define gcoo_cuda_csr_to_gcoo gcoo_emu_csr_to_gcoo
#define gcoo_cuda_dense_to_gcoo gcoo_emu_dense_to_gcoo
#define gcoo_cuda_gcoo_free gcoo_emu_gcoo_free
#define gcoo_cuda_tuned_build gcoo_emu_tuned_build
#define gcoo_cuda_tuned_free gcoo_emu_tuned_free
#define gcoo_cuda_reuse_stats gcoo_emu_reuse_stats
#define gcoo_cuda_csr_to_dense gcoo_emu_csr_to_dense
#define gcoo_cuda_scale gcoo_emu_scale
#define gcoo_cuda_spdm_faithful gcoo_emu_spdm_faithful
#define gcoo_cuda_tuned_variant_count gcoo_emu_tuned_variant_count
#define gcoo_cuda_tuned_variant_name gcoo_emu_tuned_variant_name
#define gcoo_cuda_tuned_variant_resident gcoo_emu_tuned_variant_resident
#define gcoo_cuda_spdm_tuned gcoo_emu_spdm_tuned
#define gcoo_cuda_tuned_build_resident gcoo_emu_tuned_build_resident
#define gcoo_cuda_resident_fits gcoo_emu_resident_fits
#define gcoo_cuda_xres_split_base gcoo_emu_xres_split_base
#define gcoo_cuda_spdm_resident gcoo_emu_spdm_resident
#define gcoo_cuda_tuned_variant_split gcoo_emu_tuned_variant_split
#define gcoo_cuda_tuned_variant_ordered gcoo_emu_tuned_variant_ordered
#define gcoo_cuda_tuned_build_split gcoo_emu_tuned_build_split
#define gcoo_cuda_tuned_build_split_order gcoo_emu_tuned_build_split_order
#define gcoo_cuda_spdm_split gcoo_emu_spdm_split
#define gcoo_cuda_tuned_build_order gcoo_emu_tuned_build_order
#define gcoo_cuda_spdm_batched gcoo_emu_spdm_batched
#define gcoo_cuda_batched_supported gcoo_emu_batched_supported
#define gcoo_cuda_batched_fits gcoo_emu_batched_fits
#define gcoo_cuda_tc_build gcoo_emu_tc_build
#define gcoo_cuda_tc_free gcoo_emu_tc_free
#define gcoo_cuda_spdm_tc gcoo_emu_spdm_tc
#endif
#endif
