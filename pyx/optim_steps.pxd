# Design: the optimizers' CPU steps fused into one C loop per parameter (NOTE [Fused
# optimizer steps]): the same float operations, in the same order and rounding, as the
# NumPy path of autograd_cy/optim (NOTE [Optimizer steps on the arrays]), in one pass over
# the arrays instead of a dozen. Imports nothing of autograd_cy; the Python optimizers call it.

cpdef bint adam_step(object param, object grad, object exp_avg, object exp_avg_sq,
                     double beta1, double beta2, double step_size,
                     double bias_correction2_sqrt, double eps, double weight_decay,
                     double lr, bint decoupled, bint maximize) except -1
