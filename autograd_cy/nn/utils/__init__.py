"""``nn.utils``: gradient clipping, the parameters-as-one-vector conversions, ``rnn``
(packed and padded sequences for the recurrent layers), ``parametrize`` and
``parametrizations`` (tensors computed from others: orthogonal, weight and spectral
normalization), the older hook-based ``weight_norm`` and ``spectral_norm``, ``fusion``
(batch norm folded into the layer before it), ``stateless``, ``skip_init``
and ``prune`` (masks on parameters)."""
from autograd_cy.nn.utils.clip_grad import (  # noqa: F401
    clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm,
)
from autograd_cy.nn.utils.convert_parameters import (  # noqa: F401
    parameters_to_vector, vector_to_parameters,
)
from autograd_cy.nn.utils import rnn  # noqa: F401
from autograd_cy.nn.utils import prune  # noqa: F401
from autograd_cy.nn.utils import parametrize, parametrizations, stateless  # noqa: F401
from autograd_cy.nn.utils import fusion  # noqa: F401
from autograd_cy.nn.utils.fusion import (  # noqa: F401
    fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights,
)
from autograd_cy.nn.utils.init import skip_init  # noqa: F401
from autograd_cy.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401
from autograd_cy.nn.utils.weight_norm import remove_weight_norm, weight_norm  # noqa: F401
