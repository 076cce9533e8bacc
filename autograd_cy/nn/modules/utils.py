"""torch.nn.modules.utils: ``consume_prefix_in_state_dict_if_present`` (and the
``_single``/``_pair`` helpers of ``autograd_cy.nn.tuples``)."""
from autograd_cy.nn.tuples import _ntuple, _pair, _single  # noqa: F401

__all__ = ["consume_prefix_in_state_dict_if_present"]


def consume_prefix_in_state_dict_if_present(state_dict, prefix):
    """Strip ``prefix`` (``"module."`` of a DataParallel model) from the keys of
    ``state_dict`` and of its ``_metadata``, in place."""
    for key in list(state_dict.keys()):
        if key.startswith(prefix):
            state_dict[key[len(prefix):]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        for key in list(metadata.keys()):
            # '' is the wrapper's own entry; 'module' (the prefix without its dot) the model's
            if key and (key == prefix.replace(".", "") or key.startswith(prefix)):
                metadata[key[len(prefix):]] = metadata.pop(key)
