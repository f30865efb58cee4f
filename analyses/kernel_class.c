/* kernel_class: the name-pattern table (see kernel_class.h and docs/ANALYSIS.md "classes").
 *
 * The table is data: one row per pattern, {prefix, substring, class, note}, both matched on
 * the ASCII-lowercased name (a leading "void " is skipped for the prefix), both optional
 * (NULL = no condition), first matching row wins, KC_OTHER when none matches. Rows are
 * ordered from the most specific to the most generic: communication and the runtime's copy
 * and fill kernels first (their names contain "reduce" or "copy"), then attention (flash
 * attention kernels contain "gemm"), normalization, convolution (cuDNN and MIOpen implicit
 * GEMM convolutions contain "gemm"), Triton by its fused op words, GEMM, then reductions
 * and elementwise kernels. tests/kernel_classes_expected.tsv checks every fixture's kernel
 * names against it. */
#include "analyses/kernel_class.h"

#include <stdlib.h>
#include <string.h>

static const char *const KEYS[] = {"gemm", "attention", "communication", "memcpy", "memset",
                                   "elementwise", "reduction", "normalization", "convolution", "barrier", "other"};
_Static_assert(sizeof KEYS / sizeof *KEYS == KC_COUNT, "KEYS: one entry per value below KC_COUNT");

const char *kernel_class_key(kernel_class c) { return (unsigned)c < KC_COUNT ? KEYS[c] : "other"; }

typedef struct class_rule {
    const char *prefix;     /* the lowercased name (after "void ") starts with it; NULL: any */
    const char *contains;   /* the lowercased name contains it; NULL: any */
    kernel_class cls;
    const char *note;       /* what the row recognises (documented in ANALYSIS.md) */
} class_rule;

static const class_rule RULES[] = {
    /* not kernels: the time a queue's barrier-AND/OR packet waited (legacy rocprof lists it as a dispatch) */
    {"<barrier packet", NULL, KC_BARRIER, "legacy rocprof's <barrier packet> rows (queue barriers, not kernels)"},
    /* communication: NCCL / RCCL and collective words (TraceLens: rccl|nccl|cross_device_reduce) */
    {NULL, "nccl", KC_COMMUNICATION, "NCCL (ncclDevKernel_*, ncclKernel_*)"},
    {NULL, "rccl", KC_COMMUNICATION, "RCCL"},
    {NULL, "cross_device_reduce", KC_COMMUNICATION, "vLLM custom all-reduce"},
    {NULL, "allreduce", KC_COMMUNICATION, "all-reduce kernels"},
    {NULL, "all_reduce", KC_COMMUNICATION, "all-reduce kernels"},
    {NULL, "allgather", KC_COMMUNICATION, "all-gather kernels"},
    {NULL, "all_gather", KC_COMMUNICATION, "all-gather kernels"},
    {NULL, "reducescatter", KC_COMMUNICATION, "reduce-scatter kernels"},
    {NULL, "reduce_scatter", KC_COMMUNICATION, "reduce-scatter kernels"},
    {NULL, "alltoall", KC_COMMUNICATION, "all-to-all kernels"},
    {NULL, "all_to_all", KC_COMMUNICATION, "all-to-all kernels"},
    /* the runtimes' copy and fill kernels */
    {"__amd_rocclr_copy", NULL, KC_MEMCPY, "HIP runtime blit copies (__amd_rocclr_copyBuffer, copyBufferRect, copyImage)"},
    {"__amd_rocclr_fill", NULL, KC_MEMSET, "HIP runtime fills (__amd_rocclr_fillBuffer, fillBufferAligned, fillImage)"},
    {NULL, "memcpy", KC_MEMCPY, "memcpy kernels"},
    {NULL, "copybuffer", KC_MEMCPY, "blit copy kernels"},
    {NULL, "memset", KC_MEMSET, "memset kernels (incl. Triton *_memset)"},
    {NULL, "fillbuffer", KC_MEMSET, "blit fill kernels"},
    /* attention (before GEMM: fused attention kernels contain gemm words) */
    {NULL, "reshape_and_cache", KC_ELEMENTWISE, "vLLM KV-cache write (contains \"flash\", is not attention)"},
    {NULL, "fmha", KC_ATTENTION, "CK / aiter fused multi-head attention (fmha_fwd, FmhaFwdKernel)"},
    {NULL, "flash", KC_ATTENTION, "FlashAttention (flash_fwd_kernel, flash_attn_*)"},
    {NULL, "attention", KC_ATTENTION, "attention kernels (paged_attention, unified_attention, scaled_dot_product_attention)"},
    {NULL, "attn", KC_ATTENTION, "attention kernels (attn_fwd, triton attn)"},
    {NULL, "sdpa", KC_ATTENTION, "SDPA kernels"},
    {NULL, "bwd_kernel_fuse", KC_ATTENTION, "Triton FlashAttention backward (ROCm flash-attention, beside attn_fwd)"},
    /* normalization (softmax normalises a row: reduce then scale, like a norm) */
    {NULL, "layer_norm", KC_NORMALIZATION, "at::native layer norm, Triton native_layer_norm"},
    {NULL, "layernorm", KC_NORMALIZATION, "apex / CK layernorm"},
    {NULL, "rms_norm", KC_NORMALIZATION, "RMS norm (vLLM, Triton)"},
    {NULL, "rmsnorm", KC_NORMALIZATION, "RMS norm (CK ck_tile Rmsnorm2dFwd)"},
    {NULL, "batch_norm", KC_NORMALIZATION, "batch norm"},
    {NULL, "batchnorm", KC_NORMALIZATION, "batch norm (cuDNN bn_fw_*, MIOpen BatchNorm*)"},
    {NULL, "bn_fw", KC_NORMALIZATION, "cuDNN batch norm forward"},
    {NULL, "bn_bw", KC_NORMALIZATION, "cuDNN batch norm backward"},
    {NULL, "group_norm", KC_NORMALIZATION, "group norm"},
    {NULL, "groupnorm", KC_NORMALIZATION, "group norm"},
    {NULL, "instance_norm", KC_NORMALIZATION, "instance norm"},
    {NULL, "gammabeta", KC_NORMALIZATION, "layer norm backward (cuComputeGradGammaBeta, cuComputePartGradGammaBeta)"},
    {NULL, "softmax", KC_NORMALIZATION, "softmax (cunn_SoftMaxForward, Triton softmax)"},
    /* convolution (before GEMM: implicit-GEMM convolutions contain "gemm") */
    {NULL, "nchwtonhwc", KC_ELEMENTWISE, "cuDNN layout transform"},
    {NULL, "nhwctonchw", KC_ELEMENTWISE, "cuDNN layout transform"},
    {NULL, "convolution", KC_CONVOLUTION, "convolution kernels (gridwise_convolution_*)"},
    {NULL, "conv1d", KC_CONVOLUTION, "1-D convolution"},
    {NULL, "conv2d", KC_CONVOLUTION, "2-D convolution"},
    {NULL, "conv3d", KC_CONVOLUTION, "3-D convolution"},
    {NULL, "conv_", KC_CONVOLUTION, "convolution kernels (naive_conv_fwd, MIOpen conv_*)"},
    {NULL, "asmconv", KC_CONVOLUTION, "MIOpen assembly convolutions (miopenSp3AsmConv*)"},
    {NULL, "igemm_", KC_CONVOLUTION, "MIOpen implicit-GEMM convolutions (igemm_fwd_gtc*, igemm_bwd_*, igemm_wrw_*)"},
    {NULL, "implicit_gemm", KC_CONVOLUTION, "cuDNN implicit-GEMM convolutions (xmma_fprop_implicit_gemm)"},
    {NULL, "fprop", KC_CONVOLUTION, "cuDNN convolution forward"},
    {NULL, "dgrad", KC_CONVOLUTION, "cuDNN convolution data gradient"},
    {NULL, "wgrad", KC_CONVOLUTION, "cuDNN convolution weight gradient"},
    {NULL, "winograd", KC_CONVOLUTION, "Winograd convolutions"},
    {NULL, "scudnn", KC_CONVOLUTION, "cuDNN convolution kernels (*_scudnn_*)"},
    {NULL, "cask_cudnn", KC_CONVOLUTION, "cuDNN convolution helpers (cask_cudnn::computeOffsetsKernel)"},
    {"fft2d_", NULL, KC_CONVOLUTION, "cuDNN FFT convolution"},
    {NULL, "depthwise", KC_CONVOLUTION, "depthwise convolutions"},
    /* Triton (Inductor names say what was fused: triton_<kind>_fused_<ops>) */
    {"triton_tem_", NULL, KC_GEMM, "Inductor template kernels (mm, bmm, addmm)"},
    {"triton_", "_mm", KC_GEMM, "Triton fused matmul"},
    {"triton_", "addmm", KC_GEMM, "Triton fused addmm"},
    {"triton_red_", NULL, KC_REDUCTION, "Inductor reduction kernels"},
    {"triton_per_", NULL, KC_REDUCTION, "Inductor persistent reductions"},
    {"triton_poi_", NULL, KC_ELEMENTWISE, "Inductor pointwise kernels"},
    /* the MoE matmul finalize step sums expert outputs (its name contains "matmul") */
    {NULL, "finalize_matmul", KC_REDUCTION, "Triton MoE finalize (sums top-k expert outputs)"},
    /* GEMM: both vendors' BLAS libraries and the generic words */
    {"cijk_", NULL, KC_GEMM, "Tensile (rocBLAS / hipBLASLt) Cijk_* kernels"},
    {NULL, "hipblaslt", KC_GEMM, "hipBLASLt"},
    {NULL, "wvsplitk", KC_GEMM, "vLLM skinny GEMM (wvSplitK)"},
    {NULL, "nvjet", KC_GEMM, "cuBLAS nvjet kernels (Hopper/Blackwell)"},
    {NULL, "xmma", KC_GEMM, "cuBLAS xmma kernels (sm90_xmma_gemm_*)"},
    {NULL, "cutlass", KC_GEMM, "CUTLASS kernels"},
    {NULL, "cublas", KC_GEMM, "cuBLAS / cuBLASLt kernels (incl. the cublasLt epilogue)"},
    {NULL, "rocblas", KC_GEMM, "rocBLAS kernels"},
    {NULL, "gemm", KC_GEMM, "GEMM kernels (ck BatchedGemmKernel, ampere_sgemm_*, *_gemm_*)"},
    {NULL, "gemv", KC_GEMM, "matrix-vector kernels"},
    {NULL, "matmul", KC_GEMM, "matmul kernels (Triton _matmul_*)"},
    {NULL, "matrix_mul", KC_GEMM, "matrix multiplication kernels (batched_matrix_multiplication)"},
    /* reductions */
    {NULL, "reduce", KC_REDUCTION, "at::native reduce_kernel, reduce_segments"},
    {NULL, "topk", KC_REDUCTION, "top-k selection"},
    {NULL, "argmax", KC_REDUCTION, "argmax"},
    {NULL, "argmin", KC_REDUCTION, "argmin"},
    {NULL, "_sum_", KC_REDUCTION, "sums (_sum_bitmatrix_rows)"},
    {NULL, "cumsum", KC_REDUCTION, "prefix sums"},
    {NULL, "scan", KC_REDUCTION, "scans"},
    {NULL, "pool", KC_REDUCTION, "pooling (max_pool, adaptive_average_pool): windowed reductions"},
    {NULL, "lpnorm", KC_REDUCTION, "Lp norms of tensor lists (LpNormFunctor, lpnorm_cleanup: gradient clipping)"},
    {NULL, "classnllcriterion", KC_REDUCTION, "NLL loss (cunn_ClassNLLCriterion_*: sums over the batch)"},
    {NULL, "compute_grad_weight", KC_REDUCTION, "embedding backward: per-index gradient sums"},
    {NULL, "partial_segment", KC_REDUCTION, "embedding backward: segment bookkeeping of the gradient sums"},
    {NULL, "partials_per_segment", KC_REDUCTION, "embedding backward: segment bookkeeping of the gradient sums"},
    /* elementwise / memory-bound kernels */
    {NULL, "elementwise", KC_ELEMENTWISE, "at::native elementwise_kernel, vectorized_/unrolled_elementwise_kernel"},
    {NULL, "multi_tensor_apply", KC_ELEMENTWISE, "fused optimizer steps"},
    {NULL, "dropout", KC_ELEMENTWISE, "dropout"},
    {NULL, "indexselect", KC_ELEMENTWISE, "index_select"},
    {NULL, "gather", KC_ELEMENTWISE, "gather"},
    {NULL, "scatter", KC_ELEMENTWISE, "scatter"},
    {NULL, "index_", KC_ELEMENTWISE, "indexing kernels"},
    {NULL, "catarray", KC_ELEMENTWISE, "torch.cat"},
    {NULL, "transpose", KC_ELEMENTWISE, "transposes"},
    {NULL, "rotary", KC_ELEMENTWISE, "rotary embeddings"},
    {NULL, "embedding", KC_ELEMENTWISE, "embedding lookups"},
    {NULL, "activation", KC_ELEMENTWISE, "activation kernels (vLLM act_and_mul)"},
    {NULL, "scalepackedtensor", KC_ELEMENTWISE, "cuDNN tensor scaling"},
    {NULL, "::transform_kernel", KC_ELEMENTWISE, "rocPRIM transform"},
};
#define N_RULES (sizeof RULES / sizeof RULES[0])

/* ASCII lower case (the table's patterns are lower-case ASCII; other bytes compare as they are). */
static inline char lower(char c) { return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c; }

/* Does s[0..n) start with p, case-folded? */
static int starts_with(const char *s, size_t n, const char *p) {
    size_t m = strlen(p);
    if (m > n) return 0;
    for (size_t i = 0; i < m; i++)
        if (lower(s[i]) != p[i]) return 0;
    return 1;
}

/* Does s[0..n) contain w, case-folded? */
static int contains(const char *s, size_t n, const char *w) {
    size_t m = strlen(w);
    if (m > n) return 0;
    for (size_t i = 0; i + m <= n; i++)
        if (lower(s[i]) == w[0] && starts_with(s + i + 1, m - 1, w + 1)) return 1;
    return 0;
}

/* The row of the table that classifies a name (compared case-folded, in place: no copy, so no
 * allocation that could fail for a long name), or -1. */
static int rule_of(const char *name, size_t n) {
    const char *body = name;
    size_t bn = n;
    if (starts_with(body, bn, "void ")) body += 5, bn -= 5;
    for (size_t i = 0; i < N_RULES; i++) {
        const class_rule *r = &RULES[i];
        if (r->prefix && !starts_with(body, bn, r->prefix)) continue;
        if (r->contains && !contains(name, n, r->contains)) continue;
        return (int)i;
    }
    return -1;
}

kernel_class kernel_class_of(const char *name, size_t len) {
    if (!name) return KC_OTHER;
    int r = rule_of(name, len);
    return r < 0 ? KC_OTHER : RULES[r].cls;
}
