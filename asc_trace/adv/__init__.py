"""`asc.adv`: the high-level API (Ascend C `include/adv_api`) under pyasc's names, emitted as the vendor's
own calls; docs/adv.md."""
from __future__ import annotations

from .math import (acos, acosh, asin, asinh, atan, atanh, axpy, ceil, cos, cosh, digamma, erf, erfc, exp, floor,
                   frac, lgamma, log, power, round, sign, sin, sinh, tan, tanh, trunc, xor)  # noqa: A004

from . import math as _math
from . import tiling as _tiling
from .activation import faster_gelu, gelu, log_softmax, sigmoid, silu, softmax, swiglu
from .normalization import layernorm, rmsnorm
from .activation_glu import HELPERS as _ACT_HELPERS, geglu, reglu, swish
from .sort import concat, extract
from .softmax_variants import simple_softmax, softmax_flash_v2
from .tiling_softmax import (GetSoftMaxFlashV2MaxTmpSize, GetSoftMaxFlashV2MinTmpSize, SoftMaxFlashV2TilingFunc,
                             get_softmax_flash_v2_max_tmp_size, get_softmax_flash_v2_min_tmp_size,
                             softmax_flash_v2_tiling_func)
from .quantization import QuantConfig, quant
from .tiling_norm import (GetLayerNormMaxMinTmpSize, GetLayerNormNDTilingInfo, LayerNormTiling,
                          get_layernorm_max_min_tmp_size, get_layernorm_nd_tiling_info)
from .tiling import (GetAscendQuantMaxMinTmpSize, GetRmsNormMaxMinTmpSize, GetRmsNormTilingInfo,
                     GetSoftMaxMaxTmpSize, GetSoftMaxMinTmpSize, RmsNormTiling, SoftMaxTiling, SoftMaxTilingFunc,
                     SoftmaxTiling, get_ascend_quant_max_min_tmp_size, get_rms_norm_max_min_tmp_size,
                     get_rms_norm_tiling_info, get_softmax_max_tmp_size, get_softmax_min_tmp_size,
                     softmax_tiling_func, LogSoftMaxTiling, log_softmax_tiling_func, get_log_softmax_max_tmp_size,
                     get_log_softmax_min_tmp_size, GetLogSoftMaxMaxTmpSize, GetLogSoftMaxMinTmpSize,
                     LogSoftMaxTilingFunc)

globals().update(_tiling.MATH_HELPERS)
globals().update(_ACT_HELPERS)

from .matmul import Matmul, register_matmul  # noqa: E402
from .matmul_types import (MatmulBatchParams, MatmulConfig, MatmulFuncParams, MatmulQuantParams,  # noqa: E402
                           MatmulShapeParams, MatmulType, TCubeTiling, get_basic_config, get_ib_share_norm_config,
                           get_mdl_config, get_mm_config, get_normal_config, get_special_basic_config,
                           get_special_mdl_config)

# pyasc's Matmul names, not provided yet: a NotProvidedError naming the basic cube API
from ..proxies.not_provided import adv_getattr as __getattr__  # noqa: E402

__all__ = list(_math.__all__) + ["softmax", "gelu", "faster_gelu", "silu", "sigmoid", "swiglu", "rmsnorm", "quant", "QuantConfig", "SoftmaxTiling", "SoftMaxTiling", "RmsNormTiling",
                                 "get_softmax_max_tmp_size", "get_softmax_min_tmp_size", "softmax_tiling_func",
                                 "get_rms_norm_max_min_tmp_size", "get_rms_norm_tiling_info",
                                 "get_ascend_quant_max_min_tmp_size", "GetSoftMaxMaxTmpSize", "GetSoftMaxMinTmpSize",
                                 "SoftMaxTilingFunc", "GetRmsNormMaxMinTmpSize", "GetRmsNormTilingInfo",
                                 "GetAscendQuantMaxMinTmpSize", "layernorm", "LayerNormTiling",
                                 "get_layernorm_max_min_tmp_size", "get_layernorm_nd_tiling_info",
                                 "GetLayerNormMaxMinTmpSize", "GetLayerNormNDTilingInfo", "log_softmax",
                                 "LogSoftMaxTiling", "log_softmax_tiling_func", "get_log_softmax_max_tmp_size",
                                 "get_log_softmax_min_tmp_size", "GetLogSoftMaxMaxTmpSize",
                                 "GetLogSoftMaxMinTmpSize", "LogSoftMaxTilingFunc", "concat", "extract", "Matmul", "register_matmul", "MatmulType", "MatmulConfig",
                                 "TCubeTiling", "MatmulShapeParams", "MatmulQuantParams", "MatmulBatchParams",
                                 "MatmulFuncParams", "get_basic_config", "get_ib_share_norm_config", "get_mdl_config",
                                 "get_mm_config", "get_normal_config", "get_special_basic_config",
                                 "get_special_mdl_config"] + sorted(_tiling.MATH_HELPERS) + ["swish", "geglu", "reglu"] + sorted(_ACT_HELPERS) + ["simple_softmax", "softmax_flash_v2", "get_softmax_flash_v2_min_tmp_size",
                                                         "get_softmax_flash_v2_max_tmp_size", "softmax_flash_v2_tiling_func",
                                                         "GetSoftMaxFlashV2MinTmpSize", "GetSoftMaxFlashV2MaxTmpSize",
                                                         "SoftMaxFlashV2TilingFunc"]

# AscendDequant
from .dequant import (DeQuantMode, DequantParams, GetAscendDequantMaxMinTmpSize, dequant,  # noqa: E402
                      dequant_scalar, get_ascend_dequant_max_min_tmp_size)
__all__ += ["dequant", "dequant_scalar", "DequantParams", "DeQuantMode", "get_ascend_dequant_max_min_tmp_size",
            "GetAscendDequantMaxMinTmpSize"]

# Sum, Mean
from .reduce import (GetMeanMaxMinTmpSize, GetSumMaxMinTmpSize, MeanParams, SumParams,  # noqa: E402
                     get_mean_max_min_tmp_size, get_sum_max_min_tmp_size, mean, sum)  # noqa: A004
__all__ += ["sum", "mean", "SumParams", "MeanParams", "get_sum_max_min_tmp_size", "get_mean_max_min_tmp_size",
            "GetSumMaxMinTmpSize", "GetMeanMaxMinTmpSize"]

# Log2, Log10, ClampMax, ClampMin
from . import math_more as _math_more  # noqa: E402
from .math_more import (GetClampMaxMinTmpSize, GetFmodMaxMinTmpSize, GetLog2MaxMinTmpSize,  # noqa: E402
                        GetLog10MaxMinTmpSize, clamp_max, clamp_min, fmod, get_clamp_max_min_tmp_size,
                        get_fmod_max_min_tmp_size, get_log2_max_min_tmp_size,
                        get_log10_max_min_tmp_size, log2, log10)
__all__ += list(_math_more.__all__)

# AscendAntiQuant (per-tensor form)
from . import antiquant as _antiquant  # noqa: E402
from .antiquant import (GetAscendAntiQuantMaxMinTmpSize, ascend_antiquant,  # noqa: E402
                        get_ascend_antiquant_max_min_tmp_size)
__all__ += list(_antiquant.__all__)

# CumSum
from . import cumsum as _cumsum  # noqa: E402
from .cumsum import CumSumInfo, GetCumSumMaxMinTmpSize, cumsum, get_cumsum_max_min_tmp_size  # noqa: E402
__all__ += list(_cumsum.__all__)

# BatchNorm
from .batchnorm import batchnorm  # noqa: E402
from .tiling_batchnorm import (BatchNormTiling, GetBatchNormMaxMinTmpSize, GetBatchNormNDTilingInfo,  # noqa: E402
                               get_batchnorm_max_min_tmp_size, get_batchnorm_nd_tiling_info)
__all__ += ["batchnorm", "BatchNormTiling", "get_batchnorm_max_min_tmp_size", "get_batchnorm_nd_tiling_info",
            "GetBatchNormMaxMinTmpSize", "GetBatchNormNDTilingInfo"]

# DeepNorm
from .deepnorm import deepnorm  # noqa: E402
from .tiling_deepnorm import (DeepNormTiling, GetDeepNormMaxMinTmpSize, GetDeepNormTilingInfo,  # noqa: E402
                              get_deepnorm_max_min_tmp_size, get_deepnorm_tiling_info)
__all__ += ["deepnorm", "DeepNormTiling", "get_deepnorm_max_min_tmp_size", "get_deepnorm_tiling_info",
            "GetDeepNormMaxMinTmpSize", "GetDeepNormTilingInfo"]

# GroupNorm
from .groupnorm import groupnorm  # noqa: E402
from .tiling_groupnorm import (GetGroupNormMaxMinTmpSize, GetGroupNormNDTilingInfo, GroupNormTiling,  # noqa: E402
                               get_groupnorm_max_min_tmp_size, get_groupnorm_nd_tiling_info)
__all__ += ["groupnorm", "GroupNormTiling", "get_groupnorm_max_min_tmp_size", "get_groupnorm_nd_tiling_info",
            "GetGroupNormMaxMinTmpSize", "GetGroupNormNDTilingInfo"]
