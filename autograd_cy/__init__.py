"""autograd_cy: torch.autograd's semantics over NumPy (CPU) and CuPy (GPU).

The namespace mirrors ``torch``'s: ``autograd_cy.tensor``, ``autograd_cy.exp``,
``autograd_cy.no_grad``, ``autograd_cy.autograd.grad`` ... so PyTorch code reads the
same with ``import autograd_cy as torch``.
"""
import importlib as _importlib
import pkgutil as _pkgutil
import sys as _sys

try:
    from autograd_cy._C import tensor as _tensor_module
except ImportError as _error:  # pragma: no cover - only without a build
    raise ImportError(
        "autograd_cy's compiled extensions (autograd_cy/_C/*.so) are missing or stale. "
        "Build them from the source tree with `pip install -e .` or "
        "`python setup.py build_ext --inplace` (`make test` does both).") from _error

from autograd_cy.dtypes import (  # noqa: F401
    dtype, float16, float32, float64, int32, int64, bool, half, float, double, int, long,
    get_default_dtype,
)
from autograd_cy.device import device  # noqa: F401
from autograd_cy._C.tensor import Tensor, Size  # noqa: F401
from autograd_cy._C import node as _node_module
from autograd_cy._C.ops import inplace as _inplace_module
import autograd_cy._C.ops as _ops_package


def _import_op_modules():
    """Every module in pyx/ops exports its ``__all__`` here and its methods on Tensor."""
    methods = {}
    for info in sorted(_pkgutil.iter_modules(_ops_package.__path__), key=lambda m: m.name):
        module = _importlib.import_module(f"autograd_cy._C.ops.{info.name}")
        for name in getattr(module, "__all__", ()):
            globals()[name] = getattr(module, name)
        for name in getattr(module, "__tensor_methods__", ()):
            methods[name] = getattr(module, name)
    return methods


_tensor_methods = _import_op_modules()

from autograd_cy.factories import *  # noqa: E402,F401,F403
from autograd_cy.factories import __all__ as _factory_names  # noqa: E402
from autograd_cy.grad_mode import (  # noqa: E402,F401
    no_grad, enable_grad, set_grad_enabled, inference_mode, is_grad_enabled,
    is_inference_mode_enabled,
)
from autograd_cy import autograd  # noqa: E402,F401
from autograd_cy.autograd.anomaly_mode import (  # noqa: E402,F401
    is_anomaly_enabled, is_anomaly_check_nan_enabled,
)
from autograd_cy import nn  # noqa: E402,F401
from autograd_cy._tensor_str import tensor_repr as _tensor_repr  # noqa: E402
from autograd_cy.autograd.backward import backward as _backward  # noqa: E402
from autograd_cy.tensor_methods import TENSOR_METHODS as _more_methods  # noqa: E402

_tensor_methods.update(_more_methods)
_tensor_module._register_methods(_tensor_methods)
_tensor_module._install(_sys.modules[__name__], _node_module,
                        _inplace_module.regenerate_view_grad_fn)
