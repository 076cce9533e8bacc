"""PyTorch's argument-parser errors, for the ops whose Python signature cannot raise them.

# NOTE [Overloads and the argument parser]
torch parses a call against each overload of the op (``sum()``, ``sum(dim, keepdim=False)``)
and raises a TypeError worded by its parser when none fits. When exactly one overload takes
that many arguments, its own complaint is raised ('reshape() missing 1 required positional
arguments: "shape"'); otherwise the parser lists every overload ("sum() received an invalid
combination of arguments - got (keepdim=bool, ), but expected one of: ..."). So
``x.sum(keepdim=True)`` is refused (keepdim belongs to the overload whose dim is required)
while ``x.sum(None, True)`` is not. The ops here tell "not given" from an explicit None with
the ``NOT_GIVEN`` default, and call these helpers only on their error paths; the messages
list the overloads of the Tensor method (``x.sum(...)``), the form the functions share.
"""
import operator


class _NotGiven:
    """The default of an argument whose absence selects another overload than any value."""

    def __repr__(self):
        return "<not given>"


NOT_GIVEN = _NotGiven()


cdef str described(tuple args, dict kwargs):
    """The arguments as the parser lists them: ``(int, keepdim=bool)``. As in torch, the
    ', ' after the last keyword stays when there is no positional argument."""
    parts = [type(a).__name__ + ", " for a in args]
    parts += [f"{k}={type(v).__name__}, " for k, v in kwargs.items()]
    text = "".join(parts)
    return "(" + (text[:-2] if args else text) + ")"


cdef object invalid_combination(str name, tuple args, dict kwargs, tuple signatures):
    """The TypeError of a call that fits none of ``signatures`` (each ``(int dim, ...)``)."""
    return TypeError(
        f"{name}() received an invalid combination of arguments - got "
        f"{described(args, kwargs)}, but expected one of:\n"
        + "".join([f" * {signature}\n" for signature in signatures]))


cdef object missing_argument(str name, str argument):
    """The TypeError of the one fitting overload when a required argument is missing."""
    return TypeError(f'{name}() missing 1 required positional arguments: "{argument}"')


cpdef bint is_int(object value):
    """An int for the parser: int, a NumPy integer or a 0-d integer tensor; never a bool."""
    if type(value) is int:
        return True
    if isinstance(value, bool):
        return False
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


cdef tuple int_list(str name, str argument, tuple args, object keyword, tuple signatures=()):
    """The sizes of ``x.view(2, 3)``, ``x.view((2, 3))`` or ``x.view(size=(2, 3))``: a
    "tuple of ints" argument, which also takes its elements as separate arguments.

    ``signatures``, for an op with other overloads (``view(dtype)``), turns the errors of a
    call with no or one argument into the parser's list of overloads.
    """
    cdef Py_ssize_t i
    if keyword is not None:
        if args:
            raise TypeError(f"{name}() got multiple values for argument '{argument}'")
        args = (keyword,)
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        sizes = tuple(args[0])
        packed = True
    else:
        sizes = args
        packed = False
    for i, n in enumerate(sizes):
        if type(n) is int or is_int(n):
            continue
        if signatures and i == 0:
            raise invalid_combination(name, args, {}, signatures)
        if packed and i == 0:
            raise TypeError(f"{name}(): argument '{argument}' (position 1) must be tuple of "
                            f"ints, but found element of type {type(n).__name__} at pos 0")
        if i == 0:
            if len(args) > 1:
                raise TypeError(f"{name}() takes 1 positional argument but {len(args)} were "
                                "given")
            raise TypeError(f"{name}(): argument '{argument}' (position 1) must be tuple of "
                            f"ints, not {type(n).__name__}")
        raise TypeError(f"{name}(): argument '{argument}' failed to unpack the object at pos "
                        f"{i + 1} with error \"type must be tuple of ints,but got "
                        f"{type(n).__name__}\"")
    if not args:
        if signatures:
            raise invalid_combination(name, args, {}, signatures)
        raise missing_argument(name, argument)
    return sizes
