"""Random programs under vmap agree with torch.vmap (tests/fuzz/vmap.py): values and
gradients, nested vmaps, every in_dims, batched and unbatched second operands. After a fix,
run ``python -m tests.fuzz.vmap --seed S --count N`` on seeds it has never used."""
import warnings

import pytest

from tests.fuzz.vmap import run_seed


@pytest.mark.parametrize("block", range(8))
def test_random_programs_under_vmap(block):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # var() of one element, in both libraries
        failures = [f for f in (run_seed(seed) for seed in range(block * 50, block * 50 + 50))
                    if f]
    assert not failures, "\n\n".join(failures)
