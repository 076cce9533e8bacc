"""In-place arithmetic that records nothing runs straight into the tensor's memory.

(The path an optimizer step takes under no_grad.) Values, dtypes, versions,
memory identity and errors must be those of the recorded path and of torch.
"""
import numpy as np
import pytest
import torch

import autograd_cy as ag

CASES = [
    ("add", lambda t, o: t.add_(o)), ("add_alpha", lambda t, o: t.add_(o, alpha=-0.5)),
    ("sub", lambda t, o: t.sub_(o)), ("sub_alpha", lambda t, o: t.sub_(o, alpha=2)),
    ("mul", lambda t, o: t.mul_(o)), ("div", lambda t, o: t.div_(o)),
    ("iadd", lambda t, o: t.__iadd__(o)), ("isub", lambda t, o: t.__isub__(o)),
]
OTHERS = {
    "tensor": lambda lib: lib.tensor([[0.5], [2.0]]),
    "float64_tensor": lambda lib: lib.tensor([1.5, -2.0, 4.0], dtype=lib.float64),
    "number": lambda lib: 3.0,
    "int": lambda lib: 2,
}


@pytest.mark.parametrize("other", sorted(OTHERS))
@pytest.mark.parametrize("name, op", CASES, ids=[c[0] for c in CASES])
def test_no_grad_inplace_matches_torch(name, op, other):
    results = []
    for lib in (ag, torch):
        p = lib.tensor(np.arange(1.0, 7.0).reshape(2, 3), requires_grad=True)
        with lib.no_grad():
            address, version = p.data_ptr(), p._version
            out = op(p, OTHERS[other](lib))
        assert out is p and p.data_ptr() == address and p._version == version + 1
        results.append(p.detach().numpy().copy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)
    assert results[0].dtype == results[1].dtype


@pytest.mark.parametrize("build, message", [
    (lambda lib: lib.tensor([1, 2]).add_(1.5), "result type Float can't be cast"),
    (lambda lib: lib.tensor([1, 2]).div_(2), "result type Float can't be cast"),
    (lambda lib: lib.ones(3).add_(lib.ones(2, 3)), "doesn't match the broadcast shape"),
    (lambda lib: lib.tensor([True]).sub_(lib.tensor([True])), "Subtraction, the `-` operator"),
])
def test_no_grad_inplace_errors_match_torch(build, message):
    for lib in (ag, torch):
        with pytest.raises(RuntimeError, match=message):
            build(lib)
