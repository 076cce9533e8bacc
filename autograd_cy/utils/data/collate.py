"""``default_collate``: a list of samples into one batch, as torch's (tensors stacked along a
new first dim, numbers and NumPy arrays made tensors, containers collated field by field);
``default_convert``: the same conversions without batching."""
import collections.abc

import numpy as np

__all__ = ["default_collate", "default_convert"]

_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
          "lists; found {}")


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(value, "_fields")


def default_collate(batch):
    """One batch of the samples in ``batch`` (a list)."""
    import autograd_cy as ag
    elem = batch[0]
    if isinstance(elem, ag.Tensor):
        return ag.stack(list(batch), 0)
    if isinstance(elem, np.ndarray) and elem.dtype.kind not in "USO":
        return default_collate([ag.as_tensor(b) for b in batch])
    if isinstance(elem, np.generic) and elem.dtype.kind not in "USO":
        return ag.as_tensor(np.array(batch))
    if isinstance(elem, bool):
        return ag.tensor(batch)
    if isinstance(elem, float):
        return ag.tensor(batch, dtype=ag.float64)
    if isinstance(elem, int):
        return ag.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([d[key] for d in batch]) for key in elem}
        try:
            return type(elem)(collated)
        except TypeError:
            return collated
    if _is_namedtuple(elem):
        return type(elem)(*(default_collate(list(samples)) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = [default_collate(list(samples)) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return transposed                 # torch returns a list here
        try:
            return type(elem)(transposed)
        except TypeError:
            return transposed
    raise TypeError(_ERROR.format(type(elem)))


def default_convert(data):
    """NumPy arrays and scalars inside ``data`` as tensors; the rest as it is."""
    import autograd_cy as ag
    if isinstance(data, np.ndarray) and data.dtype.kind not in "USO":
        return ag.as_tensor(data)
    if isinstance(data, np.generic) and data.dtype.kind not in "USO":
        return ag.as_tensor(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        return type(data)({key: default_convert(value) for key, value in data.items()})
    if _is_namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return [default_convert(d) for d in data]
    return data
