# SPDX-License-Identifier: Apache-2.0
"""tilelang.PassConfigKey: the pass-config keys as a str enum, each member's value its string
spelling. tilejitd accepts either spelling (compiler/pass_config.cc holds the table); the
package sends the string. Keys that have no effect on the Ascend target are accepted and
reported back as ignored (Kernel.metadata.ignored_config_keys)."""
import enum


class PassConfigKey(str, enum.Enum):
    TL_ASCEND_AUTO_SYNC = "tl.ascend_auto_sync"
    TL_ASCEND_MEMORY_PLANNING = "tl.ascend_memory_planning"
    TL_ASCEND_AUTO_CV_COMBINE = "tl.ascend_auto_cv_combine"
    TL_ASCEND_AUTO_CV_SYNC = "tl.ascend_auto_cross_core_sync"
    TILEJIT_AUTO_MULTI_BUFFER = "tilejit.auto_multi_buffer"
    TL_SIMPLIFY = "tl.Simplify"
    TL_DYNAMIC_ALIGNMENT = "tl.dynamic_alignment"
    TL_DISABLE_DYNAMIC_TAIL_SPLIT = "tl.disable_dynamic_tail_split"
    TL_DISABLE_WARP_SPECIALIZED = "tl.disable_warp_specialized"
    TL_CONFIG_INDEX_BITWIDTH = "tl.config_index_bitwidth"
    TL_DISABLE_TMA_LOWER = "tl.disable_tma_lower"
    TL_DISABLE_SAFE_MEMORY_ACCESS = "tl.disable_safe_memory_legalize"
    TL_DEBUG_MERGE_SHARED_MEMORY_ALLOCATIONS = "tl.debug_merge_shared_memory_allocations"
    TIR_ENABLE_EQUIV_TERMS_IN_CSE = "tir.enable_equiv_terms_in_cse_tir"
    TIR_DISABLE_CSE = "tir.disable_cse_tir"
    TIR_SIMPLIFY = "tir.Simplify"
    TIR_DISABLE_STORAGE_REWRITE = "tir.disable_storage_rewrite"
    TIR_DISABLE_VECTORIZE = "tir.disable_vectorize"
    TIR_USE_ASYNC_COPY = "tir.use_async_copy"
    TIR_ENABLE_DEBUG = "tir.enable_debug"
    TIR_MERGE_STATIC_SMEM = "tir.merge_static_smem"
    TIR_ADD_LOWER_PASS = "tir.add_lower_pass"
    TIR_NOALIAS = "tir.noalias"
    CUDA_KERNELS_OUTPUT_DIR = "cuda.kernels_output_dir"

    def __str__(self):
        return self.value


def key_string(key):
    """The string spelling of a pass-config key given as a PassConfigKey or a string (either
    spelling: the daemon normalises it)."""
    if isinstance(key, PassConfigKey):
        return key.value
    if isinstance(key, enum.Enum):
        return str(key.value)
    if isinstance(key, str):
        return str(key)
    raise TypeError(f"pass_configs key {key!r} is a {type(key).__name__}; keys are strings or "
                    "tilelang.PassConfigKey members")
