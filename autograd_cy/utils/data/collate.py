"""``default_collate``: a list of samples into one batch, as torch's (tensors stacked along a
new first dim, numbers and NumPy arrays made tensors, containers collated field by field);
``default_convert``: the same conversions without batching.

NOTE [Containers keep their type]
A batch of dicts is a dict, of namedtuples a namedtuple, of lists a list, as in torch: a
mutable container is copied (``copy.copy``, so a subclass keeps its extra attributes) and its
fields replaced; an immutable one is rebuilt through its type; one that allows neither (a
``range``) becomes a plain list or dict. A plain tuple becomes a list, for torch's backward
compatibility. The fields of the samples are handed down as tuples (``zip``), so strings in
a list or namedtuple come out as a tuple of strings, as torch's do.
"""
import collections.abc
import copy

import numpy as np

__all__ = ["default_collate", "default_convert"]

_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
          "lists; found {}")


def _is_namedtuple(value):
    return isinstance(value, tuple) and hasattr(value, "_fields")


def _holds_text(array):
    """NumPy arrays of strings or objects, which no tensor can hold (torch's ``[SaUO]``)."""
    return any(code in array.dtype.str for code in "SaUO")


def _with_values(mapping, values):
    """``mapping``'s type with ``values`` (NOTE [Containers keep their type])."""
    try:
        if isinstance(mapping, collections.abc.MutableMapping):
            clone = copy.copy(mapping)
            clone.update(values)
            return clone
        return type(mapping)(values)
    except TypeError:
        return values


def _with_items(sequence, items):
    """``sequence``'s type with ``items`` (NOTE [Containers keep their type])."""
    try:
        if isinstance(sequence, collections.abc.MutableSequence):
            clone = copy.copy(sequence)
            for index, item in enumerate(items):
                clone[index] = item
            return clone
        return type(sequence)(items)
    except TypeError:
        return items


def default_collate(batch):
    """One batch of the samples in ``batch`` (a list).

    >>> import autograd_cy as ag
    >>> ag.utils.data.default_collate([(1, 2.0), (3, 4.0)])
    [tensor([1, 3]), tensor([2., 4.], dtype=autograd_cy.float64)]
    """
    import autograd_cy as ag
    elem = batch[0]
    if isinstance(elem, ag.Tensor):
        return ag.stack(list(batch), 0)
    if isinstance(elem, np.ndarray):
        if _holds_text(elem):
            raise TypeError(_ERROR.format(elem.dtype))
        return default_collate([ag.as_tensor(b) for b in batch])
    if isinstance(elem, np.generic) and not isinstance(elem, (str, bytes)):
        return ag.as_tensor(np.array(batch))
    if isinstance(elem, bool):
        return ag.tensor(list(batch))
    if isinstance(elem, float):
        return ag.tensor(list(batch), dtype=ag.float64)
    if isinstance(elem, int):
        return ag.tensor(list(batch))
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        return _with_values(elem, {key: default_collate([d[key] for d in batch])
                                   for key in elem})
    if _is_namedtuple(elem):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(sample) != len(elem) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = [default_collate(samples) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return transposed
        return _with_items(elem, transposed)
    raise TypeError(_ERROR.format(type(elem)))


def default_convert(data):
    """NumPy arrays and scalars inside ``data`` as tensors; the rest as it is."""
    import autograd_cy as ag
    if isinstance(data, ag.Tensor):
        return data
    if isinstance(data, np.ndarray):
        return data if _holds_text(data) else ag.as_tensor(data)
    if isinstance(data, np.generic) and not isinstance(data, (str, bytes)):
        return ag.as_tensor(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        return _with_values(data, {key: default_convert(data[key]) for key in data})
    if _is_namedtuple(data):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _with_items(data, [default_convert(d) for d in data])
    return data
