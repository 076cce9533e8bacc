"""The in-place forms ``x.name_(...)`` of out-of-place ops written in Python or in pyx/ops.

Each form is one entry of ``FORMS``: the out-of-place method it runs and how torch treats
it. ``x.name_(*args)`` is ``apply_in_place(x, lambda s: s.name(*args), tensors)``
(pyx/ops/inplace.pyx): the result becomes ``x``'s new value and history as with torch's
in-place ops (the leaf and view checks, the cast back to ``x``'s dtype and torch's error
where it cannot be cast, the version bump, CopySlices for a view, the tangent). The tensor
arguments are the ``others`` of the in-place op (whether it records, overlap, tangents).

NOTE [In-place forms torch does not record]
torch gives the comparisons (``x.lt_(0)``) a node of their own that passes zeros to the old
``x`` (``LtBackward0`` with a number, ``LtBackward1`` with a tensor), and zeros ``x``'s
tangent, where it has one: the form does both (``zero_node``, the node's prefix). The logical ops
(``x.logical_not_()``) torch does not record at all: ``x`` keeps its grad_fn, a leaf that
requires grad is written without complaint, and the gradient goes through as if the op
were not there. Their forms (``untracked``) run under ``no_grad`` to do the same.

>>> import autograd_cy as ag
>>> x = ag.tensor([-1.5, 0.5, 2.25])
>>> x.ceil_()
tensor([-1.,  1.,  3.])
>>> x._version
1
"""
import warnings
from typing import NamedTuple

from autograd_cy._C.dtype import _c10_name
from autograd_cy._C.forward import _run_suspended, _tangent
from autograd_cy._C.ops.inplace import apply_in_place
from autograd_cy._C.tensor import Tensor, _register_methods
from autograd_cy.dtypes import can_cast, complex128, float64, result_type
from autograd_cy.grad_mode import no_grad
from autograd_cy.one_sided_clamp import refuse_complex_bound


class Form(NamedTuple):
    """How ``name_`` runs: ``method`` (the out-of-place Tensor method), ``torch_level``
    (torch also has ``torch.name_``), ``zero_node`` (the name, less ``Backward0``/``1``, of
    the node a comparison records, NOTE [In-place forms torch does not record]),
    ``untracked`` (not recorded at all), ``check`` (called with the arguments first)."""
    method: str
    torch_level: bool = False
    zero_node: str = None
    untracked: bool = False
    check: object = None
    redirect: object = None     # (self, *args) -> the result, or None: the form runs


def _index_fill_into_expand(self, dim, index, value):
    """index_fill_ of a tensor whose elements share memory (an expand): torch's kernel
    writes the value into that memory without refusing it, as masked_fill_ does here (NOTE
    [Writing into an expand] in views.pyx); None for any other tensor."""
    if not any(stride == 0 and size > 1 for stride, size in zip(self.stride(), self.shape)):
        return None
    from autograd_cy.index_writes import _filled
    from autograd_cy.reorder import _wrap
    mask, _ = _filled(self, _wrap(dim, self.dim()), index, value)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # masked_fill_'s words: torch's are index_fill_'s
        result = self.masked_fill_(mask, value)
    warnings.warn("Use of index_fill_ on expanded tensors is deprecated. Please clone() the "
                  "tensor before performing this operation. This also applies to advanced "
                  "indexing e.g. tensor[mask] = scalar", UserWarning, stacklevel=3)
    return result


def _check_float_power(self, exponent):
    """torch computes float_power in float64 (complex128), and refuses another ``self``."""
    is_complex = self.is_complex() or isinstance(exponent, complex) or (
        isinstance(exponent, Tensor) and exponent.is_complex())
    wanted = complex128 if is_complex else float64
    if self.dtype != wanted:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {self.dtype._scalar_name} but the "
            f"operation's result requires dtype {wanted._scalar_name}")


def _check_bound(lower):
    """clamp_min_ (``lower``) or clamp_max_'s checks with a number, before the in-place
    ones: a complex operand refused as the out-of-place op refuses it, then torch's refusal
    to cast the result type to ``self``'s, which names ``self``'s C++ type. With a tensor
    bound the cast is refused after the overlap check of an expanded ``self`` and before
    the kernel's refusal of a complex result type."""
    def check(self, *args, **kwargs):
        if not (args or kwargs):
            return                  # the out-of-place op's TypeError
        bound = (*args, *kwargs.values())[0]
        result = result_type(self, bound)
        if not isinstance(bound, Tensor):
            refuse_complex_bound(self, bound, lower)
            if not can_cast(result, self.dtype):
                raise RuntimeError(f"result type {result._scalar_name} can't be cast to the "
                                   f"desired output type {_c10_name(self.dtype)}")
        elif not can_cast(result, self.dtype) and not any(
                stride == 0 and size > 1 for stride, size in zip(self.stride(), self.shape)):
            raise RuntimeError(f"result type {result._scalar_name} can't be cast to the "
                               f"desired output type {self.dtype._scalar_name}")
    return check


def _nan_to_num_of_complex(self, *args, **kwargs):
    """nan_to_num_ of a complex tensor: recorded, where nan_to_num refuses to record."""
    if not self.is_complex():
        return None
    from autograd_cy.finite_values import recorded_nan_to_num
    return apply_in_place(self, lambda source: recorded_nan_to_num(source, *args, **kwargs),
                          ())


def _check_cast(self, other):
    """An integer op's in-place form (gcd_ ...): torch refuses the promoted dtype first."""
    result = result_type(self, other)
    if not can_cast(result, self.dtype):
        raise RuntimeError(f"result type {result._scalar_name} can't be cast to the "
                           f"desired output type {self.dtype._scalar_name}")


def _check_ldexp(self, other):
    """torch's ldexp_ (a ``mul_`` by ``2 ** other``) words its refusal of an integer self."""
    if not (self.is_floating_point() or self.is_complex()):
        raise RuntimeError(f"ldexp can't be cast to the desired output type "
                           f"{self.dtype._scalar_name}")


def _check_mvlgamma(self, p):
    """torch's mvlgamma_ computes in the default float dtype and refuses to write it back
    into an integer self, naming the two the other way round."""
    if not (self.is_floating_point() or self.is_complex()):
        from autograd_cy.dtypes import get_default_dtype
        raise RuntimeError(f"mvlgamma: result type {self.dtype._scalar_name} can't be cast to "
                           f"the desired output type {get_default_dtype()._scalar_name}")


def _check_addr(self, vec1, vec2, **scalars):
    """addr_ checks the cast back before the operands' dtypes."""
    result = result_type(vec1, vec2)
    if not can_cast(result, self.dtype):
        raise RuntimeError(f"result type {result._scalar_name} can't be cast to the desired "
                           f"output type {self.dtype._scalar_name}")


def _check_baddbmm(self, batch1, batch2, **scalars):
    """baddbmm_ wants one dtype for all three, in its own words."""
    if not self.dtype == batch1.dtype == batch2.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {_c10_name(self.dtype)}, "
                           f"batch1: {_c10_name(batch1.dtype)}, batch2: "
                           f"{_c10_name(batch2.dtype)}")


TORCH = True

FORMS = {
    # blends and products
    "addcdiv_": Form("addcdiv"),
    "addcmul_": Form("addcmul"),
    "addmm_": Form("addmm"),
    "addmv_": Form("addmv", TORCH),
    "addr_": Form("addr", check=_check_addr),
    "baddbmm_": Form("baddbmm", check=_check_baddbmm),
    "addbmm_": Form("addbmm"),
    "lerp_": Form("lerp"),
    # (divide_, multiply_, subtract_ and true_divide_ are div_, mul_ and sub_ themselves:
    # arithmetic_aliases.py)
    "negative_": Form("negative", TORCH),
    "float_power_": Form("float_power", check=_check_float_power),
    "fmod_": Form("fmod"),
    "remainder_": Form("remainder"),
    "atan2_": Form("atan2"),
    "arctan2_": Form("arctan2"),
    "hypot_": Form("hypot"),
    "copysign_": Form("copysign", check=_check_cast),
    "heaviside_": Form("heaviside"),
    "xlogy_": Form("xlogy", TORCH, check=_check_cast),
    "logit_": Form("logit", TORCH),
    "sinc_": Form("sinc", TORCH),
    "nan_to_num_": Form("nan_to_num", TORCH, redirect=_nan_to_num_of_complex),
    "deg2rad_": Form("deg2rad", TORCH),
    "rad2deg_": Form("rad2deg", TORCH),
    "ldexp_": Form("ldexp", TORCH, check=_check_ldexp),
    "lgamma_": Form("lgamma"),
    "digamma_": Form("digamma"),
    "mvlgamma_": Form("mvlgamma", check=_check_mvlgamma),
    "i0_": Form("i0", TORCH),
    "renorm_": Form("renorm"),
    # rounding and bounds
    "ceil_": Form("ceil", TORCH),
    "floor_": Form("floor", TORCH),
    "round_": Form("round", TORCH),
    "trunc_": Form("trunc", TORCH),
    "fix_": Form("fix", TORCH),
    "frac_": Form("frac", TORCH),
    "clamp_min_": Form("clamp_min", TORCH, check=_check_bound(True)),
    "clamp_max_": Form("clamp_max", TORCH, check=_check_bound(False)),
    # scans, triangles, index writes
    "cumsum_": Form("cumsum"),
    "cumprod_": Form("cumprod"),
    "tril_": Form("tril"),
    "triu_": Form("triu"),
    "index_fill_": Form("index_fill", redirect=_index_fill_into_expand),
    "index_copy_": Form("index_copy"),
    "masked_scatter_": Form("masked_scatter"),
    # comparisons: a node that passes zeros
    "eq_": Form("eq", zero_node="Eq"),
    "ne_": Form("ne", zero_node="Ne"),
    "not_equal_": Form("not_equal", zero_node="Ne"),
    "lt_": Form("lt", zero_node="Lt"),
    "less_": Form("less", zero_node="Lt"),
    "le_": Form("le", zero_node="Le"),
    "less_equal_": Form("less_equal", zero_node="Le"),
    "gt_": Form("gt", zero_node="Gt"),
    "greater_": Form("greater", zero_node="Gt"),
    "ge_": Form("ge", zero_node="Ge"),
    "greater_equal_": Form("greater_equal", zero_node="Ge"),
    # logical and bitwise ops: not recorded (bitwise ones take integers and bools only)
    "logical_and_": Form("logical_and", untracked=True),
    "logical_or_": Form("logical_or", untracked=True),
    "logical_xor_": Form("logical_xor", untracked=True),
    "logical_not_": Form("logical_not", untracked=True),
    "bitwise_and_": Form("bitwise_and"),
    "bitwise_or_": Form("bitwise_or"),
    "bitwise_xor_": Form("bitwise_xor"),
    "bitwise_not_": Form("bitwise_not"),
    "bitwise_left_shift_": Form("bitwise_left_shift", check=_check_cast),
    "bitwise_right_shift_": Form("bitwise_right_shift", check=_check_cast),
    # integer and float ops without a derivative (integer_ops.py, float_parts.py)
    "gcd_": Form("gcd", TORCH, check=_check_cast),
    "lcm_": Form("lcm", TORCH, check=_check_cast),
    "nextafter_": Form("nextafter"),
    # incomplete gamma functions (incomplete_gamma.py)
    "igamma_": Form("igamma"),
    "igammac_": Form("igammac"),
}


def _in_place_form(name, form):
    method = form.method

    def in_place(self, *args, **kwargs):
        if form.check is not None:
            form.check(self, *args, **kwargs)
        if form.redirect is not None:
            result = form.redirect(self, *args, **kwargs)
            if result is not None:
                return result
        others = tuple(a for a in (*args, *kwargs.values()) if isinstance(a, Tensor))

        def compute(source):
            return getattr(source, method)(*args, **kwargs)
        if form.untracked:
            with no_grad():
                return apply_in_place(self, compute, others)
        if form.zero_node is None:
            return apply_in_place(self, compute, others)
        node = form.zero_node + ("Backward1" if others else "Backward0")
        apply_in_place(self, compute, others, node)
        tangent = _tangent(self)
        if tangent is not None:
            _run_suspended(Tensor.zero_, tangent)
        return self

    in_place.__name__ = in_place.__qualname__ = name
    in_place.__doc__ = f"In-place form of :meth:`Tensor.{method}`."
    return in_place


_functions = {name: _in_place_form(name, form) for name, form in FORMS.items()}
globals().update(_functions)

__tensor_methods__ = tuple(FORMS)
__all__ = [name for name, form in FORMS.items() if form.torch_level]

_register_methods(_functions)
