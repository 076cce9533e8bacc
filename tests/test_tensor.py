"""The Tensor API against torch: factories, attributes, requires_grad, .grad, repr.

Each test runs the same snippet on autograd_cy and on torch (``oracle.both``)
and compares the observable result.
"""
import re
import warnings

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import (
    DEVICE_NAME, LIBS, assert_same, both, no_warning, assert_same_error, same_warning, to_numpy,
)


def dtype_name(t):
    return str(t.dtype).split(".")[-1]


# ----------------------------------------------------------------- factories

FACTORY_CASES = {
    "float list": lambda lib: lib.tensor([1.0, 2.5]),
    "int list": lambda lib: lib.tensor([1, 2]),
    "bool": lambda lib: lib.tensor(True),
    "bool and int": lambda lib: lib.tensor([True, 1]),
    "int and float": lambda lib: lib.tensor([1, 2.5]),
    "nested": lambda lib: lib.tensor([[1.0, 2.0], [3.0, 4.0]]),
    "numpy int32": lambda lib: lib.tensor(np.array([1, 2], dtype=np.int32)),
    "numpy float64 scalar": lambda lib: lib.tensor(np.float64(2.0)),
    "explicit dtype": lambda lib: lib.tensor([1, 2], dtype=lib.float16),
    "empty list": lambda lib: lib.tensor([]),
    "zeros": lambda lib: lib.zeros(2, 3),
    "zeros tuple": lambda lib: lib.zeros((2, 3), dtype=lib.int32),
    "ones list": lambda lib: lib.ones([2], dtype=lib.float64),
    "ones bool": lambda lib: lib.ones(2, dtype=lib.bool),
    "full int": lambda lib: lib.full((2,), 3),
    "full bool": lambda lib: lib.full((2,), True),
    "full float": lambda lib: lib.full((2, 2), 3.0),
    "full dtype": lambda lib: lib.full((2,), 3, dtype=lib.float64),
    "empty shape": lambda lib: lib.empty(2, 3).shape,
    "arange int": lambda lib: lib.arange(5),
    "arange float step": lambda lib: lib.arange(0, 1, 0.25),
    "arange dtype": lambda lib: lib.arange(5, dtype=lib.float64),
    "arange start end": lambda lib: lib.arange(2, 6),
    "linspace": lambda lib: lib.linspace(0, 1, 5),
    "eye": lambda lib: lib.eye(2, 3),
    "eye square int": lambda lib: lib.eye(3, dtype=lib.int64),
    "zeros_like": lambda lib: lib.zeros_like(lib.ones(2, dtype=lib.float64)),
    "ones_like dtype": lambda lib: lib.ones_like(lib.ones(2), dtype=lib.int32),
    "full_like": lambda lib: lib.full_like(lib.ones(2, 2), 7.0),
    "randint dtype": lambda lib: dtype_name(lib.randint(0, 10, (3,))),
    "randint high only": lambda lib: lib.randint(10, (3,)).shape,
    "rand dtype": lambda lib: dtype_name(lib.rand(2, dtype=lib.float64)),
    "randn shape": lambda lib: lib.randn(2, 3).shape,
    "rand_like": lambda lib: (lib.rand_like(lib.ones(2, 2)).shape,
                              dtype_name(lib.randn_like(lib.ones(2, dtype=lib.float64)))),
    "empty_like": lambda lib: dtype_name(lib.empty_like(lib.ones(3, dtype=lib.int32))),
}


@pytest.mark.parametrize("case", FACTORY_CASES)
def test_factory_values_and_dtype(case):
    """Values and dtypes: Python floats -> float32, ints -> int64, bools -> bool."""
    fn = FACTORY_CASES[case]
    ours, theirs = assert_same(fn)
    if isinstance(theirs, torch.Tensor):
        assert dtype_name(ours) == dtype_name(theirs)
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert ours.is_leaf and not ours.requires_grad


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "int32", "int64", "bool"])
def test_factory_dtypes(dtype):
    ours, theirs = both(lambda lib: lib.zeros(2, dtype=getattr(lib, dtype)))
    assert dtype_name(ours) == dtype_name(theirs) == dtype
    assert ours.element_size() == theirs.element_size()


def test_random_factories_follow_manual_seed():
    ag.manual_seed(3)
    first = ag.randn(4).tolist(), ag.rand(2).tolist(), ag.randint(0, 5, (3,)).tolist()
    ag.manual_seed(3)
    again = ag.randn(4).tolist(), ag.rand(2).tolist(), ag.randint(0, 5, (3,)).tolist()
    assert first == again
    values = to_numpy(ag.rand(1000))
    assert values.min() >= 0 and values.max() < 1
    assert set(ag.randint(2, 4, (100,)).tolist()) <= {2, 3}


def test_from_numpy_shares_memory():
    for lib in LIBS:
        array = np.zeros(3)
        t = lib.from_numpy(array)
        t.add_(1)
        array[0] = 5
        assert t.tolist() == [5.0, 1.0, 1.0]
        assert dtype_name(t) == "float64"


def test_as_tensor_shares_numpy_memory_when_dtype_matches():
    for lib in LIBS:
        array = np.zeros(3)
        # CPU: only a CPU tensor can share a NumPy array's memory
        shared = lib.as_tensor(array, device="cpu")
        copied = lib.as_tensor(array, dtype=lib.float32, device="cpu")
        array[0] = 5
        assert shared.tolist()[0] == 5.0 and copied.tolist()[0] == 0.0
        t = lib.ones(2)
        assert lib.as_tensor(t) is t


@pytest.mark.parametrize("like", ["zeros_like", "ones_like", "empty_like", "rand_like"])
def test_like_factories_keep_dense_strides(like):
    """``*_like`` use preserve_format: a dense transposed input gives transposed strides."""
    ours, theirs = both(lambda lib: getattr(lib, like)(lib.zeros(2, 3).transpose(0, 1)))
    assert ours.stride() == theirs.stride() == (1, 3)


@pytest.mark.parametrize("data, error, message", [
    ([[1.0, 2.0], [3.0]], ValueError, "expected sequence of length 2 at dim 1 (got 1)"),
    ([[1, 2], [3, 4, 5]], ValueError, "expected sequence of length 2 at dim 1 (got 3)"),
    ([[[1.0], [2.0]], [[3.0], [4.0, 5.0]]], ValueError,
     "expected sequence of length 1 at dim 2 (got 2)"),
    ([(1.0, 2.0), [3.0]], ValueError, "expected sequence of length 2 at dim 1 (got 1)"),
    ([np.array([1.0, 2.0]), [3.0]], ValueError,
     "expected sequence of length 2 at dim 1 (got 1)"),
    ([[1.0, 2.0], 3.0], TypeError, "not a sequence"),
    ([1.0, [2.0, 3.0]], TypeError, "must be real number, not list"),
], ids=["shorter", "longer", "deeper", "tuple", "array", "number_for_sequence",
        "sequence_for_number"])
def test_ragged_nested_sequences_are_refused_in_torch_words(data, error, message):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)    # torch: a list of arrays is slow
        assert_same_error(lambda lib: lib.tensor(data), error, exact=True)
    with pytest.raises(error, match=re.escape(message)):
        ag.tensor(data)


def _expanded(lib):
    return lib.zeros(1).expand(10 ** 14)


# Storage the allocator cannot give (NOTE [A factory out of memory]): 10**14 float32
# elements are 400 TB, past a 64-bit process's address space, so no allocator can hand it
# out lazily (an always-overcommitting kernel would, below it, and the fill would then run).
OUT_OF_MEMORY = {
    "zeros": lambda lib: lib.zeros(10 ** 7, 10 ** 7),
    "zeros float64": lambda lib: lib.zeros(10 ** 7, 10 ** 7, dtype=lib.float64),
    "ones bool": lambda lib: lib.ones(10 ** 8, 10 ** 7, dtype=lib.bool),
    "empty": lambda lib: lib.empty((10 ** 7, 10 ** 7)),
    "full": lambda lib: lib.full((10 ** 7, 10 ** 7), 2.0),
    "rand": lambda lib: lib.rand(10 ** 7, 10 ** 7),
    "randn": lambda lib: lib.randn(10 ** 7, 10 ** 7),
    "randint": lambda lib: lib.randint(0, 5, (10 ** 7, 10 ** 7)),
    "eye": lambda lib: lib.eye(10 ** 7),
    "zeros_like": lambda lib: lib.zeros_like(_expanded(lib)),
    "ones_like": lambda lib: lib.ones_like(_expanded(lib)),
    "empty_like": lambda lib: lib.empty_like(_expanded(lib)),
    "full_like": lambda lib: lib.full_like(_expanded(lib), 3),
    "rand_like": lambda lib: lib.rand_like(_expanded(lib)),
    "randn_like": lambda lib: lib.randn_like(_expanded(lib)),
    "new_zeros": lambda lib: lib.zeros(2).new_zeros((10 ** 7, 10 ** 7)),
    "new_ones": lambda lib: lib.zeros(2).new_ones((10 ** 7, 10 ** 7)),
    "new_empty": lambda lib: lib.zeros(2).new_empty((10 ** 7, 10 ** 7)),
    "new_full": lambda lib: lib.zeros(2).new_full((10 ** 7, 10 ** 7), 1.0),
    "new": lambda lib: lib.zeros(2).new(10 ** 7, 10 ** 7),
}


@pytest.mark.cpu_only    # torch's CPU allocator: a CUDA device's allocator has its own words
@pytest.mark.parametrize("case", OUT_OF_MEMORY)
def test_factory_out_of_memory_names_the_bytes(case):
    ours, theirs = assert_same_error(OUT_OF_MEMORY[case], RuntimeError,
                                     r"can't allocate memory: you tried to allocate \d+ bytes")
    assert re.findall(r"\d+ bytes", ours) == re.findall(r"\d+ bytes", theirs)


def test_factory_sizes_past_64_bits_of_bytes_are_refused():
    assert_same_error(lambda lib: lib.zeros(10 ** 10, 10 ** 10), RuntimeError, exact=True)
    assert_same_error(lambda lib: lib.empty(2 ** 62, 4), RuntimeError,
                      r"^Storage size calculation overflowed with sizes=", exact=True)


# ------------------------------------------------------------ requires_grad, leaves, retain_grad

def test_factory_requires_grad_on_integer_dtype():
    assert_same_error(lambda lib: lib.tensor([1, 2], requires_grad=True), RuntimeError,
                      r"^Only Tensors of floating point and complex dtype can require gradients$")
    assert_same_error(lambda lib: lib.zeros(2, dtype=lib.int32, requires_grad=True), RuntimeError,
                      r"^Only Tensors of floating point and complex dtype can require gradients$")


def test_attribute_requires_grad_on_integer_dtype():
    def set_flag(lib):
        lib.zeros(2, dtype=lib.int64).requires_grad = True
    assert_same_error(set_flag, RuntimeError,
                      r"^only Tensors of floating point and complex dtype can require gradients$")


def test_requires_grad_method_on_integer_dtype():
    assert_same_error(lambda lib: lib.zeros(2, dtype=lib.int64).requires_grad_(), RuntimeError,
                      r"^only Tensors of floating point dtype can require gradients$")
    # Turning it off is fine for any dtype.
    assert_same(lambda lib: lib.zeros(2, dtype=lib.int64).requires_grad_(False).requires_grad)


def test_non_leaf_requires_grad_cannot_be_set_false():
    def unset(lib):
        y = lib.ones(2, requires_grad=True) * 2
        y.requires_grad = False
    assert_same_error(
        unset, RuntimeError, r"you can only change requires_grad flags of leaf "
        r"variables\. If you want to use a computed variable in a subgraph that doesn't "
        r"require differentiation use var_no_grad = var\.detach\(\)\.")

    def set_true(lib):
        y = lib.ones(2, requires_grad=True) * 2
        y.requires_grad_(True)      # silently a no-op on a non-leaf
        return y.requires_grad, y.is_leaf
    assert_same(set_true)


def test_leaf_is_a_tensor_without_grad_fn():
    def flags(lib):
        x = lib.ones(2, requires_grad=True)
        c = lib.ones(2)
        y = x * 2
        with lib.no_grad():
            z = x * 2
        return [(t.is_leaf, t.requires_grad, t.grad_fn is None) for t in (x, c, y, z)]
    assert_same(flags)


def test_detach_shares_version_counter_data_does_not():
    def versions(lib):
        x = lib.ones(3, requires_grad=True)
        d = x.detach()
        data = x.data
        d.add_(1)
        after_detach = (x._version, d._version, data._version)
        data.mul_(2)
        return after_detach, (x._version, d._version, data._version), x.tolist(), (
            d.requires_grad, d.is_leaf, data.requires_grad)
    assert_same(versions)


def test_set_data():
    def run(lib):
        x = lib.ones(3, requires_grad=True)
        x.data = lib.zeros(2, dtype=lib.float64)
        (x * 2).sum().backward()
        return (x.tolist(), x._version, x.requires_grad, x.is_leaf, dtype_name(x),
                x.grad, dtype_name(x.grad))
    assert_same(run)

    def not_a_tensor(lib):
        lib.ones(3).data = 5
    assert_same_error(not_a_tensor, TypeError, r"^Variable data has to be a tensor, but got int$")


def test_detach_inplace():
    def run(lib):
        y = lib.ones(2, requires_grad=True) * 2
        out = y.detach_()
        return out is y, y.requires_grad, y.is_leaf, y.grad_fn is None
    assert_same(run)


def test_retain_grad_on_leaves_and_non_leaves():
    assert_same_error(lambda lib: lib.ones(2).retain_grad(), RuntimeError,
                      r"can't retain_grad on Tensor that has requires_grad=False")

    def flags(lib):
        x = lib.ones(2, requires_grad=True)
        x.retain_grad()
        y = x * 2
        before = y.retains_grad
        y.retain_grad()
        y.retain_grad()
        y.sum().backward()
        return x.retains_grad, before, y.retains_grad, y.grad.tolist()
    assert_same(flags)


def test_non_leaf_grad_access_warns():
    def read(lib):
        y = lib.ones(2, requires_grad=True) * 2
        return y.grad
    ours, theirs = same_warning(read, UserWarning,
                                r"^The \.grad attribute of a Tensor that is not a leaf Tensor "
                                r"is being accessed\.")
    assert ours is None and theirs is None

    def retained(lib):
        y = lib.ones(2, requires_grad=True) * 2
        y.retain_grad()
        return y.grad
    no_warning(retained, "not a leaf")


def test_hook_registration_errors():
    assert_same_error(lambda lib: lib.ones(2).register_hook(lambda g: g), RuntimeError,
                      r"cannot register a hook on a tensor that doesn't require gradient")
    assert_same_error(lambda lib: (lib.ones(2, requires_grad=True) * 2)
                      .register_post_accumulate_grad_hook(lambda t: None), RuntimeError,
                      r"post accumulate grad hooks cannot be registered on non-leaf tensors")


# ------------------------------------------------------------------ attributes

def test_attributes():
    def attributes(lib):
        t = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        tt = t.transpose(0, 1)
        return (tuple(t.shape), tuple(t.size()), t.size(1), t.size(-1), t.dim(), t.ndim,
                t.numel(), t.nelement(), len(t), dtype_name(t),
                t.stride(), t.stride(0), t.is_contiguous(), tt.is_contiguous(), tt.stride(),
                tt.contiguous().stride(), tt.contiguous().is_contiguous(),
                t.is_floating_point(), t.requires_grad, t.is_leaf, t._version,
                t._is_view(), tt._is_view(), tt._base is t, t._base is None,
                t.element_size())
    assert_same(attributes)

    def device_attributes(t):
        return str(t.device), t.device.type, t.is_cuda
    # torch is the oracle on the CPU; ours run on the test device
    assert device_attributes(torch.ones(1)) == ("cpu", "cpu", False)
    assert device_attributes(ag.ones(1)) == (DEVICE_NAME, DEVICE_NAME.split(":")[0],
                                             DEVICE_NAME != "cpu")


def test_shape_is_a_tuple_subclass():
    ours, theirs = both(lambda lib: lib.zeros(2, 3).shape)
    assert ours == (2, 3) == theirs and isinstance(ours, tuple)
    assert repr(ours) == repr(theirs).replace("torch", "autograd_cy")
    assert ours.numel() == theirs.numel() == 6


def test_zero_dim_attributes():
    assert_same(lambda lib: (lib.tensor(2.5).item(), lib.tensor(2.5).stride(),
                             lib.tensor(2.5).dim(), tuple(lib.tensor(2.5).shape),
                             lib.tensor(2.5).tolist(), lib.tensor(3).item()))
    assert_same_error(lambda lib: len(lib.tensor(1.0)), TypeError, "len\\(\\) of a 0-d tensor")


def test_item_tolist_errors():
    assert_same_error(lambda lib: lib.ones(2).item(), RuntimeError,
                      "a Tensor with 2 elements cannot be converted to Scalar")
    assert_same_error(lambda lib: lib.ones(2).size(1), IndexError,
                      r"Dimension out of range \(expected to be in range of \[-1, 0\], but got 1\)")
    assert_same(lambda lib: (lib.tensor([[1, 2]]).tolist(), lib.tensor([True]).tolist()))


@pytest.mark.parametrize("convert", [float, int, complex], ids=["float", "int", "complex"])
@pytest.mark.parametrize("shape", [(2,), (0,), (2, 3)])
def test_python_number_of_a_tensor_that_is_not_one_element(convert, shape):
    assert_same_error(lambda lib: convert(lib.ones(shape)), ValueError,
                      "only one element tensors can be converted to Python scalars")


@pytest.mark.parametrize("convert", [float, int, complex, bool],
                         ids=["float", "int", "complex", "bool"])
def test_python_number_of_a_one_element_tensor(convert):
    assert_same(lambda lib: (convert(lib.tensor([[2.5]])), convert(lib.tensor(-3))))


@pytest.mark.parametrize("shape, words", [((0,), "with no values"),
                                          ((2,), "with more than one value")])
def test_truth_value_of_a_tensor_that_is_not_one_element(shape, words):
    assert_same_error(lambda lib: bool(lib.ones(shape)), RuntimeError,
                      f"Boolean value of Tensor {words} is ambiguous")


def test_numpy_shares_memory_and_refuses_requires_grad():
    # CPU: numpy() is for CPU tensors (tests/cuda/test_devices.py: a CUDA tensor refuses it)
    assert_same_error(lambda lib: lib.ones(2, requires_grad=True, device="cpu").numpy(),
                      RuntimeError, r"Can't call numpy\(\) on Tensor that requires grad\. "
                      r"Use tensor\.detach\(\)\.numpy\(\) instead\.")
    for lib in LIBS:
        t = lib.ones(2, device="cpu")
        t.numpy()[0] = 7
        assert t.tolist() == [7.0, 1.0]
        x = lib.ones(2, requires_grad=True, device="cpu")
        assert x.detach().numpy().tolist() == [1.0, 1.0]


def test_clone_is_recorded_and_copies():
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        c = x.clone()
        c.sum().backward()
        plain_clone = lib.ones(2).clone()
        return (type(c.grad_fn).__name__, c.is_leaf, x.grad.tolist(),
                c.data_ptr() != x.data_ptr(), plain_clone.requires_grad)
    assert_same(run)


def test_variable_returns_a_tensor():
    def run(lib):
        v = lib.autograd.Variable(lib.ones(2), requires_grad=True)
        return (isinstance(v, lib.Tensor), type(v) is lib.Tensor, v.requires_grad, v.is_leaf,
                isinstance(lib.ones(1), lib.autograd.Variable))
    assert_same(run)


# ---------------------------------------------------------------- .grad

def test_assigned_grad_is_kept_and_used():
    def assign(lib):
        x = lib.ones(3, requires_grad=True)
        g = lib.full((3,), 2.0)
        x.grad = g
        (x * 2).sum().backward()
        same_object = x.grad is g
        x.grad = None
        y = x * 1
        y.grad = lib.zeros(3)            # allowed on a non-leaf
        return same_object, g.tolist(), x.grad, y.grad.tolist()
    assert_same(assign)


def test_assigned_grad_is_checked():
    def wrong_size(lib):
        lib.ones(3, requires_grad=True).grad = lib.ones(4)
    assert_same_error(
        wrong_size, RuntimeError,
        r"attempting to assign a gradient of size '\[4\]' to a tensor of size '\[3\]'\. "
        r"Please ensure that the gradient and the tensor are the same size")

    def wrong_dtype(lib):
        lib.ones(3, requires_grad=True).grad = lib.ones(3, dtype=lib.float64)
    assert_same_error(wrong_dtype, RuntimeError,
                      r"attempting to assign a gradient with dtype 'double' to a tensor with "
                      r"grad_dtype 'Float'\. The gradient must match the tensor's grad_dtype "
                      r"\(defaults to the tensor's dtype\)\.")

    def not_tensor(lib):
        lib.ones(3, requires_grad=True).grad = 1
    assert_same_error(not_tensor, TypeError,
                      r"assigned grad expected to be a Tensor or None but got grad of type int")


# ----------------------------------------------------------------------- repr

REPR_CASES = {
    "leaf requires grad": lambda lib: lib.tensor([1.0, 2.0], requires_grad=True),
    "grad_fn": lambda lib: lib.tensor(1.5, requires_grad=True) * 2,
    "aligned": lambda lib: lib.tensor([0.1875, -1.0409, 3.9634]),
    "2-D": lambda lib: lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True),
    "3-D half": lambda lib: lib.ones(2, 3, 2, dtype=lib.float16),
    "int32": lambda lib: lib.tensor([1, 2], dtype=lib.int32),
    "int64": lambda lib: lib.tensor([[1, -20], [300, 4]]),
    "bool": lambda lib: lib.tensor([True, False]),
    "bool scalar": lambda lib: lib.tensor(True),
    "float64 scalar": lambda lib: lib.tensor(2.0, dtype=lib.float64),
    "scientific small": lambda lib: lib.tensor([1e-5, 1.0]),
    "scientific large": lambda lib: lib.tensor([1e10, 1.0]),
    "wide integral": lambda lib: lib.tensor([1.0, 5000.0]),
    "nan inf": lambda lib: lib.tensor([float("nan"), 1.0, float("inf")]),
    "nan fraction": lambda lib: lib.tensor([float("nan"), 1.5, -float("inf")]),
    "all zero": lambda lib: lib.zeros(3),
    "negative zero-dim": lambda lib: lib.tensor(-0.25),
    "empty": lambda lib: lib.tensor([]),
    "empty 2-D": lambda lib: lib.zeros(0, 3),
    "empty int32": lambda lib: lib.zeros(0, dtype=lib.int32),
    "wrapped rows": lambda lib: lib.linspace(-2, 2, 30, dtype=lib.float64),
    "summarized": lambda lib: lib.arange(2000.0),
    "summarized 2-D": lambda lib: lib.arange(1200).reshape(40, 30),
    "long suffix": lambda lib: lib.linspace(-1, 1, 8, dtype=lib.float64, requires_grad=True),
    "sum grad_fn": lambda lib: lib.ones(2, 2, requires_grad=True).sum(),
}


def _on_test_device(text):
    """torch's text for a CPU tensor as torch writes the same tensor on the test device: a
    CUDA tensor's device is the first suffix after the data, and suffixes wrap past column
    80 (torch's _tensor_str rule)."""
    text = text.replace("torch.", "autograd_cy.")
    if DEVICE_NAME == "cpu":
        return text
    depth, cuts = 0, []
    for index, char in enumerate(text[len("tensor("):-1], len("tensor(")):
        if char in "([<":
            depth += 1
        elif char in ")]>":
            depth -= 1
        elif char == "," and depth == 0:
            cuts.append(index)
    data = text[:cuts[0]] if cuts else text[:-1]
    bounds = cuts + [len(text) - 1]
    suffixes = [f"device='{DEVICE_NAME}'"] + [text[start + 1:end].strip()
                                              for start, end in zip(bounds, bounds[1:])]
    line_length = len(data.split("\n")[-1])
    for suffix in suffixes:
        if line_length + len(suffix) + 2 > 80:
            data += ",\n" + " " * len("tensor(") + suffix
            line_length = len("tensor(") + len(suffix)
        else:
            data += ", " + suffix
            line_length += len(suffix) + 2
    return data + ")"


@pytest.mark.parametrize("case", REPR_CASES)
def test_repr_matches_torch(case):
    ours, theirs = both(REPR_CASES[case])
    assert repr(ours) == _on_test_device(repr(theirs))
    assert str(ours) == _on_test_device(str(theirs))


def test_numpy_of_a_tensor_that_requires_grad_under_no_grad():
    def run(lib):
        with lib.no_grad():
            # CPU: numpy() is for CPU tensors
            return lib.ones(2, requires_grad=True, device="cpu").numpy().tolist()
    assert_same(run)


def test_user_attributes_live_in_a_dict_made_on_first_use():
    """As on torch's tensors, any attribute can be set; the dict that holds them is made
    when first needed (NOTE [A Tensor's attribute dict] in setup.py), and a tensor recycled
    from the free list starts without the attributes of the one before."""
    import copy
    import gc
    results = {}
    for lib in (ag, torch):
        t = lib.ones(2)
        empty = dict(vars(t))
        t.note = "kept"
        copied = copy.deepcopy(t)
        with pytest.raises(AttributeError, match="object has no attribute 'missing'"):
            t.missing
        results[lib] = (empty, t.note, dict(vars(t)), copied.note)
    assert results[ag] == results[torch] == ({}, "kept", {"note": "kept"}, "kept")
    for _ in range(3):
        t = ag.ones(2)
        t.cycle = t                 # a cycle through the dict: the collector frees it
        del t
        gc.collect()
        assert vars(ag.zeros(1)) == {}


def test_is_same_size():
    for lib in LIBS:
        a = lib.ones(2, 3)
        assert (a.is_same_size(lib.zeros(2, 3)), lib.is_same_size(a, lib.zeros(3, 2)),
                a.is_same_size(lib.zeros(6))) == (True, False, False)
    assert_same_error(lambda lib: lib.is_same_size(lib.ones(2), 3), TypeError, exact=True)
    assert_same_error(lambda lib: lib.is_same_size(3, lib.ones(2)), TypeError, exact=True)
