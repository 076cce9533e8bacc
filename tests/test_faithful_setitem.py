"""``x[index] = value``, copy_, fill_, index_put_ and masked_fill_ checked against torch 2.13:
which memory overlaps each op refuses (NOTE [Memory overlap] in overlap.pyx), and which
values of another dtype it converts (NOTE [index_put_ as masked_fill_] in indexing.pyx).

Each test runs the same code on autograd_cy and on torch (``lib``) and compares."""
import pytest

from oracle import assert_same, assert_same_error, no_warning, same_warning

# index_put_ and masked_fill_ warn about expanded tensors; same_warning checks the warnings.
pytestmark = pytest.mark.filterwarnings("ignore:Use of .* on expanded tensors")

INTERNAL = "more than one element of the written-to tensor refers to a single memory location"
PARTIAL = "some elements of the input tensor and the written-to tensor refer to a single"


def expanded(lib):
    """A (3, 2) tensor whose rows share memory (stride 0 on dim 0)."""
    return lib.zeros(1, 2).expand(3, 2)


def grid(lib):
    return lib.arange(6.0).reshape(2, 3)


def written(write, make=grid):
    """``write(lib, x)`` on a fresh ``make(lib)``; the resulting values."""
    def run(lib):
        x = make(lib)
        write(lib, x)
        return x.tolist()
    return run


# ------------------------------------------------------------------ internal overlap

REFUSE_EXPAND = {
    "setitem_number": lambda lib, e: e.__setitem__(slice(None), 0.75),
    "setitem_ellipsis_number": lambda lib, e: e.__setitem__(Ellipsis, 0.75),
    "setitem_0d_tensor": lambda lib, e: e.__setitem__(slice(None), lib.tensor(0.5)),
    "setitem_same_shape": lambda lib, e: e.__setitem__(slice(None), lib.ones(3, 2)),
    "setitem_broadcast": lambda lib, e: e.__setitem__(slice(None), lib.ones(2)),
    "fill_0d_tensor": lambda lib, e: e.fill_(lib.tensor(0.5)),
    "copy_": lambda lib, e: e.copy_(lib.ones(3, 2)),
    "add_": lambda lib, e: e.add_(1),
    "exp_": lambda lib, e: e.exp_(),
}


@pytest.mark.parametrize("name", REFUSE_EXPAND)
def test_element_by_element_writes_refuse_an_expand(name):
    # setitem with basic indexing is copy_, or fill_ with a 0-d tensor (a number becomes
    # one), and fill_ with a tensor is copy_ from it: TensorIterator refuses the expand.
    write = REFUSE_EXPAND[name]
    assert_same_error(lambda lib: write(lib, expanded(lib)), RuntimeError, INTERNAL)


ALLOW_EXPAND = {
    "fill_number": lambda lib, e: e.fill_(0.5),
    "zero_": lambda lib, e: e.zero_(),
    "setitem_select": lambda lib, e: e.__setitem__(0, 0.75),    # a row does not overlap
}


@pytest.mark.parametrize("name", ALLOW_EXPAND)
def test_writes_of_a_number_read_once_allow_an_expand(name):
    write = ALLOW_EXPAND[name]
    assert_same(written(write, expanded))
    no_warning(written(write, expanded), "expanded")


WARN_EXPAND = {
    "setitem_index_number": (lambda lib, e: e.__setitem__(lib.tensor([0, 1]), 0.75),
                             "index_put_"),
    "setitem_index_tensor": (lambda lib, e: e.__setitem__(lib.tensor([0, 1]), lib.ones(2, 2)),
                             "index_put_"),
    "setitem_mask": (lambda lib, e: e.__setitem__(lib.tensor([True, False, True]), 0.75),
                     "masked_fill_"),
    "index_put_": (lambda lib, e: e.index_put_((lib.tensor([0, 1]),), lib.ones(2)),
                   "index_put_"),
    "index_put_accumulate": (lambda lib, e: e.index_put_((lib.tensor([0, 1]),), lib.ones(2),
                                                         accumulate=True), "index_put_"),
    "masked_fill_": (lambda lib, e: e.masked_fill_(lib.tensor([True, False]), 0.75),
                     "masked_fill_"),
}


@pytest.mark.parametrize("name", WARN_EXPAND)
def test_index_put_and_masked_fill_only_warn_about_an_expand(name):
    write, op = WARN_EXPAND[name]
    same_warning(written(write, expanded), UserWarning,
                 f"^Use of {op} on expanded tensors is deprecated")
    assert_same(written(write, expanded))


WRITES_INTO_EXPAND = {
    # The last write wins in the shared memory, not the last row.
    "index_order": lambda lib, e: e.__setitem__(lib.tensor([2, 0]), lib.tensor(
        [[5.0, 6.0], [1.0, 2.0]])),
    "accumulate": lambda lib, e: e.index_put_((lib.tensor([2, 0, 0]),), lib.tensor(
        [[5.0, 6.0], [1.0, 2.0], [0.5, 0.5]]), accumulate=True),
    "mask_first_row": lambda lib, e: e.__setitem__(lib.tensor([True, False, False]), 0.75),
    "masked_fill_first_row": lambda lib, e: e.masked_fill_(lib.tensor(
        [[True], [False], [False]]), 0.75),
}


@pytest.mark.parametrize("name", WRITES_INTO_EXPAND)
def test_writes_into_an_expand_land_in_the_shared_memory(name):
    assert_same(written(WRITES_INTO_EXPAND[name], expanded))


def expand_written_in_a_graph(lib, base_requires_grad):
    """The fuzzer's case: index_put_ into an expand of a graph tensor; the base's gradient
    and the value's."""
    a = lib.tensor([[1.0, 2.0]], requires_grad=base_requires_grad)
    v = lib.tensor([-2.75, -1.125, 0.5], dtype=lib.float64, requires_grad=True)
    e = (a * 1).double().expand(3, 2)
    e[lib.tensor([-1, 1, 1]), lib.tensor([1, 0, 0])] = v
    (e * lib.arange(6.0, dtype=lib.float64).reshape(3, 2)).sum().backward()
    return e.tolist(), v.grad.tolist()


def test_backward_through_a_write_into_an_expand_needs_no_gradient_for_it():
    assert_same(lambda lib: expand_written_in_a_graph(lib, False))


def test_backward_through_a_write_into_an_expand_refuses_its_gradient():
    # CopySlices copies the view's gradient into an expand of the base's: copy_ refuses.
    assert_same_error(lambda lib: expand_written_in_a_graph(lib, True), RuntimeError,
                      INTERNAL)


# ------------------------------------------------------------------ overlap with an operand

REFUSE_OVERLAP = {
    "add_row": lambda lib, x: x.add_(x[0]),
    "add_other_shape": lambda lib, x: x.add_(x.view(6)[:3]),
    "add_transposed": lambda lib, x: x.view(3, 2).add_(x.t()),
    "sub_shifted": lambda lib, x: x.view(6)[1:].sub_(x.view(6)[:-1]),
    "clamp_shifted": lambda lib, x: x.view(6)[1:].clamp_(x.view(6)[:-1], None),
    "copy_row": lambda lib, x: x.copy_(x[0]),
    "copy_transposed": lambda lib, x: x.view(3, 2).copy_(x.t()),
    "setitem_transposed": lambda lib, x: x.view(3, 2).__setitem__(slice(None), x.t()),
    "permuted_partial": lambda lib, x: x.view(2, 3, 1).permute(1, 0, 2).add_(
        x.view(3, 2, 1)),
    # index_put_ refuses its own values even in the same layout (assert_no_overlap).
    "index_put_self": lambda lib, x: x.index_put_((lib.tensor([0, 1]),), x),
    "setitem_index_self": lambda lib, x: x.__setitem__(lib.tensor([0, 1]), x),
    "setitem_index_own_element": lambda lib, x: x.__setitem__(lib.tensor([0, 1]), x[0, 0]),
}


@pytest.mark.parametrize("name", REFUSE_OVERLAP)
def test_partial_overlap_with_an_operand_is_refused(name):
    write = REFUSE_OVERLAP[name]
    assert_same_error(written(write), RuntimeError, PARTIAL)


ALLOW_OVERLAP = {
    "add_self": lambda lib, x: x.add_(x),
    "add_alias": lambda lib, x: x.add_(x.view(2, 3)),
    "add_disjoint_columns": lambda lib, x: x[:, :2].add_(x[:, 1:]),   # too hard: passes
    "add_other_row": lambda lib, x: x[0].add_(x[1]),
    "mul_expand_of_itself": lambda lib, x: x[:, :1].mul_(x[:, :1].expand(2, 1)),
    "permuted_full": lambda lib, x: x.view(2, 3, 1).permute(1, 0, 2).add_(
        x.view(2, 3, 1).permute(1, 0, 2)),
    "copy_self": lambda lib, x: x.copy_(x),
    "copy_alias": lambda lib, x: x.copy_(x.view(2, 3)),
    "copy_other_dtype": lambda lib, x: x.copy_(x.view(2, 3).double()),
    "fill_own_element": lambda lib, x: x.fill_(x[0, 0]),
    "masked_fill_own_element": lambda lib, x: x.masked_fill_(x > 2, x[0, 0]),
    "setitem_mask_own_element": lambda lib, x: x.__setitem__(x > 2, x[0, :1]),
    "setitem_own_row": lambda lib, x: x.__setitem__(0, x[1]),
    "setitem_own_element": lambda lib, x: x.__setitem__(0, x[1, 1]),
    "setitem_self": lambda lib, x: x.__setitem__(Ellipsis, x),
}


@pytest.mark.parametrize("name", ALLOW_OVERLAP)
def test_full_or_too_hard_overlap_is_allowed(name):
    assert_same(written(ALLOW_OVERLAP[name]))


def test_copy_from_its_own_expand_returns_at_once():
    # NumPy gives the size-1 dim of broadcast_to a zero stride; PyTorch's expand keeps it.
    def run(lib):
        v = lib.tensor([[0.5], [1.5]])
        v.copy_(v.expand(-1, -1))
        v.add_(v.expand(2, 1))
        e = expanded(lib)
        e.copy_(e.expand(3, 2))         # the very data: nothing to do, even in an expand
        return v.tolist(), e.tolist()
    assert_same(run)


def test_a_bool_mask_that_is_the_tensor_itself():
    def one_value(lib):
        b = lib.tensor([True, False, True])
        b[b] = False                     # runs as masked_fill_: FULL overlap is fine
        return b.tolist()

    def values(lib):
        b = lib.tensor([True, False, True])
        b[b] = lib.tensor([False, False])   # index_put_: no overlap at all with an index
    assert_same(one_value)
    assert_same_error(values, RuntimeError, PARTIAL)


def test_a_mask_overlapping_partially_is_refused():
    def run(lib):
        b = lib.tensor([True, False, True, True])
        b[1:].masked_fill_(b[:-1], False)
    assert_same_error(run, RuntimeError, PARTIAL)


# ------------------------------------------------------------------ dtypes of the value

MASK = [[False, True, False], [True, False, False]]

CONVERTED = {
    "0d_double": lambda lib, x: x.__setitem__(lib.tensor(MASK), lib.tensor(-3.0,
                                                                        dtype=lib.float64)),
    "one_element_4d": lambda lib, x: x.__setitem__(lib.tensor(MASK), lib.tensor(
        [[[[-3.0]]]], dtype=lib.float64)),
    "0d_long": lambda lib, x: x.__setitem__(lib.tensor(MASK), lib.tensor(2)),
    "0d_bool": lambda lib, x: x.__setitem__(lib.tensor(MASK), lib.tensor(True)),
    "row_mask_and_slice": lambda lib, x: x.__setitem__(
        (lib.tensor([True, False]), slice(None)), lib.tensor(-3.0, dtype=lib.float64)),
    "int_then_mask": lambda lib, x: x.__setitem__(
        (0, lib.tensor([True, False, True])), lib.tensor(-3.0, dtype=lib.float64)),
    "list_mask": lambda lib, x: x.__setitem__([True, False], lib.tensor(-3.0,
                                                                        dtype=lib.float64)),
    "index_put_": lambda lib, x: x.index_put_((lib.tensor(MASK),),
                                              lib.tensor(-3.0, dtype=lib.float64)),
    "basic_index": lambda lib, x: x.__setitem__(0, lib.tensor([1.0, 2.0, 3.0],
                                                              dtype=lib.float64)),
    "number": lambda lib, x: x.__setitem__(lib.tensor([0]), 1.5),
}


@pytest.mark.parametrize("name", CONVERTED)
def test_values_of_another_dtype_that_setitem_converts(name):
    # One-element values behind one bool mask go through masked_fill_ as a number; basic
    # indexing is copy_; a number becomes a tensor of self's dtype.
    assert_same(written(CONVERTED[name]))


def test_out_of_place_index_put_converts_like_index_put_():
    assert_same(lambda lib: grid(lib).index_put(
        (lib.tensor(MASK),), lib.tensor(-3.0, dtype=lib.float64)).tolist())


@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_masked_setitem_converts_a_float_like_a_number(dtype):
    def run(lib):
        x = lib.zeros(2, 3, dtype=getattr(lib, dtype))
        x[lib.tensor(MASK)] = lib.tensor(2.7)
        return x.tolist()
    assert_same(run)


REFUSED = {
    "index_0d_double": lambda lib, x: x.__setitem__(lib.tensor([0]), lib.tensor(
        -3.0, dtype=lib.float64)),
    "two_values_behind_a_mask": lambda lib, x: x.__setitem__(lib.tensor(MASK), lib.tensor(
        [-3.0, 2.0], dtype=lib.float64)),
    "two_masks": lambda lib, x: x.__setitem__((lib.tensor([True, False]),
                                               lib.tensor([True, False, True])),
                                              lib.tensor(-3.0, dtype=lib.float64)),
    "accumulate": lambda lib, x: x.index_put_((lib.tensor(MASK),), lib.tensor(
        -3.0, dtype=lib.float64), accumulate=True),
}


@pytest.mark.parametrize("name", REFUSED)
def test_values_of_another_dtype_that_index_put_refuses(name):
    assert_same_error(written(REFUSED[name]), RuntimeError,
                      "^Index put requires the source and destination dtypes match, got "
                      "Float for the destination and Double for the source.$")


def test_a_uint8_mask_with_one_value_is_refused_by_masked_fill_():
    def run(lib):
        x = grid(lib)
        x[lib.tensor(MASK).to(lib.uint8)] = lib.tensor(-3.0, dtype=lib.float64)
    assert_same_error(run, RuntimeError, "masked_fill_ only supports boolean masks")


def test_gradient_of_a_converted_value():
    def run(lib):
        a = lib.zeros(2, 3, requires_grad=True)
        x = a.clone()
        v = lib.tensor(2.0, dtype=lib.float64, requires_grad=True)
        x[lib.tensor(MASK)] = v
        (x * lib.arange(6.0).reshape(2, 3)).sum().backward()
        return (x.grad_fn.name(), str(v.grad.dtype).split(".")[-1], v.grad.item(),
                a.grad.tolist())
    assert_same(run)


ORDER = {
    # The index arrays broadcast, then the value's shape, then dtypes, then bounds.
    "broadcast_before_bounds": lambda lib, x: x.__setitem__(
        (lib.tensor([0, 7]), lib.tensor([0, 1, 2])), 1.0),
    "shape_before_dtype": lambda lib, x: x.__setitem__(lib.tensor([0, 1]), lib.ones(
        3, 3, dtype=lib.float64)),
    "dtype_before_bounds": lambda lib, x: x.__setitem__(lib.tensor([0, 7]), lib.ones(
        3, dtype=lib.float64)),
    "getitem_broadcast_before_bounds": lambda lib, x: x[lib.tensor([0, 7]),
                                                        lib.tensor([0, 1, 2])],
}


@pytest.mark.parametrize("name", ORDER)
def test_index_put_checks_in_torchs_order(name):
    assert_same_error(written(ORDER[name], lambda lib: lib.zeros(3, 3)))
