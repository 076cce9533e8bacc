"""``autograd_cy.distributed.algorithms``, as torch's: DDP's communication hooks."""
