"""nn's padding modules (ZeroPad, ConstantPad, ReflectionPad, ReplicationPad, CircularPad;
1d/2d/3d) against torch.nn's: values, gradients and double backward (check_op), the graph
under the output (torch's nodes), ``padding`` as stored, reprs, ``__constants__``, empty
state, and torch's errors: its arguments, a wrong-length padding and every input rank from 1
to 6 (F.pad's errors, CircularPad*d's own ValueError)."""
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same_error, check_op, node_name, randn

KINDS = ["ZeroPad", "ConstantPad", "ReflectionPad", "ReplicationPad", "CircularPad"]
NAMES = [f"{kind}{dims}d" for kind in KINDS for dims in (1, 2, 3)]


def layer(lib, name, padding, value=None):
    """``lib.nn.<name>(padding)``, with ``value`` for the ConstantPad layers."""
    cls = getattr(lib.nn, name)
    if name.startswith("ConstantPad"):
        return cls(padding, 2.5 if value is None else value)
    return cls(padding)


#: name -> (padding, input shape): ints, tuples, negative amounts that crop, unbatched inputs.
CASES = [
    ("ZeroPad1d", 2, (2, 3, 4)),
    ("ZeroPad2d", (1, 0, 2, 1), (2, 3, 3)),
    ("ZeroPad3d", (-1, 0, 1, 1, 0, -1), (1, 2, 2, 3, 3)),
    ("ConstantPad1d", (-1, 2), (2, 4)),
    ("ConstantPad2d", 1, (1, 2, 3, 3)),
    ("ConstantPad3d", (1, 0, 0, 1, 2, 1), (2, 2, 2, 3)),
    ("ReflectionPad1d", (2, 3), (1, 2, 5)),
    ("ReflectionPad1d", (-1, 2), (2, 5)),
    ("ReflectionPad2d", 1, (2, 3, 4)),
    ("ReflectionPad2d", (1, 2, 2, 0), (1, 2, 3, 4)),
    ("ReflectionPad3d", (1, 1, 0, 1, 1, 0), (1, 2, 2, 3, 3)),
    ("ReplicationPad1d", (2, -1), (1, 2, 4)),
    ("ReplicationPad2d", (3, 0, 1, 2), (2, 2, 3)),
    ("ReplicationPad3d", 1, (2, 2, 3, 2)),
    ("CircularPad1d", (2, 3), (1, 2, 4)),
    ("CircularPad1d", (-1, 2), (2, 5)),
    ("CircularPad2d", (1, 1, 2, 0), (1, 1, 3, 3)),
    ("CircularPad2d", 1, (2, 3, 3)),
    ("CircularPad3d", (1, 2, 0, 1, 2, 1), (1, 2, 3, 3, 4)),
]


@pytest.mark.parametrize("name, padding, shape", CASES,
                         ids=[f"{name}-{padding}" for name, padding, _ in CASES])
def test_values_gradients_and_double_backward(name, padding, shape):
    check_op(lambda lib, x: layer(lib, name, padding)(x), randn(*shape))


def _graph(node):
    """The graph below ``node`` as nested (name, children) tuples."""
    if node is None:
        return None
    return node_name(node), tuple((_graph(child), nr) for child, nr in node.next_functions)


@pytest.mark.parametrize("name, padding, shape", CASES,
                         ids=[f"{name}-{padding}" for name, padding, _ in CASES])
def test_graph_is_torchs(name, padding, shape):
    def run(lib):
        x = lib.ones(*shape, requires_grad=True)
        return _graph(layer(lib, name, padding)(x).grad_fn)
    assert run(ag) == run(torch)


def _settings(module):
    return (repr(module), module.padding, getattr(module, "value", None),
            type(module).__constants__, dict(module.state_dict()), list(module.parameters()),
            type(module).__mro__[1].__name__)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("padding", [3, 0, -1], ids=["int", "zero", "negative"])
def test_padding_as_stored_repr_constants_and_no_state(name, padding):
    assert _settings(layer(ag, name, padding)) == _settings(layer(torch, name, padding))


@pytest.mark.parametrize("name", NAMES)
def test_sequences_are_stored_as_tuples_unchecked(name):
    # A list or a range is kept as a tuple; torch checks no length in the constructor.
    for padding in ([1, 2] * int(name[-2]), range(2 * int(name[-2])), (1, 2, 3)):
        assert _settings(layer(ag, name, padding)) == _settings(layer(torch, name, padding))


def test_constant_value_reprs_and_nesting():
    def run(lib):
        nn = lib.nn
        return repr(nn.Sequential(nn.ConstantPad1d(2, 3), nn.ConstantPad3d(1, -1.5),
                                  nn.ZeroPad2d((1, 2, 3, 4)), nn.CircularPad1d(2)))
    assert run(ag) == run(torch)


def _outcome(lib, name, rank, padding=1):
    """The output's shape or the error of ``name(padding)`` on a rank-``rank`` input of 3s."""
    try:
        return tuple(layer(lib, name, padding)(lib.ones(*[3] * rank)).shape)
    except (RuntimeError, ValueError, NotImplementedError) as error:
        return type(error).__name__, str(error)


@pytest.mark.parametrize("name", NAMES)
def test_every_input_rank_as_torch(name):
    # Constant padding takes any rank with room for its amounts; reflection and
    # replication one or two more dims than padded (F.pad's errors); circular too, checked
    # by the module first ("expected 2D or 3D input (got 4D input)").
    for rank in range(1, 7):
        assert _outcome(ag, name, rank) == _outcome(torch, name, rank), rank


@pytest.mark.parametrize("name", ["ReflectionPad1d", "ReplicationPad2d", "CircularPad1d",
                                  "ConstantPad2d", "ZeroPad1d"])
def test_padding_of_the_wrong_length_meets_pads_errors(name):
    for padding in [(1, 2, 3), (1, 1, 1, 1, 1, 1, 1, 1)]:
        assert _outcome(ag, name, 3, padding) == _outcome(torch, name, 3, padding), padding


def test_circular_rank_error_is_a_value_error():
    assert_same_error(lambda lib: lib.nn.CircularPad2d(1)(lib.ones(1, 1, 1, 3, 3)), ValueError,
                      exact=True)


@pytest.mark.parametrize("make", [
    lambda lib: lib.nn.ConstantPad1d(1),
    lambda lib: lib.nn.ConstantPad3d(),
    lambda lib: lib.nn.ZeroPad1d(),
    lambda lib: lib.nn.ZeroPad2d(1, 0.5),
    lambda lib: lib.nn.ReflectionPad3d(1, 2),
    lambda lib: lib.nn.ReplicationPad1d(),
    lambda lib: lib.nn.CircularPad2d(),
], ids=["constant_no_value", "constant_nothing", "zero_nothing", "zero_value",
        "reflection_two", "replication_nothing", "circular_nothing"])
def test_argument_errors_name_the_layer(make):
    assert_same_error(make, TypeError, exact=True)


@pytest.mark.parametrize("name", ["ConstantPad1d", "ReflectionPad1d"])
def test_too_much_reflection_and_cropping_errors(name):
    assert_same_error(lambda lib: layer(lib, name, (4, -5))(lib.ones(2, 3)), exact=True)
