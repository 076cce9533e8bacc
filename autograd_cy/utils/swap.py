"""``swap_tensors``, as ``torch.utils.swap_tensors``: two tensor objects exchange everything
they are (class, attributes, data, autograd state), so every reference to one now sees the
other's contents -- what ``nn.Module`` conversion uses under
``__future__.set_swap_module_params_on_conversion(True)``."""
import copyreg
import weakref

from autograd_cy._C.tensor import Tensor, _swap_contents

__all__ = ["swap_tensors"]


def swap_tensors(t1, t2):
    """Swap ``t1`` and ``t2`` in place: their Python classes, ``__dict__``, slots and the
    tensors they hold. Refused for a tensor something holds a weak reference to, and (unlike
    torch) between a plain Tensor and a subclass's tensor, whose classes Python cannot swap."""
    if weakref.getweakrefs(t1):
        raise RuntimeError("Cannot swap t1 because it has weakref associated with it")
    if weakref.getweakrefs(t2):
        raise RuntimeError("Cannot swap t2 because it has weakref associated with it")
    slots1 = set(copyreg._slotnames(t1.__class__))
    slots2 = set(copyreg._slotnames(t2.__class__))
    if slots1 != slots2:
        raise RuntimeError("Cannot swap t1 and t2 if they have different slots")

    def swap_attribute(name):
        held = getattr(t1, name)
        setattr(t1, name, getattr(t2, name))
        setattr(t2, name, held)

    if type(t1) is not type(t2):
        # Python swaps the classes of two heap types only (two Parameter subclasses): a plain
        # Tensor's class is a static type, which cannot be assigned
        if type(t1) is Tensor or type(t2) is Tensor:
            raise RuntimeError("Cannot swap a plain Tensor with a tensor of a subclass "
                               f"({type(t1).__name__} and {type(t2).__name__}) in autograd_cy")
        swap_attribute("__class__")
    attributes1, attributes2 = dict(t1.__dict__), dict(t2.__dict__)
    t1.__dict__.clear()             # the dicts' contents: a Tensor's __dict__ slot is fixed
    t1.__dict__.update(attributes2)
    t2.__dict__.clear()
    t2.__dict__.update(attributes1)
    for slot in slots1:
        present1, present2 = hasattr(t1, slot), hasattr(t2, slot)
        if present1 and present2:
            swap_attribute(slot)
        elif present1:
            setattr(t2, slot, getattr(t1, slot))
            delattr(t1, slot)
        elif present2:
            setattr(t1, slot, getattr(t2, slot))
            delattr(t2, slot)
    _swap_contents(t1, t2)
