"""Execute op records on one library (``torch`` or ``autograd_cy``)."""
import operator

from tests.fuzz.program import DType, IndexTensor, MaskTensor, Ref


class Executor:
    """The slots of one run on one library, and what its recording hooks saw."""

    def __init__(self, lib):
        self.lib = lib
        self.F = lib.nn.functional
        self.slots = []
        self.seen = {}          # op index of a recording hook -> gradients it received

    def resolve(self, value):
        if isinstance(value, Ref):
            return self.slots[value.slot]
        if isinstance(value, IndexTensor):
            return self.lib.tensor(value.values, dtype=self.lib.int64)
        if isinstance(value, MaskTensor):
            return self.lib.tensor(value.values, dtype=self.lib.bool)
        if isinstance(value, DType):
            return getattr(self.lib, value.name)
        if isinstance(value, tuple):
            return tuple(self.resolve(v) for v in value)
        if isinstance(value, list):
            return [self.resolve(v) for v in value]
        return value

    def _hook(self, index, scale):
        if scale is None:
            seen = self.seen.setdefault(index, [])

            def record(grad):
                seen.append(grad.detach().clone())
            return record

        def scaled(grad):
            return grad * scale
        return scaled

    def call(self, op, index):
        """Run ``op`` (the ``index``-th record); return its outputs as a list."""
        if op.no_grad:
            with self.lib.no_grad():
                return self._call(op, index)
        return self._call(op, index)

    def _call(self, op, index):
        lib = self.lib
        args = self.resolve(op.args)
        kwargs = {k: self.resolve(v) for k, v in op.kwargs.items()}
        kind = op.kind
        if kind == "leaf":
            data, dtype, requires_grad = op.args
            result = lib.tensor(data, dtype=getattr(lib, dtype), requires_grad=requires_grad)
        elif kind == "fn":
            result = getattr(lib, op.name)(*args, **kwargs)
        elif kind == "F":
            result = getattr(self.F, op.name)(*args, **kwargs)
        elif kind == "linalg":
            result = getattr(lib.linalg, op.name)(*args, **kwargs)
        elif kind == "method":
            result = getattr(args[0], op.name)(*args[1:], **kwargs)
        elif kind == "attr":
            result = getattr(args[0], op.name)
        elif kind == "op":
            result = getattr(operator, op.name)(*args)
        elif kind == "setitem":
            args[0][args[1]] = args[2]
            result = None
        elif kind == "hook":
            args[0].register_hook(self._hook(index, kwargs["scale"]))
            result = None
        elif kind == "backward":
            args[0].backward(*args[1:], **kwargs)
            result = None
        elif kind == "grad":
            result = lib.autograd.grad(*args, **kwargs)
        else:
            raise ValueError(kind)
        if op.nout == 0:
            outputs = []
        elif isinstance(result, (tuple, list)):
            outputs = list(result)
        else:
            outputs = [result]
        return outputs
