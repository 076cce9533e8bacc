"""How the kernel tests launch an elementwise-family kernel directly on the emulator."""
import numpy as np

from autograd_cy.cuda.layout import elementwise_layout


def element_strides(array):
    return tuple(s // array.itemsize for s in array.strides)


def launch_elementwise(module, name, out, arrays=(), scalars=(), grid=2, block=32):
    """Run ``name`` with the Layout of ``out`` and ``arrays`` (views of out's shape, any
    strides), the element count, the arrays and then the scalars."""
    operands = (out,) + tuple(arrays)
    layout = elementwise_layout(out.shape, [element_strides(a) for a in operands])
    module.get_function(name)((grid,), (block,),
                              (layout, np.int64(out.size), *operands, *scalars))
