"""``nn.utils``: gradient clipping and the parameters-as-one-vector conversions."""
from autograd_cy.nn.utils.clip_grad import clip_grad_norm_, clip_grad_value_, get_total_norm  # noqa: F401
from autograd_cy.nn.utils.convert_parameters import (  # noqa: F401
    parameters_to_vector, vector_to_parameters,
)
