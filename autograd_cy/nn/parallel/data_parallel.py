"""``DataParallel`` and ``data_parallel``, as ``torch.nn.DataParallel``: one process running
a module on several CUDA devices, each on a slice of the batch.

Without CUDA the wrapper only calls the module (``device_ids`` is ``[]``), as torch's does
on a machine without a GPU. With devices, each forward:

1. scatters the inputs: every tensor (inside tuples, lists and dicts too) is chunked along
   ``dim`` into one piece per device and each piece copied to its device (fewer pieces
   when the batch is smaller than the device count); other objects are shared;
2. runs a replica on each device: the module itself on ``device_ids[0]`` (so in-place
   updates of its buffers, as BatchNorm's running statistics, are kept, as torch keeps
   them), elsewhere the module called with its parameters and buffers copied to that device
   (``func.functional_call``). The copies are recorded (``ToCopyBackward0``), so backward
   sums each replica's gradient into the module's parameters, as torch's replicate does;
3. gathers the outputs on ``output_device``, concatenated along ``dim`` (scalars, one per
   replica, become a vector, with torch's warning).

torch runs the replicas in threads, one per device; here they run one after another, which
gives the same values and gradients.
"""
import warnings

from autograd_cy import cuda
from autograd_cy._C.device import device as make_device
from autograd_cy._C.tensor import Tensor
from autograd_cy._C.ops.split_cat import cat
from autograd_cy.autograd.profiler import record_function
from autograd_cy.func import functional_call
from autograd_cy.nn.modules.module import Module

__all__ = ["DataParallel", "data_parallel", "scatter", "scatter_kwargs", "gather"]


def _device_index(device):
    """A device id as an index: an int, "cuda:N" or a device (-1: the CPU)."""
    if isinstance(device, int):
        return device
    device = make_device(device)
    if device.type == "cpu":
        return -1
    return device.index if device.index is not None else cuda.current_device()


def _device(index):
    return make_device("cpu") if index == -1 else make_device("cuda", index)


# ------------------------------------------------------------------ scatter and gather

def _scatter(value, device_ids, dim):
    """``value`` cut into one piece per device: a list (shorter than ``device_ids`` when a
    tensor has fewer rows than there are devices)."""
    if isinstance(value, Tensor):
        pieces = value.chunk(len(device_ids), dim)
        return [piece.to(_device(index)) for piece, index in zip(pieces, device_ids)]
    if isinstance(value, tuple) and value:
        return [type(value)(parts) if not hasattr(value, "_fields") else type(value)(*parts)
                for parts in zip(*[_scatter(item, device_ids, dim) for item in value])]
    if isinstance(value, list) and value:
        return [list(parts) for parts in zip(*[_scatter(item, device_ids, dim)
                                               for item in value])]
    if isinstance(value, dict) and value:
        keys = list(value)
        return [type(value)(zip(keys, parts)) for parts in
                zip(*[_scatter(value[key], device_ids, dim) for key in keys])]
    return [value for _ in device_ids]


def scatter(inputs, target_gpus, dim=0):
    """``inputs`` cut into one piece per device of ``target_gpus`` along ``dim``."""
    return _scatter(inputs, [_device_index(device) for device in target_gpus], dim)


def scatter_kwargs(inputs, kwargs, device_ids, dim=0):
    """The positional and keyword inputs cut into one tuple and one dict per device, the
    shorter of the two padded with empty ones."""
    device_ids = [_device_index(device) for device in device_ids]
    inputs = _scatter(tuple(inputs), device_ids, dim) if inputs else []
    kwargs = _scatter(dict(kwargs), device_ids, dim) if kwargs else []
    if len(inputs) < len(kwargs):
        inputs += [() for _ in range(len(kwargs) - len(inputs))]
    elif len(kwargs) < len(inputs):
        kwargs += [{} for _ in range(len(inputs) - len(kwargs))]
    return tuple(inputs), tuple(kwargs)


def gather(outputs, target_device, dim=0):
    """The replicas' outputs joined on ``target_device``: tensors concatenated along
    ``dim`` (0-dim ones stacked into a vector), tuples, lists and dicts item by item."""
    first = outputs[0]
    if isinstance(first, Tensor):
        device = _device(_device_index(target_device))
        if all(output.dim() == 0 for output in outputs):
            warnings.warn("Was asked to gather along dimension 0, but all input tensors were "
                          "scalars; will instead unsqueeze and return a vector.")
            outputs = [output.reshape(1) for output in outputs]
            dim = 0
        return cat([output.to(device) for output in outputs], dim)
    if first is None:
        return None
    if isinstance(first, dict):
        if not all(len(first) == len(output) for output in outputs):
            raise ValueError("All dicts must have the same number of keys")
        return type(first)((key, gather([output[key] for output in outputs], target_device,
                                        dim)) for key in first)
    if isinstance(first, (tuple, list)):
        parts = [gather(list(items), target_device, dim) for items in zip(*outputs)]
        if hasattr(first, "_fields"):
            return type(first)(*parts)
        return type(first)(parts)
    return outputs


# ------------------------------------------------------------------ the replicas

def _run_replicas(module, inputs, kwargs, device_ids):
    """The module's outputs on each device's piece: the module itself on the first device,
    a functional call with its tensors copied to the device on the others."""
    outputs = []
    for index, (args, keywords, device_index) in enumerate(zip(inputs, kwargs, device_ids)):
        if index == 0:
            outputs.append(module(*args, **keywords))
            continue
        device = _device(device_index)
        tensors = {name: tensor.to(device) for name, tensor in
                   list(module.named_parameters()) + list(module.named_buffers())}
        outputs.append(functional_call(module, tensors, tuple(args), keywords))
    return outputs


def _check_placement(module, source):
    for tensor in list(module.parameters()) + list(module.buffers()):
        if tensor.device != source:
            raise RuntimeError(f"module must have its parameters and buffers on device "
                               f"{source} (device_ids[0]) but found one of them on device: "
                               f"{tensor.device}")


def _parallel_forward(module, inputs, kwargs, device_ids, output_device, dim):
    _check_placement(module, _device(device_ids[0]))
    inputs, kwargs = scatter_kwargs(inputs, kwargs, device_ids, dim)
    if not inputs and not kwargs:
        inputs, kwargs = ((),), ({},)
    if len(device_ids) == 1:
        return module(*inputs[0], **kwargs[0])
    outputs = _run_replicas(module, inputs, kwargs, device_ids[:len(inputs)])
    return gather(outputs, output_device, dim)


class DataParallel(Module):
    """``DataParallel(module, device_ids=None, output_device=None, dim=0)``: ``module`` run
    on each of ``device_ids`` (default: every CUDA device) on a slice of the batch along
    ``dim``, the outputs joined on ``output_device`` (default ``device_ids[0]``)."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if not cuda.is_available():
            self.module = module
            self.device_ids = []
            return
        if device_ids is None:
            device_ids = list(range(cuda.device_count()))
        if output_device is None:
            output_device = device_ids[0]
        self.dim = dim
        self.module = module
        self.device_ids = [_device_index(device) for device in device_ids]
        self.output_device = _device_index(output_device)
        self.src_device_obj = _device(self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs, **kwargs):
        with record_function("DataParallel.forward"):      # a profiler range, as torch's
            if not self.device_ids:
                return self.module(*inputs, **kwargs)
            return _parallel_forward(self.module, inputs, kwargs, self.device_ids,
                                     self.output_device, self.dim)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0,
                  module_kwargs=None):
    """``module(*inputs)`` computed as ``DataParallel(module, device_ids, output_device,
    dim)`` would, without the wrapper."""
    if not isinstance(inputs, tuple):
        inputs = (inputs,) if inputs is not None else ()
    if device_ids is None:
        device_ids = list(range(cuda.device_count()))
    if output_device is None:
        output_device = device_ids[0]
    device_ids = [_device_index(device) for device in device_ids]
    return _parallel_forward(module, inputs, module_kwargs or {}, device_ids,
                             _device_index(output_device), dim)
