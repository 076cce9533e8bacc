"""torch.__future__: the flags that choose how ``nn.Module`` converts and loads its tensors.

``set_overwrite_module_params_on_conversion(True)``: ``module.to()``/``_apply`` makes new
Parameter objects instead of assigning ``.data``. ``set_swap_module_params_on_conversion(True)``:
conversions and ``load_state_dict`` keep the Parameter (and buffer) objects and give them the
new contents (torch swaps the two tensors with ``torch.utils.swap_tensors``; here the kept
object takes the new tensor as its ``.data``, which is what a swap leaves visible for a plain
tensor or Parameter)."""

__all__ = ["set_overwrite_module_params_on_conversion",
           "get_overwrite_module_params_on_conversion",
           "set_swap_module_params_on_conversion", "get_swap_module_params_on_conversion"]

_overwrite_module_params_on_conversion = False
_swap_module_params_on_conversion = False


def set_overwrite_module_params_on_conversion(value):
    """Whether module conversions replace a Parameter by a new one (default False)."""
    global _overwrite_module_params_on_conversion
    _overwrite_module_params_on_conversion = value


def get_overwrite_module_params_on_conversion():
    return _overwrite_module_params_on_conversion


def set_swap_module_params_on_conversion(value):
    """Whether module conversions and ``load_state_dict`` keep the Parameter objects and swap
    in the new contents (default False)."""
    global _swap_module_params_on_conversion
    _swap_module_params_on_conversion = value


def get_swap_module_params_on_conversion():
    return _swap_module_params_on_conversion
