"""``autograd_cy.optim``, as ``torch.optim``: optimizers that update parameters from their
``.grad`` (``SGD``, ``Adam``, ``AdamW``, on the ``Optimizer`` base class) and learning-rate
schedules (``optim.lr_scheduler``)."""
from autograd_cy.optim.optimizer import Optimizer
from autograd_cy.optim.sgd import SGD
from autograd_cy.optim.adam import Adam
from autograd_cy.optim.adamw import AdamW
from autograd_cy.optim import lr_scheduler

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "lr_scheduler"]
