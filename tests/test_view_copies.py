"""The ``*_copy`` forms of the view ops, narrow_copy and unsafe_split / unsafe_chunk
(autograd_cy/view_copies.py) against torch's: values, gradients and double backward
(check_op), forward AD, the nodes (TBackward0_copy ...), and that the result is a fresh
contiguous tensor sharing no memory with its input."""
import numpy as np
import pytest

from oracle import assert_same, check_jvp, check_op, node_name, randn

CASES = {
    "alias_copy": lambda lib, x: lib.alias_copy(x),
    "as_strided_copy": lambda lib, x: lib.as_strided_copy(x, (2, 2), (1, 3), 1),
    "diagonal_copy": lambda lib, x: lib.diagonal_copy(x, 1),
    "expand_copy": lambda lib, x: lib.expand_copy(x[:1], (2, 3, 4)),
    "permute_copy": lambda lib, x: lib.permute_copy(x, (1, 0)),
    "squeeze_copy": lambda lib, x: lib.squeeze_copy(x[:1]),
    "squeeze_copy_dim": lambda lib, x: lib.squeeze_copy(x[:1], 0),
    "squeeze_copy_dims": lambda lib, x: lib.squeeze_copy(x[:1, :, None], (0, 2)),
    "t_copy": lambda lib, x: lib.t_copy(x),
    "transpose_copy": lambda lib, x: lib.transpose_copy(x, 0, 1),
    "unbind_copy": lambda lib, x: lib.unbind_copy(x, 1),
    "unfold_copy": lambda lib, x: lib.unfold_copy(x, 1, 2, 1),
    "unsqueeze_copy": lambda lib, x: lib.unsqueeze_copy(x, 1),
    "view_copy": lambda lib, x: lib.view_copy(x, (4, 3)),
    "split_with_sizes_copy": lambda lib, x: lib.split_with_sizes_copy(x, [1, 3], 1),
    "split_copy": lambda lib, x: lib.split_copy(x, 3, 1),
    "narrow_copy": lambda lib, x: lib.narrow_copy(x, 1, 1, 2),
    "narrow_copy_method": lambda lib, x: x.narrow_copy(0, 1, 2),
    "unsafe_split": lambda lib, x: lib.unsafe_split(x, 3, 1),
    "unsafe_split_with_sizes": lambda lib, x: x.unsafe_split_with_sizes([2, 1]),
    "unsafe_chunk": lambda lib, x: lib.unsafe_chunk(x, 2, 1),
}


@pytest.mark.parametrize("name", CASES)
def test_values_gradients_and_double_backward(name):
    check_op(CASES[name], randn(3, 4))


@pytest.mark.parametrize("name", ["t_copy", "unbind_copy", "narrow_copy", "view_copy"])
def test_forward_ad(name):
    check_jvp(CASES[name], randn(3, 4))


@pytest.mark.parametrize("name", CASES)
def test_nodes_are_torch_s(name):
    def first_node(lib):
        x = lib.tensor(randn(3, 4), requires_grad=True)
        result = CASES[name](lib, x)
        return node_name((result[0] if isinstance(result, tuple) else result).grad_fn)
    assert_same(first_node)


@pytest.mark.parametrize("name", CASES)
def test_a_fresh_contiguous_tensor_or_the_same_memory(name):
    """A ``*_copy`` result is fresh; an ``unsafe_split`` part shares the input's memory."""
    def layout(lib):
        x = lib.tensor(randn(3, 4))
        result = CASES[name](lib, x)
        parts = result if isinstance(result, tuple) else (result,)
        for part in parts:
            part.zero_() if part.numel() else None
        return ([part.is_contiguous() for part in parts], type(result).__name__,
                np.asarray(x.tolist()).tolist())      # the input unchanged by the writes
    assert_same(layout)


def test_unsafe_split_parts_are_not_views():
    """torch does not track them: an in-place write to a part of a leaf's split is allowed
    where a view of the leaf would refuse it, and the part has no ``_base``."""
    def write(lib):
        x = lib.tensor(randn(3, 4), requires_grad=True)
        part = lib.unsafe_split(x * 1, 2)[0]
        part.mul_(2)
        part.sum().backward()
        return part._base is None, x.grad.tolist()
    assert_same(write)
