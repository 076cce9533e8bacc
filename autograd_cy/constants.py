"""torch's numeric constants: ``inf``, ``nan``, ``e``, ``pi`` (Python floats, as torch's)
and ``newaxis`` (``None``: ``x[:, newaxis]`` inserts a dimension)."""
import math

__all__ = ["inf", "nan", "e", "pi", "newaxis"]

inf = math.inf
nan = math.nan
e = math.e
pi = math.pi
newaxis = None
