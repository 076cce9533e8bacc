"""``autograd_cy.device``: where a tensor's array lives (``cpu`` or ``cuda:N``)."""

__all__ = ["device"]


cdef class device:
    """A device, parsed like ``torch.device``.

    >>> ag.device("cuda:1"), ag.device("cpu") == "cpu"
    (device(type='cuda', index=1), True)
    """

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = (<device>type).type, (<device>type).index
        elif ":" in type:
            type, _, number = type.partition(":")
            index = int(number)
        if type not in ("cpu", "cuda"):
            raise RuntimeError(
                f"Expected one of cpu, cuda device type at start of device string: {type}")
        self.type = type
        self.index = index

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return (isinstance(other, device) and self.type == (<device>other).type
                and self.index == (<device>other).index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __reduce__(self):
        return (device, (self.type, self.index))


CPU = device("cpu")
