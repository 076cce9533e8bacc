"""``Variable``: the deprecated wrapper of PyTorch < 0.4; today it just returns a Tensor."""
from autograd_cy._C.tensor import Tensor

__all__ = ["Variable"]


class VariableMeta(type):
    """Makes ``isinstance(t, Variable)`` true of every Tensor."""

    def __instancecheck__(cls, other):
        return isinstance(other, Tensor)


class ImperativeEngine:
    """The type of ``Variable._execution_engine``: where PyTorch code reaches the engine
    directly."""

    @staticmethod
    def queue_callback(callback):
        """Run ``callback()`` after the current backward has finished, in queue order."""
        from autograd_cy._C.graph_task import queue_callback
        queue_callback(callback)


class Variable(metaclass=VariableMeta):
    """``Variable(t, requires_grad=...)`` returns a new leaf sharing ``t``'s memory, with
    the flag set; ``t`` itself is left as it was."""

    _execution_engine = ImperativeEngine()

    def __new__(cls, data=None, requires_grad=False, volatile=False):
        from autograd_cy import tensor
        if data is None:
            data = tensor([])
        if not isinstance(data, Tensor):
            raise TypeError("Variable data has to be a tensor, but got "
                            f"{type(data).__name__}")
        return data.detach().requires_grad_(requires_grad)
