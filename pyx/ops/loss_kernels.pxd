# Design: nll_loss's common case ((N, C) float input, int64 class indices, no weights,
# 'mean' or 'sum') in typed loops, the CPU backend's nll_loss (cpu_backend.pyx); loss.pyx
# falls back to its general NumPy path when these return None.

cdef object nll_loss_2d(object x, object target, object ignore_index, bint mean)
cdef object nll_loss_2d_backward(object grad_output, object x, object target,
                                 object ignore_index, bint mean, object total_weight)
