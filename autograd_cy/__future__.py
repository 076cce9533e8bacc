"""``autograd_cy.__future__``, as ``torch.__future__``: the process-wide flags that choose
how ``nn.Module`` conversions (``to``, ``float``, ``cuda`` ...) hand parameters their new
values. By default a parameter keeps its object and gets the new tensor as ``.data``; with
``set_swap_module_params_on_conversion(True)`` the converted parameter is swapped into the
old object (``utils.swap_tensors``); ``set_overwrite_module_params_on_conversion(True)``
puts new Parameter objects in the module."""

__all__ = ["set_overwrite_module_params_on_conversion",
           "get_overwrite_module_params_on_conversion",
           "set_swap_module_params_on_conversion", "get_swap_module_params_on_conversion"]

_overwrite_module_params_on_conversion = False
_swap_module_params_on_conversion = False


def set_overwrite_module_params_on_conversion(value):
    """Whether a conversion puts new Parameters in the module (False by default)."""
    global _overwrite_module_params_on_conversion
    _overwrite_module_params_on_conversion = value


def get_overwrite_module_params_on_conversion():
    return _overwrite_module_params_on_conversion


def set_swap_module_params_on_conversion(value):
    """Whether a conversion swaps each converted parameter into the old object (False by
    default); takes precedence over the overwrite flag."""
    global _swap_module_params_on_conversion
    _swap_module_params_on_conversion = value


def get_swap_module_params_on_conversion():
    return _swap_module_params_on_conversion
