"""``nn.grad``: the gradients of a convolution with respect to its input and to its weight,
as functions (``conv2d_input(input_size, weight, grad_output, ...)``), for custom Functions
that write a convolution's backward themselves.

Each is the vector-Jacobian product of the convolution op itself: the convolution is run
on a stand-in for the operand whose gradient is wanted, and ``autograd.grad`` gives that
gradient for ``grad_output``. So the values are those of the convolution's own backward,
and the result is differentiable again where grad mode is on and an operand requires grad.

>>> import autograd_cy as ag
>>> ag.nn.grad.conv1d_input((1, 1, 3), ag.ones(1, 1, 2), ag.ones(1, 1, 2))
tensor([[[1., 2., 1.]]])
"""
import autograd_cy as _ag

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input",
           "conv3d_weight"]


def _vjp(name, input, weight, grad_output, of_input, stride, padding, dilation,
         groups):
    """The gradient of ``convolution(input, weight, ...)`` for ``grad_output`` with respect
    to the input (``of_input``) or the weight; the other operand is taken as it is."""
    convolution = getattr(_ag.nn.functional, name)     # looked up late: nn loads first
    wanted = (input if of_input else weight).detach().requires_grad_()
    other = weight if of_input else input
    create_graph = _ag.is_grad_enabled() and (grad_output.requires_grad or other.requires_grad)
    with _ag.enable_grad():
        output = (convolution(wanted, other, None, stride, padding, dilation, groups)
                  if of_input else
                  convolution(other, wanted, None, stride, padding, dilation, groups))
        gradient, = _ag.autograd.grad(output, wanted, grad_output, create_graph=create_graph)
    return gradient


def _stand_in(size, like):
    """Zeros of ``size`` with ``like``'s dtype and device: only the shape is read."""
    return _ag.zeros(tuple(size), dtype=like.dtype, device=like.device)


def _input_gradient(convolution):
    def gradient(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
        return _vjp(convolution, _stand_in(input_size, grad_output), weight, grad_output, True,
                    stride, padding, dilation, groups)
    return gradient


def _weight_gradient(convolution):
    def gradient(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
        return _vjp(convolution, input, _stand_in(weight_size, grad_output), grad_output, False,
                    stride, padding, dilation, groups)
    return gradient


def _named(function, name, what):
    function.__name__ = function.__qualname__ = name
    function.__doc__ = f"The gradient of ``{name.split('_')[0]}`` with respect to its {what}."
    return function


conv1d_input = _named(_input_gradient("conv1d"), "conv1d_input", "input")
conv1d_weight = _named(_weight_gradient("conv1d"), "conv1d_weight", "weight")
conv2d_input = _named(_input_gradient("conv2d"), "conv2d_input", "input")
conv2d_weight = _named(_weight_gradient("conv2d"), "conv2d_weight", "weight")
conv3d_input = _named(_input_gradient("conv3d"), "conv3d_input", "input")
conv3d_weight = _named(_weight_gradient("conv3d"), "conv3d_weight", "weight")
