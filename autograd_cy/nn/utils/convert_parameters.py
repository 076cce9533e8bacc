"""All parameters as one flat vector and back (``parameters_to_vector`` and
``vector_to_parameters``), for optimizers and analyses that see the model as one point."""
from autograd_cy._C.tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_device(param, device):
    if device is not None and param.device != device:
        raise TypeError("Found two parameters on different devices, this is currently not "
                        "supported.")
    return param.device


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated, in order (differentiable)."""
    from autograd_cy import cat
    device, flat = None, []
    for param in parameters:
        device = _check_device(param, device)
        flat.append(param.view(-1))
    return cat(flat)


def vector_to_parameters(vec, parameters):
    """Copy consecutive slices of ``vec`` into the parameters (their ``.data``)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    device, pointer = None, 0
    for param in parameters:
        device = _check_device(param, device)
        count = param.numel()
        param.data = vec[pointer:pointer + count].view_as(param).data
        pointer += count
