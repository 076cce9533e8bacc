"""``autograd_cy.optim``, as ``torch.optim``: optimizers that update parameters from their
``.grad`` (``SGD``, ``Adam``, ``AdamW``, ``Adadelta``, ``Adagrad``, ``Adamax``, ``ASGD``,
``NAdam``, ``RAdam``, ``RMSprop``, ``Rprop``, ``LBFGS``, ``Adafactor``, ``Muon``, on the
``Optimizer`` base class), learning-rate schedules (``optim.lr_scheduler``) and weight averaging
(``optim.swa_utils``)."""
from autograd_cy.optim.optimizer import Optimizer
from autograd_cy.optim.sgd import SGD
from autograd_cy.optim.adam import Adam
from autograd_cy.optim.adamw import AdamW
from autograd_cy.optim.adadelta import Adadelta
from autograd_cy.optim.adagrad import Adagrad
from autograd_cy.optim.adamax import Adamax
from autograd_cy.optim.asgd import ASGD
from autograd_cy.optim.nadam import NAdam
from autograd_cy.optim.radam import RAdam
from autograd_cy.optim.rmsprop import RMSprop
from autograd_cy.optim.rprop import Rprop
from autograd_cy.optim.lbfgs import LBFGS
from autograd_cy.optim.adafactor import Adafactor
from autograd_cy.optim.muon import Muon
from autograd_cy.optim import lr_scheduler
from autograd_cy.optim import swa_utils

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adadelta", "Adagrad", "Adamax", "ASGD",
           "NAdam", "RAdam", "RMSprop", "Rprop", "LBFGS", "Adafactor", "Muon",
           "lr_scheduler",
           "swa_utils"]
