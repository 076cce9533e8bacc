"""Activations and losses, as ``torch.nn.functional``, composed from recorded ops."""

__all__ = []
