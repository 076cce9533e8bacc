"""autograd_cy: torch.autograd's semantics over NumPy (CPU) and CuPy (GPU).

The namespace mirrors ``torch``'s: ``autograd_cy.tensor``, ``autograd_cy.exp``,
``autograd_cy.no_grad``, ``autograd_cy.autograd.grad`` ... so PyTorch code reads the
same with ``import autograd_cy as torch``.

Importing the package imports every module of the core and of the ops (``autograd_cy._C``)
and makes what they implement Tensor's methods and operators (NOTE [How Tensor gets its
methods] in pyx/tensor.pyx).
"""
import importlib as _importlib
import pkgutil as _pkgutil

try:
    _importlib.import_module("autograd_cy._C.tensor")
except ImportError as _error:  # pragma: no cover - only without a build
    raise ImportError(
        "autograd_cy's compiled extensions (autograd_cy/_C/*.so) are missing or stale. "
        "Build them from the source tree with `pip install -e .` or "
        "`python setup.py build_ext --inplace` (`make test` does both).") from _error

from autograd_cy.dtypes import (  # noqa: F401
    dtype, float16, bfloat16, float32, float64, complex64, complex128, int8, int16, int32, int64,
    uint8, bool, half, float, double, cfloat, cdouble, short, int, long, get_default_dtype,
    set_default_dtype, promote_types, result_type, can_cast, finfo, iinfo,
)
from autograd_cy.device import device  # noqa: F401
from autograd_cy._C.tensor import Tensor, Size, _register_methods  # noqa: F401
from autograd_cy._C import hooks, tensor_repr, views, backward as _backward  # noqa: F401
import autograd_cy._C.ops as _ops_package


def _import_op_modules():
    """Import every module in pyx/ops, export its ``__all__`` here and make its
    ``__tensor_methods__`` Tensor's methods (NOTE [How Tensor gets its methods])."""
    for info in sorted(_pkgutil.iter_modules(_ops_package.__path__), key=lambda m: m.name):
        module = _importlib.import_module(f"autograd_cy._C.ops.{info.name}")
        for name in getattr(module, "__all__", ()):
            globals()[name] = getattr(module, name)
        _register_methods({name: getattr(module, name)
                           for name in getattr(module, "__tensor_methods__", ())})


_import_op_modules()
del hooks, tensor_repr, views

from autograd_cy.factories import *  # noqa: E402,F401,F403
from autograd_cy import tensor_methods as _tensor_methods  # noqa: E402,F401
from autograd_cy import version  # noqa: E402,F401  (torch.version)
from autograd_cy.version import __version__  # noqa: E402,F401
from autograd_cy.tensor_methods import multinomial  # noqa: E402,F401
from autograd_cy.bernoulli import bernoulli  # noqa: E402,F401
from autograd_cy.triangular import tril, triu  # noqa: E402,F401
from autograd_cy import unfold as _unfold  # noqa: E402,F401  (Tensor.unfold)
from autograd_cy.storage import UntypedStorage, TypedStorage  # noqa: E402,F401  (and .storage())
from autograd_cy.storage import LEGACY_STORAGES as _LEGACY_STORAGES  # noqa: E402
globals().update(_LEGACY_STORAGES)      # FloatStorage ...
from autograd_cy import storage_sharing as _storage_sharing  # noqa: E402,F401  (Tensor.set_)
from autograd_cy import __future__  # noqa: E402,F401  (torch.__future__)
from autograd_cy import linalg  # noqa: E402,F401  (torch.linalg)
from autograd_cy import fft  # noqa: E402,F401  (torch.fft)
from autograd_cy.short_time_fourier import stft, istft  # noqa: E402,F401  (and Tensor.stft)
from autograd_cy.linalg.torch_forms import (  # noqa: E402,F401  (torch.det ...)
    det, logdet, slogdet, inverse, cholesky, svd, matrix_exp, matrix_power, qr,
    pinverse, cholesky_solve, cholesky_inverse, chain_matmul, lu, lu_solve, triangular_solve,
)
from autograd_cy.linalg.lu_solve import lu_unpack  # noqa: E402,F401
from autograd_cy.linalg.householder import geqrf, orgqr, ormqr  # noqa: E402,F401
from autograd_cy.linalg.removed_forms import (  # noqa: E402,F401  (raise, as torch's)
    solve, eig, symeig, lstsq, matrix_rank,
)
from autograd_cy.reorder import flip, fliplr, flipud, roll, rot90  # noqa: E402,F401
from autograd_cy.sorting import sort, argsort, msort, topk, kthvalue  # noqa: E402,F401
from autograd_cy.scans import cumsum, cumprod, cummax, cummin, logcumsumexp  # noqa: E402,F401
from autograd_cy.rounding import floor, ceil, trunc, fix, round, frac  # noqa: E402,F401
from autograd_cy.one_sided_clamp import clamp_min, clamp_max  # noqa: E402,F401
from autograd_cy.blends import lerp, addcmul, addcdiv  # noqa: E402,F401
from autograd_cy.repetition import tile, repeat_interleave, outer, ger  # noqa: E402,F401
from autograd_cy.diagonals import diag_embed, diagflat, diag, block_diag  # noqa: E402,F401
from autograd_cy.finite_values import nan_to_num  # noqa: E402,F401
from autograd_cy.log_add_exp import logaddexp, logaddexp2  # noqa: E402,F401
from autograd_cy.masked_selection import (  # noqa: E402,F401
    masked_select, nonzero, argwhere, nonzero_static,
)
from autograd_cy.einsum import einsum  # noqa: E402,F401
from autograd_cy.stacking import (  # noqa: E402,F401
    atleast_1d, atleast_2d, atleast_3d, hstack, vstack, row_stack, dstack, column_stack,
    broadcast_to, broadcast_tensors, broadcast_shapes,
)
from autograd_cy.splitting import tensor_split, hsplit, vsplit, dsplit  # noqa: E402,F401
from autograd_cy.differences import diff, take_along_dim, gradient  # noqa: E402,F401
from autograd_cy.uniqueness import unique, unique_consecutive  # noqa: E402,F401
from autograd_cy.remainders import fmod, remainder  # noqa: E402,F401
from autograd_cy.signs import copysign, signbit, isposinf, isneginf, heaviside  # noqa: E402,F401
from autograd_cy.logarithmic import xlogy, logit  # noqa: E402,F401
from autograd_cy.hypot_sinc import hypot, sinc, float_power  # noqa: E402,F401
from autograd_cy.contractions import tensordot, inner, kron  # noqa: E402,F401
from autograd_cy.binning import (  # noqa: E402,F401
    searchsorted, bucketize, bincount, histc, histogram, histogramdd,
)
from autograd_cy.index_writes import take, index_fill, index_copy  # noqa: E402,F401
from autograd_cy.cross_product import cross  # noqa: E402,F401
from autograd_cy.arithmetic_aliases import multiply, divide, subtract  # noqa: E402,F401
from autograd_cy.integer_ops import (  # noqa: E402,F401
    bitwise_left_shift, bitwise_right_shift, gcd, lcm)
from autograd_cy.inplace_forms import *  # noqa: E402,F401,F403  (ceil_ ...; Tensor.lt_ ...)
from autograd_cy.grad_mode import (  # noqa: E402,F401
    no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,
    is_inference_mode_enabled,
)
from autograd_cy.constants import inf, nan, e, pi, newaxis  # noqa: E402,F401
from autograd_cy.warn_always import set_warn_always, is_warn_always_enabled  # noqa: E402,F401
from autograd_cy import autograd  # noqa: E402,F401
from autograd_cy.autograd.anomaly_mode import (  # noqa: E402,F401
    is_anomaly_enabled, is_anomaly_check_nan_enabled,
)
from autograd_cy import nn  # noqa: E402,F401
from autograd_cy.nn.distance import (  # noqa: E402,F401  (torch.cdist ...)
    pairwise_distance, cosine_similarity, pdist, cdist,
)
from autograd_cy.nn.losses import TORCH_LEVEL as _torch_level_losses  # noqa: E402
from autograd_cy.nn.ctc_loss import torch_ctc_loss as ctc_loss  # noqa: E402,F401
from autograd_cy.nn.grid_sample import (  # noqa: E402,F401  (ATen's names, torch.grid_sampler)
    grid_sampler, grid_sampler_2d, grid_sampler_3d)
from autograd_cy.nn.affine_grid import affine_grid_generator  # noqa: E402,F401
globals().update(_torch_level_losses)     # torch.kl_div ...: an int reduction, as ATen's
from autograd_cy.nn.activations import (  # noqa: E402,F401  (torch.selu ...; Tensor.prelu)
    selu, selu_, celu, celu_, threshold, threshold_, hardshrink, prelu, rrelu, rrelu_,
)
from autograd_cy.functional_aliases import *  # noqa: E402,F401,F403  (torch.conv2d ...)
from autograd_cy.grids import meshgrid  # noqa: E402,F401
from autograd_cy.membership import isin  # noqa: E402,F401
from autograd_cy.combinatorics import cartesian_prod, combinations  # noqa: E402,F401
from autograd_cy.integration import trapezoid, trapz, cumulative_trapezoid  # noqa: E402,F401
from autograd_cy.signal_windows import (  # noqa: E402,F401
    hann_window, hamming_window, blackman_window, bartlett_window, kaiser_window,
)
from autograd_cy import cuda  # noqa: E402,F401  (fills the core's CUDA backend slot)
from autograd_cy import accelerator  # noqa: E402,F401  (torch.accelerator over cuda)
from autograd_cy.dlpack import from_dlpack  # noqa: E402,F401  (and Tensor.__dlpack__)
from autograd_cy.foreach import *  # noqa: E402,F401,F403  (_foreach_add_ ...)
from autograd_cy import utils  # noqa: E402,F401  (utils.checkpoint, utils.data)
from autograd_cy import profiler  # noqa: E402,F401  (torch.profiler: schedules, activities)
from autograd_cy import random  # noqa: E402,F401  (torch.random: fork_rng)
from autograd_cy.serialization import save, load  # noqa: E402,F401
from autograd_cy import func  # noqa: E402,F401  (vmap, grad, jacrev ...: torch.func)
from autograd_cy import optim  # noqa: E402,F401  (the optimizers, lr_scheduler: torch.optim)
from autograd_cy import distributed  # noqa: E402,F401  (process groups, collectives: torch.distributed)
from autograd_cy import multiprocessing  # noqa: E402,F401  (share_memory_, spawn)
from autograd_cy.func import vmap  # noqa: E402,F401  (torch.vmap)
from autograd_cy import return_types  # noqa: E402,F401  (torch.return_types: named tuples)
from autograd_cy.tensor_type import (  # noqa: E402,F401  (and Tensor.type)
    is_tensor, is_storage, numel, is_floating_point, is_complex, is_signed, is_nonzero,
)
from autograd_cy.threads import (  # noqa: E402,F401
    set_num_threads, get_num_threads, set_num_interop_threads, get_num_interop_threads,
)
from autograd_cy.determinism import (  # noqa: E402,F401
    use_deterministic_algorithms, are_deterministic_algorithms_enabled,
    is_deterministic_algorithms_warn_only_enabled,
)
from autograd_cy.matmul_precision import (  # noqa: E402,F401
    set_float32_matmul_precision, get_float32_matmul_precision,
)
from autograd_cy import backends  # noqa: E402,F401  (backends.cudnn.benchmark ...)
from autograd_cy import amp  # noqa: E402,F401  (amp.autocast, amp.GradScaler)
from autograd_cy.amp import autocast  # noqa: E402,F401  (torch.autocast)
from autograd_cy.amp.state import *  # noqa: E402,F401,F403  (torch.is_autocast_enabled ...)
from autograd_cy import cpu  # noqa: E402,F401  (cpu.amp.autocast)
import autograd_cy.cuda.amp  # noqa: E402,F401  (cuda.amp.autocast, cuda.amp.GradScaler)
from autograd_cy.compiler import compile  # noqa: E402,F401
from autograd_cy import jit  # noqa: E402,F401
from autograd_cy.mode import mode  # noqa: E402,F401  (and Tensor.mode)
from autograd_cy.triangle_indices import tril_indices, triu_indices  # noqa: E402,F401
from autograd_cy.normal import normal  # noqa: E402,F401
from autograd_cy.printing import set_printoptions  # noqa: E402,F401
from autograd_cy.tensor_attributes import (  # noqa: E402,F401  (and Tensor.nbytes, .H ...)
    layout, strided, positive, ravel, adjoint,
)
from autograd_cy.nan_reductions import nansum, nanmean, nanmedian  # noqa: E402,F401
from autograd_cy.min_max import aminmax, fmax, fmin  # noqa: E402,F401
from autograd_cy.angle_units import deg2rad, rad2deg  # noqa: E402,F401
from autograd_cy.float_parts import frexp, ldexp, nextafter  # noqa: E402,F401
from autograd_cy.p_norms import dist, renorm  # noqa: E402,F401
from autograd_cy.matrix_updates import addmv, addr, baddbmm, addbmm  # noqa: E402,F401
from autograd_cy.covariance import cov, corrcoef  # noqa: E402,F401
from autograd_cy.quantiles import quantile, nanquantile  # noqa: E402,F401
from autograd_cy.scatter_reduce import scatter_reduce  # noqa: E402,F401
from autograd_cy.gamma_functions import lgamma, digamma, polygamma, mvlgamma  # noqa: E402,F401
from autograd_cy.bessel import i0  # noqa: E402,F401
from autograd_cy.indexed_writes import index_reduce  # noqa: E402,F401  (and Tensor.put ...)
from autograd_cy.flat_indices import unravel_index  # noqa: E402,F401
from autograd_cy.fill import fill  # noqa: E402,F401
from autograd_cy.view_copies import (  # noqa: E402,F401  (and Tensor.narrow_copy ...)
    alias_copy, as_strided_copy, diagonal_copy, expand_copy, permute_copy, squeeze_copy,
    t_copy, transpose_copy, unbind_copy, unfold_copy, unsqueeze_copy, view_copy,
    split_with_sizes_copy, split_copy, narrow_copy, unsafe_split, unsafe_chunk,
    unsafe_split_with_sizes,
)
from autograd_cy.incomplete_gamma import igamma, igammac  # noqa: E402,F401
from autograd_cy import special  # noqa: E402,F401  (torch.special)
from autograd_cy import signal  # noqa: E402,F401  (torch.signal.windows)
from autograd_cy.slice_scatters import (  # noqa: E402,F401
    diagonal_scatter, select_scatter, slice_scatter, masked_scatter, as_strided_scatter,
)
from autograd_cy import layout_ops as _layout_ops  # noqa: E402,F401  (memory_format= of the ops)
from autograd_cy.memory_formats import (  # noqa: E402,F401
    memory_format, contiguous_format, preserve_format, channels_last, channels_last_3d,
)
from autograd_cy.tensor_type import typename  # noqa: E402,F401
from autograd_cy.function_forms import detach, detach_, get_device, put  # noqa: E402,F401
from autograd_cy.process_flags import set_flush_denormal, set_default_tensor_type  # noqa: E402,F401
from autograd_cy.count_distributions import poisson, binomial  # noqa: E402,F401
from autograd_cy import element_callables as _element_callables  # noqa: E402,F401  (Tensor.apply_ ...)
from autograd_cy import legacy_resize as _legacy_resize  # noqa: E402,F401  (Tensor.resize ...)
from autograd_cy.vandermonde import vander  # noqa: E402,F401
from autograd_cy.linalg.deprecated_norms import nuclear_norm, frobenius_norm  # noqa: E402,F401
from autograd_cy.asarray import asarray, frombuffer  # noqa: E402,F401
from autograd_cy.linalg.low_rank import svd_lowrank, pca_lowrank  # noqa: E402,F401
from autograd_cy.nn.embedding_bag import torch_embedding_bag as embedding_bag  # noqa: E402,F401
from autograd_cy import distributions  # noqa: E402,F401  (torch.distributions)
from autograd_cy import testing  # noqa: E402,F401  (torch.testing.assert_close)
