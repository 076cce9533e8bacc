"""``save`` and ``load``: tensors and containers of them (state dicts, optimizer states) in a
file NumPy can read, as ``torch.save``/``torch.load`` are used.

NOTE [The checkpoint format]
A checkpoint is a zip archive, the same container as NumPy's ``.npz``:

* ``structure.json``: the saved object as a tree of ``{"type": ...}`` nodes: ``tensor``
  (its member ``key``, ``dtype``, ``shape``, ``device``, ``requires_grad``, ``parameter``),
  ``dict`` (its items as ``[key, value]`` pairs and ``ordered`` for an OrderedDict; a key
  that is a str, int, bool, None or finite float is written as it is, any other key (a
  tuple) as its node, a JSON object), ``list``, ``tuple``, ``set``, ``Size``, the Python
  scalars ``int``, ``float`` (``"inf"``, ``"nan"`` as strings), ``complex``, ``bool``,
  ``str``, ``None``, ``bytes`` and ``bytearray`` (base64), and ``dtype`` and ``device`` by
  name: what torch's ``weights_only`` unpickler accepts besides tensors; ``pickled`` (its
  member ``key`` and ``global``, the class) for anything else.
* one ``.npy`` member per tensor (``np.load(path)["t0"]`` reads it); a bfloat16 tensor is
  stored as its uint16 bits, its ``dtype`` in the tree says so. A tensor saved twice (a tied
  weight) is stored once and loaded as one tensor.
* CPU tensors that view one memory (a tensor and its views, as torch keeps one storage
  for them) are stored as that memory, once (``s<n>.npy``, flat), each tensor's node naming
  it (``storage``) with where the tensor starts in it (``offset``) and its ``stride``, in
  elements: loaded, they share memory again.
* one ``.pkl`` member per pickled object, which ``load`` refuses unless
  ``weights_only=False``, as torch refuses unknown globals: a checkpoint of data cannot run
  code when it is loaded.
"""
import base64
import io
import json
import math
import os
import pickle
import zipfile
from collections import OrderedDict

import numpy as np

from autograd_cy._C.device import device as Device
from autograd_cy._C.dtype import dtype as DType
from autograd_cy._C.tensor import Size, Tensor, _array_of

__all__ = ["save", "load"]

_STRUCTURE = "structure.json"


# ------------------------------------------------------------------ save

class _Writer:
    """Turns an object into the tree and the members of NOTE [The checkpoint format]."""

    def __init__(self, pickle_module, pickle_protocol):
        self.members = {}
        self.tensor_keys = {}          # id(tensor) -> its member's key
        self.by_memory = {}            # id(root array) -> (root, [(node, array)]): CPU tensors
        self.pickle_module = pickle_module
        self.pickle_protocol = pickle_protocol

    def node(self, value):
        if isinstance(value, Tensor):
            if getattr(value, "cls_to_become", None) is not None:   # uninitialised: pickled
                return self.pickled(value)                      # (its class, as torch's)
            return self.tensor(value)
        if value is None or isinstance(value, (bool, str)):
            return {"type": type(value).__name__ if value is not None else "None",
                    "value": value}
        if isinstance(value, int):
            return {"type": "int", "value": value}
        if isinstance(value, float):
            return {"type": "float", "value": value if math.isfinite(value) else repr(value)}
        if isinstance(value, complex):
            return {"type": "complex", "value": [value.real, value.imag]}
        if isinstance(value, (bytes, bytearray)):
            return {"type": type(value).__name__,
                    "value": base64.b64encode(value).decode("ascii")}
        if isinstance(value, (DType, Device)):
            return {"type": type(value).__name__, "value": str(value).split(".")[-1]}
        if type(value) in (dict, OrderedDict):
            return {"type": "dict", "ordered": isinstance(value, OrderedDict),
                    "items": [[self.key(k), self.node(v)] for k, v in value.items()]}
        if type(value) in (list, tuple, set, Size):
            return {"type": type(value).__name__, "items": [self.node(v) for v in value]}
        return self.pickled(value)

    def key(self, key):
        """A dict's key as it is where JSON keeps it exactly, else as its node."""
        if key is None or isinstance(key, (str, int)):          # bool is an int
            return key
        if isinstance(key, float) and math.isfinite(key):
            return key
        return self.node(key)

    def tensor(self, value):
        key = self.tensor_keys.get(id(value))
        if key is None:
            key = self.tensor_keys[id(value)] = f"t{len(self.tensor_keys)}"
            array = np.array(_array_of(value.detach().cpu()), order="C")   # 0-dim stays 0-dim
            if array.dtype.name == "bfloat16":
                array = array.view(np.uint16)
            self.members[key + ".npy"] = array
        from autograd_cy.nn.parameter import Parameter
        node = {"type": "tensor", "key": key, "dtype": str(value.dtype).split(".")[-1],
                "shape": list(value.shape), "device": str(value.device),
                "requires_grad": value.requires_grad,
                "parameter": isinstance(value, Parameter)}
        array = _array_of(value)
        if (isinstance(array, np.ndarray) and array.dtype.name != "bfloat16" and array.size
                and min(array.strides, default=0) >= 0):
            root = _memory_owner(array)
            if root.dtype == array.dtype and root.flags.c_contiguous:
                self.by_memory.setdefault(id(root), (root, []))[1].append((node, array))
        return node

    def share_memory(self):
        """Tensors that view one memory (NOTE [The checkpoint format]) are written as that
        memory, once, and where each starts in it, with its strides."""
        for number, (root, users) in enumerate(self.by_memory.values()):
            if len({node["key"] for node, _ in users}) < 2:
                continue
            storage = f"s{number}"
            self.members[storage + ".npy"] = root.reshape(-1)
            start, size = root.ctypes.data, root.itemsize
            for node, array in users:
                self.members.pop(node["key"] + ".npy", None)
                node["storage"] = storage
                node["offset"] = (array.ctypes.data - start) // size
                node["stride"] = [step // size for step in array.strides]

    def pickled(self, value):
        key = f"p{sum(name.endswith('.pkl') for name in self.members)}"
        self.members[key + ".pkl"] = self.pickle_module.dumps(value,
                                                             protocol=self.pickle_protocol)
        kind = type(value)
        return {"type": "pickled", "key": key, "global": f"{kind.__module__}.{kind.__qualname__}"}


def _memory_owner(array):
    """The array that owns the memory ``array`` views."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def save(obj, f, pickle_module=pickle, pickle_protocol=2, _use_new_zipfile_serialization=True):
    """Write ``obj`` (tensors, state dicts, optimizer states, nested containers) to ``f``, a
    path or a binary file (NOTE [The checkpoint format]); ``pickle_module`` and
    ``pickle_protocol`` (torch's defaults) pickle what the format does not hold."""
    writer = _Writer(pickle_module, pickle_protocol)
    tree = writer.node(obj)
    writer.share_memory()
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as handle:
            _write(handle, tree, writer.members)
    else:
        _write(f, tree, writer.members)


def _write(handle, tree, members):
    with zipfile.ZipFile(handle, "w", zipfile.ZIP_STORED) as archive:
        archive.writestr(_STRUCTURE, json.dumps(tree))
        for name, content in members.items():
            if name.endswith(".npy"):
                buffer = io.BytesIO()
                np.save(buffer, content, allow_pickle=False)
                content = buffer.getvalue()
            archive.writestr(name, content)


# ------------------------------------------------------------------ load

def _refusal(global_name):
    return pickle.UnpicklingError(
        "Weights only load failed. This file can still be loaded, to do so you have two "
        "options, do those steps only if you trust the source of the checkpoint. \n\t(1) "
        "Re-running `torch.load` with `weights_only` set to `False` will likely succeed, but "
        "it can result in arbitrary code execution. Do it only if you got the file from a "
        "trusted source.\n\tWeightsUnpickler error: Unsupported global: GLOBAL "
        f"{global_name} was not an allowed global by default.")


def _target_device(location, map_location, tensor):
    """Where a tensor saved on ``location`` goes under ``map_location``."""
    if map_location is None:
        return location
    if callable(map_location):
        moved = map_location(tensor, location)
        return moved if isinstance(moved, Tensor) else location
    if isinstance(map_location, dict):
        return map_location.get(location, location)
    return str(map_location)


_SEQUENCES = {"list": list, "tuple": tuple, "set": set, "Size": Size}


class _Reader:
    def __init__(self, archive, map_location, unpickler):
        self.archive = archive
        self.map_location = map_location
        self.unpickler = unpickler     # None: weights only, pickled members refused
        self.tensors = {}
        self.storages = {}             # a shared memory's member -> its array

    def node(self, tree):
        import autograd_cy as ag
        kind = tree["type"]
        if kind == "tensor":
            return self.tensor(tree)
        if kind in ("None", "bool", "str", "int"):
            return tree["value"]
        if kind == "float":
            return float(tree["value"])
        if kind == "complex":
            return complex(*tree["value"])
        if kind in ("bytes", "bytearray"):
            value = base64.b64decode(tree["value"])
            return value if kind == "bytes" else bytearray(value)
        if kind == "dtype":
            return getattr(ag, tree["value"])
        if kind == "device":
            return ag.device(tree["value"])
        if kind == "dict":
            items = [(self.node(key) if isinstance(key, dict) else key, self.node(value))
                     for key, value in tree["items"]]
            return OrderedDict(items) if tree["ordered"] else dict(items)
        if kind in _SEQUENCES:
            return _SEQUENCES[kind](self.node(value) for value in tree["items"])
        if kind == "pickled":
            if self.unpickler is None:
                raise _refusal(tree["global"])
            return self.unpickler.loads(self.archive.read(tree["key"] + ".pkl"))
        raise RuntimeError(f"unknown entry {kind!r} in the checkpoint's structure")

    def tensor(self, tree):
        key = tree["key"]
        if key in self.tensors:
            return self.tensors[key]
        import autograd_cy as ag
        if "storage" in tree:           # a view of a memory other tensors view too
            memory = self.storages.get(tree["storage"])
            if memory is None:
                memory = self.storages[tree["storage"]] = self.array(tree["storage"])
            array = np.ndarray(tree["shape"], memory.dtype, buffer=memory,
                               offset=tree["offset"] * memory.itemsize,
                               strides=[step * memory.itemsize for step in tree["stride"]])
        else:
            array = self.array(key)
        if tree["dtype"] == "bfloat16":
            array = array.view(ag.bfloat16.numpy)
        value = ag.from_numpy(array)
        target = _target_device(tree["device"], self.map_location, value)
        if isinstance(target, Tensor):
            value = target
        elif target != "cpu":
            value = value.to(target)
        if tree["parameter"]:
            value = ag.nn.Parameter(value, requires_grad=tree["requires_grad"])
        elif tree["requires_grad"]:
            value.requires_grad_(True)
        self.tensors[key] = value
        return value

    def array(self, key):
        with self.archive.open(key + ".npy") as member:
            return np.load(io.BytesIO(member.read()), allow_pickle=False)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    """Read what ``save`` wrote. Tensors come back on the device they were saved from, or
    where ``map_location`` sends them (a device, a ``{saved: new}`` dict of device strings,
    or ``fn(tensor, saved_location)`` returning the tensor to use); objects that were
    pickled are refused unless ``weights_only=False``. As torch's, ``weights_only`` left
    unset means True, or False when a ``pickle_module`` is given (which it then unpickles
    with), and an explicit True with a ``pickle_module`` is an error."""
    if weights_only is None:
        weights_only = pickle_module is None
    if weights_only and pickle_module is not None:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is "
                           "specified")
    unpickler = None if weights_only else pickle_module or pickle
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as handle:
            return _read(handle, map_location, unpickler)
    return _read(f, map_location, unpickler)


def _read(handle, map_location, unpickler):
    with zipfile.ZipFile(handle) as archive:
        if _STRUCTURE not in archive.namelist():
            raise RuntimeError("not a checkpoint written by autograd_cy.save: no "
                               f"{_STRUCTURE} in the archive")
        tree = json.loads(archive.read(_STRUCTURE))
        return _Reader(archive, map_location, unpickler).node(tree)
