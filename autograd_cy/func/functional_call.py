"""``functional_call``: call a Module with other tensors in place of its parameters and
buffers, so the module is a function of them (``torch.func.functional_call``).

This is how the transforms reach a model: ``grad(lambda p: loss(functional_call(model, p,
(x,))))(params)`` differentiates with respect to ``params``, and ``vmap`` of that gives
per-example gradients. The given tensors are put in the module's tables for the call and the
originals put back afterwards, even if the call raises.
"""
import contextlib

__all__ = ["functional_call"]


def _merged(dicts):
    """One dict of the given dict, or of a tuple of dicts with no key repeated."""
    if isinstance(dicts, dict):
        return dict(dicts)
    merged = {}
    for entries in dicts:
        for key, value in entries.items():
            if key in merged:
                raise ValueError(f"{key} appeared in multiple dictionaries; behavior of "
                                 "functional call is ambiguous")
            merged[key] = value
    return merged


def _with_tied_names(module, tensors):
    """``tensors`` plus, for each given name of a tensor the module holds under several names
    (tied weights), the same value under the other names."""
    names_of = {}
    for name, value in [*module.named_parameters(remove_duplicate=False),
                        *module.named_buffers(remove_duplicate=False)]:
        names_of.setdefault(id(value), set()).add(name)
    tied = {name: names for names in names_of.values() if len(names) > 1 for name in names}
    result = dict(tensors)
    for name in [n for n in tensors if n in tied]:
        given = {id(tensors[other]) for other in tied[name] if other in tensors}
        if len(given) > 1:
            raise ValueError(f"functional_call got multiple values for keys "
                             f"{sorted(tied[name])}, which are tied. Consider using "
                             "tie_weights=False")
        for other in tied[name]:
            result[other] = tensors[name]
    return result


def _check_keys(module, tensors):
    expected = {name for name, _ in module.named_parameters(remove_duplicate=False)}
    expected |= {name for name, _ in module.named_buffers(remove_duplicate=False)}
    errors = []
    unexpected = sorted(set(tensors) - expected)
    missing = sorted(expected - set(tensors))
    if unexpected:
        errors.append(f"Unexpected key(s): {', '.join(map(repr, unexpected))}.")
    if missing:
        errors.append(f"Missing key(s): {', '.join(map(repr, missing))}.")
    if errors:
        raise RuntimeError("Error(s) in reparametrizing for {}:\n\t{}".format(
            module._get_name(), "\n\t".join(errors)))


_ABSENT = object()


@contextlib.contextmanager
def _swapped(module, tensors):
    """The module's parameters and buffers replaced by ``tensors`` (by dotted name) inside
    the ``with``; a name the module lacks becomes a plain attribute for the call, and a
    parametrized one is assigned (through its ``right_inverse``) and assigned back, as in
    torch."""
    swapped = []                   # (owner, table or None, name, original)
    try:
        for path, value in tensors.items():
            owner_path, _, name = path.rpartition(".")
            owner = module.get_submodule(owner_path)
            table = next((t for t in (owner._parameters, owner._buffers) if name in t), None)
            if table is None:     # a plain attribute, or a parametrized tensor's property
                original = getattr(owner, name) if hasattr(owner, name) else _ABSENT
                swapped.append((owner, None, name, original))
                setattr(owner, name, value)
            else:
                swapped.append((owner, table, name, table[name]))
                table[name] = value
        yield
    finally:
        for owner, table, name, original in reversed(swapped):
            if table is not None:
                table[name] = original
            elif original is _ABSENT:
                delattr(owner, name)
            else:
                setattr(owner, name, original)


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """``module(*args, **kwargs)`` with the tensors of ``parameter_and_buffer_dicts`` (a dict
    by dotted name, or a tuple of dicts) in place of its parameters and buffers.

    >>> model = ag.nn.Linear(2, 1, bias=False)
    >>> weight = ag.tensor([[1.0, 2.0]])
    >>> ag.func.functional_call(model, {"weight": weight}, (ag.tensor([3.0, 4.0]),))
    tensor([11.])
    """
    tensors = _merged(parameter_and_buffer_dicts)
    if tie_weights:
        tensors = _with_tied_names(module, tensors)
    if strict:
        _check_keys(module, tensors)
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    with _swapped(module, tensors):
        return module(*args, **(kwargs or {}))
