"""``DataParallel``, as ``torch.nn.parallel.DataParallel``: one process, the batch split
over the CUDA devices.

Without a CUDA device (as a CPU-only torch) the wrapper only forwards to its module. With
devices, the module must live on ``device_ids[0]``; the inputs are scattered along ``dim``
(chunks of tensors, anything else shared), each chunk runs and the outputs are gathered on
``output_device``. Where torch runs a replica of the module on each device, here every chunk
runs the one module on ``device_ids[0]``: the values and gradients are the same (the
replicas' gradients sum into the parameters there too), only the running statistics of a
batch norm see each chunk, where torch's keep those of the first replica only.
"""
from autograd_cy._C.device import device as _device
from autograd_cy._C.tensor import Tensor
from autograd_cy._C.ops.split_cat import cat
from autograd_cy.autograd.profiler import record_function
from autograd_cy.nn.modules.module import Module

__all__ = ["DataParallel"]


def _cuda():
    from autograd_cy import cuda
    return cuda


def _index(device):
    if isinstance(device, int):
        return device
    device = _device(device)
    return _cuda().current_device() if device.index is None else device.index


def _scatter(value, devices, dim):
    """``value`` as one piece per device: tensors chunked along ``dim`` and moved, lists,
    tuples and dicts piece by piece, anything else shared (as torch's ``scatter``)."""
    if isinstance(value, Tensor):
        return [chunk.to(f"cuda:{index}")
                for chunk, index in zip(value.chunk(len(devices), dim), devices)]
    if isinstance(value, (tuple, list)) and value:
        pieces = list(zip(*(_scatter(item, devices, dim) for item in value)))
        if isinstance(value, list):
            return [list(piece) for piece in pieces]
        return [type(value)(piece) if type(value) is tuple else type(value)(*piece)
                for piece in pieces]
    if isinstance(value, dict) and value:
        pieces = list(zip(*(_scatter(item, devices, dim) for item in value.values())))
        return [type(value)(zip(value.keys(), piece)) for piece in pieces]
    return [value] * len(devices)


def _gather(outputs, device, dim):
    """The per-chunk ``outputs`` joined along ``dim`` on ``device`` (tensors), piece by
    piece (containers); a None output stays None."""
    first = outputs[0]
    if isinstance(first, Tensor):
        if first.dim() == 0:            # scalars are stacked into a vector, as torch's
            return cat([out.reshape(1).to(device) for out in outputs])
        return cat([out.to(device) for out in outputs], dim)
    if first is None:
        return None
    if isinstance(first, dict):
        return type(first)((key, _gather([out[key] for out in outputs], device, dim))
                           for key in first)
    if isinstance(first, (tuple, list)):
        gathered = [_gather(list(items), device, dim) for items in zip(*outputs)]
        return gathered if isinstance(first, list) else \
            (tuple(gathered) if type(first) is tuple else type(first)(*gathered))
    return first


class DataParallel(Module):
    """``DataParallel(module, device_ids=None, output_device=None, dim=0)``: ``forward``
    splits the batch over ``device_ids`` (all CUDA devices by default) and gathers the
    outputs on ``output_device`` (``device_ids[0]``); without CUDA it is ``module``."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        self.module = module
        if not _cuda().is_available():
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = list(range(_cuda().device_count()))
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.device_ids = [_index(device) for device in device_ids]
        self.output_device = _index(output_device)
        self.src_device_obj = _device("cuda", self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        with record_function("DataParallel.forward"):
            if not self.device_ids:
                return self.module(*inputs, **kwargs)
            for tensor in list(self.module.parameters()) + list(self.module.buffers()):
                if tensor.device != self.src_device_obj:
                    raise RuntimeError(
                        f"module must have its parameters and buffers on device "
                        f"{self.src_device_obj} (device_ids[0]) but found one of them on "
                        f"device: {tensor.device}")
            pieces = _scatter(inputs, self.device_ids, self.dim) if inputs else []
            kwarg_pieces = _scatter(kwargs, self.device_ids, self.dim) if kwargs else []
            count = max(len(pieces), len(kwarg_pieces), 1)
            pieces = (pieces or [()] * count)[:count]
            kwarg_pieces = (kwarg_pieces or [{}] * count)[:count]
            if len(self.device_ids) == 1:
                return self.module(*pieces[0], **kwarg_pieces[0])
            source = self.src_device_obj
            outputs = [self.module(*_scatter(args, [source.index], self.dim)[0],
                                   **_scatter(kws, [source.index], self.dim)[0])
                       for args, kws in zip(pieces, kwarg_pieces)]
            return _gather(outputs, _device("cuda", self.output_device), self.dim)

