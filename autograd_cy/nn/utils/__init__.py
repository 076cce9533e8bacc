"""``nn.utils``: gradient clipping, the parameters-as-one-vector conversions and ``rnn``
(packed and padded sequences for the recurrent layers)."""
from autograd_cy.nn.utils.clip_grad import clip_grad_norm_, clip_grad_value_, get_total_norm  # noqa: F401
from autograd_cy.nn.utils.convert_parameters import (  # noqa: F401
    parameters_to_vector, vector_to_parameters,
)
from autograd_cy.nn.utils import rnn  # noqa: F401
from autograd_cy.nn.utils import parametrize  # noqa: F401
from autograd_cy.nn.utils import parametrizations  # noqa: F401
from autograd_cy.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from autograd_cy.nn.utils.weight_norm import remove_weight_norm, weight_norm  # noqa: F401
