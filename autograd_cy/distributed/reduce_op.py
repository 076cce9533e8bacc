"""``ReduceOp``, as ``torch.distributed.ReduceOp``: how a reducing collective combines the
ranks' values (``ReduceOp.SUM`` is a member of the enum ``ReduceOp.RedOpType``, as in torch)."""
import enum

__all__ = ["ReduceOp", "supports_complex"]


class RedOpType(enum.Enum):
    """The reductions, numbered as torch numbers them."""
    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8


class ReduceOp:
    """The namespace of the reductions: ``ReduceOp.SUM``, ``ReduceOp.AVG`` ... each a
    ``ReduceOp.RedOpType``."""
    RedOpType = RedOpType
    SUM = RedOpType.SUM
    AVG = RedOpType.AVG
    PRODUCT = RedOpType.PRODUCT
    MIN = RedOpType.MIN
    MAX = RedOpType.MAX
    BAND = RedOpType.BAND
    BOR = RedOpType.BOR
    BXOR = RedOpType.BXOR
    PREMUL_SUM = RedOpType.PREMUL_SUM


#: the reductions that are not meaningful on complex numbers, which torch refuses
_NOT_COMPLEX = frozenset({RedOpType.MAX, RedOpType.MIN, RedOpType.PRODUCT, RedOpType.BAND,
                          RedOpType.BOR, RedOpType.BXOR})

#: the reductions of bits, for integer and bool tensors only
BITWISE = frozenset({RedOpType.BAND, RedOpType.BOR, RedOpType.BXOR})


def supports_complex(op):
    """Whether ``op`` reduces complex tensors (SUM and AVG do, componentwise)."""
    return op not in _NOT_COMPLEX


def as_red_op_type(op, function_name):
    """``op`` as a RedOpType, or torch's error for anything else."""
    if isinstance(op, RedOpType):
        return op
    raise TypeError(f"{function_name}(): op must be a ReduceOp (ReduceOp.SUM, ...), "
                    f"but got {type(op).__name__}")
