"""What the kernel tests share: launching an elementwise-family kernel directly on the
emulator, and reading a manifest entry's parameters as the emulator's signature codes."""
import numpy as np

from autograd_cy.cuda.emulator.module import dtype_code
from autograd_cy.cuda.layout import STRUCT_DTYPES, elementwise_layout


def element_strides(array):
    return tuple(s // array.itemsize for s in array.strides)


def launch_elementwise(module, name, out, arrays=(), scalars=(), grid=2, block=32):
    """Run ``name`` with the Layout of ``out`` and ``arrays`` (views of out's shape, any
    strides), the element count, the arrays and then the scalars."""
    operands = (out,) + tuple(arrays)
    layout = elementwise_layout(out.shape, [element_strides(a) for a in operands])
    module.get_function(name)((grid,), (block,),
                              (layout, np.int64(out.size), *operands, *scalars))


def signature_code(word):
    """The emulator's code (``CpuKernel.sig``) of one manifest parameter word: a Layout by
    value (any struct of layout.STRUCT_DTYPES), a pointer to its pointee's code, an exact
    scalar type."""
    if word in STRUCT_DTYPES:
        return f"V{STRUCT_DTYPES[word].itemsize}"
    if word.startswith("ptr:"):
        return "P" + signature_code(word[4:])
    return dtype_code(word)
