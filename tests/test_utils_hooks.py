"""``utils.hooks`` against ``torch.utils.hooks``: the handle, the unserializable mark."""
import collections
import warnings

import pytest
import torch
import torch.utils.hooks

import autograd_cy as ag
from autograd_cy.utils import hooks


def test_names_as_torchs():
    assert set(hooks.__all__) <= set(dir(torch.utils.hooks))
    handle = ag.ones(1, requires_grad=True).register_hook(lambda g: g)
    assert isinstance(handle, hooks.RemovableHandle)
    assert isinstance(ag.nn.Linear(1, 1).register_forward_hook(lambda *a: None),
                      hooks.RemovableHandle)


@pytest.mark.parametrize("lib", [hooks, torch.utils.hooks])
def test_handle_removes_from_its_table_and_extra_dicts(lib):
    table, first, second = (collections.OrderedDict() for _ in range(3))
    a = lib.RemovableHandle(table, extra_dict=first)
    b = lib.RemovableHandle(table, extra_dict=[first, second])
    assert isinstance(a.id, int) and b.id > a.id and a.hooks_dict_ref() is table
    for handle in (a, b):
        table[handle.id] = first[handle.id] = second[handle.id] = "hook"
    a.remove()
    assert list(table) == [b.id] and list(first) == [b.id] and list(second) == [a.id, b.id]
    a.remove()                                   # a second remove does nothing
    with b as entered:
        assert entered is b
    assert not table and not first and list(second) == [a.id]
    with pytest.raises(TypeError):
        lib.RemovableHandle(table, first)        # extra_dict is keyword-only


@pytest.mark.parametrize("lib,tensors", [(hooks, ag), (torch.utils.hooks, torch)])
def test_warn_if_has_hooks_skips_unserializable_ones(lib, tensors):
    x = tensors.ones(1, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lib.warn_if_has_hooks(x)                 # no hooks: no warning

    def hook(g):
        return g
    assert lib.unserializable_hook(hook) is hook and hook.__torch_unserializable__ is True
    x.register_hook(hook)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lib.warn_if_has_hooks(x)
    x.register_hook(lambda g: g)
    with pytest.warns(UserWarning, match=r"backward hook <function .*<lambda>.* on tensor "
                                         r"will not be serialized.*unserializable_hook"):
        lib.warn_if_has_hooks(x)
