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
from autograd_cy.tensor_methods import multinomial  # noqa: E402,F401
from autograd_cy.bernoulli import bernoulli  # noqa: E402,F401
from autograd_cy.triangular import tril, triu  # noqa: E402,F401
from autograd_cy.clamp_min import clamp_min  # noqa: E402,F401
from autograd_cy import linalg  # noqa: E402,F401  (torch.linalg)
from autograd_cy.linalg.torch_forms import (  # noqa: E402,F401  (torch.det ...)
    det, logdet, slogdet, inverse, cholesky, svd, cross, matrix_exp, matrix_power, qr,
    pinverse, cholesky_solve, cholesky_inverse,
)
from autograd_cy.reorder import flip, fliplr, flipud, roll, rot90  # noqa: E402,F401
from autograd_cy.grad_mode import (  # noqa: E402,F401
    no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,
    is_inference_mode_enabled,
)
from autograd_cy import autograd  # noqa: E402,F401
from autograd_cy.autograd.anomaly_mode import (  # noqa: E402,F401
    is_anomaly_enabled, is_anomaly_check_nan_enabled,
)
from autograd_cy import nn  # noqa: E402,F401
from autograd_cy.nn.distance import (  # noqa: E402,F401  (torch.cdist ...)
    pairwise_distance, cosine_similarity, pdist, cdist,
)
from autograd_cy.nn.losses import TORCH_LEVEL as _torch_level_losses  # noqa: E402
globals().update(_torch_level_losses)     # torch.kl_div ...: an int reduction, as ATen's
from autograd_cy import cuda  # noqa: E402,F401  (fills the core's CUDA backend slot)
from autograd_cy.dlpack import from_dlpack  # noqa: E402,F401  (and Tensor.__dlpack__)
from autograd_cy.foreach import *  # noqa: E402,F401,F403  (_foreach_add_ ...)
from autograd_cy import utils  # noqa: E402,F401  (utils.checkpoint, utils.data)
from autograd_cy.serialization import save, load  # noqa: E402,F401
from autograd_cy import func  # noqa: E402,F401  (vmap, grad, jacrev ...: torch.func)
from autograd_cy import optim  # noqa: E402,F401  (the optimizers, lr_scheduler: torch.optim)
from autograd_cy import distributed  # noqa: E402,F401  (process groups, collectives: torch.distributed)
from autograd_cy.func import vmap  # noqa: E402,F401  (torch.vmap)
