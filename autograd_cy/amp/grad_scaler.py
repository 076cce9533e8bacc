"""``GradScaler``: loss scaling for mixed-precision training, with torch's bookkeeping.

``scale(loss)`` multiplies the loss by the scale so that small float16 gradients do not
flush to zero; ``unscale_(optimizer)`` divides the gradients back and notes whether any is
inf or NaN; ``step(optimizer)`` steps only when none was; ``update()`` halves the scale
after such a step (``backoff_factor``) and doubles it after ``growth_interval`` clean steps
in a row (``growth_factor``). A disabled scaler (``enabled=False``, or a "cuda" scaler
without a CUDA device, as torch disables it with a warning) passes everything through:
``scale`` returns its argument, ``step`` calls ``optimizer.step()``.
"""
import warnings

from autograd_cy import cuda as _cuda
from autograd_cy import dtypes as _dtypes
from autograd_cy._C.tensor import Tensor
from autograd_cy.factories import full, zeros
from autograd_cy.grad_mode import no_grad

__all__ = ["GradScaler"]

_READY, _UNSCALED, _STEPPED = "ready", "unscaled", "stepped"


class GradScaler:
    """``GradScaler(device="cuda", init_scale=2.**16, growth_factor=2.0,
    backoff_factor=0.5, growth_interval=2000, enabled=True)``."""

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if self._device == "cuda" and enabled and not _cuda.is_available():
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", UserWarning, stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None                   # a float32 tensor, made at the first scale()
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = {}

    def is_enabled(self):
        return self._enabled

    def _lazy_init(self, device):
        self._scale = full((), self._init_scale, dtype=_dtypes.float32, device=device)
        self._growth_tracker = full((), self._init_growth_tracker, dtype=_dtypes.int32,
                                    device=device)

    def _check_scale(self, function):
        if self._scale is None:
            raise AssertionError(f"Attempted {function} but _scale is None.  This may "
                                 f"indicate your script did not use scaler.scale(loss or "
                                 f"outputs) earlier in the iteration.")

    def _state(self, optimizer):
        return self._per_optimizer_states.setdefault(
            id(optimizer), {"stage": _READY, "found_inf": None})

    def scale(self, outputs):
        """``outputs`` (a tensor, or an iterable of them, nested) times the scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._lazy_init(outputs.device)
            return outputs * self._scale.to(outputs.device)
        if isinstance(outputs, (list, tuple)):
            scaled = [self.scale(value) for value in outputs]
            return type(outputs)(scaled) if isinstance(outputs, list) else tuple(scaled)
        if hasattr(outputs, "__iter__"):
            return map(self.scale, outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s gradients by the scale, in place, and note whether any
        gradient holds an inf or a NaN."""
        if not self._enabled:
            return
        self._check_scale("unscale_")
        state = self._state(optimizer)
        if state["stage"] == _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        if state["stage"] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inverse = self._scale.double().reciprocal().float()
        found_inf = zeros(1, dtype=_dtypes.float32, device=self._scale.device)
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    if param.grad.dtype is _dtypes.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    param.grad.mul_(inverse.to(param.grad.device))
                    if not bool(param.grad.isfinite().all()):
                        found_inf.fill_(1.0)
        state["found_inf"] = found_inf
        state["stage"] = _UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step(*args, **kwargs)`` after unscaling, skipped (returning None)
        when a gradient held an inf or a NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        self._check_scale("step")
        state = self._state(optimizer)
        if state["stage"] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == _READY:
            self.unscale_(optimizer)
        result = None
        if not float(state["found_inf"].item()):
            result = optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return result

    def update(self, new_scale=None):
        """The next scale: ``new_scale`` when given, else backed off after a step that
        found an inf, grown after ``growth_interval`` clean ones."""
        if not self._enabled:
            return
        self._check_scale("update")
        if new_scale is not None:
            if isinstance(new_scale, Tensor):
                self._scale.copy_(new_scale)
            else:
                self._scale.fill_(float(new_scale))
        else:
            found = [state["found_inf"] for state in self._per_optimizer_states.values()
                     if state["found_inf"] is not None]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(float(f.item()) for f in found):
                self._scale.mul_(self._backoff_factor)
                self._growth_tracker.fill_(0)
            else:
                tracker = int(self._growth_tracker.item()) + 1
                if tracker == self._growth_interval:
                    grown = float(self._scale.item()) * self._growth_factor
                    if grown != float("inf"):
                        self._scale.fill_(grown)
                    tracker = 0
                self._growth_tracker.fill_(tracker)
        self._per_optimizer_states = {}

    def get_scale(self):
        """The scale as a Python float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else float(self._scale.item())

    def get_growth_factor(self):
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        if self._growth_tracker is None:
            return self._init_growth_tracker
        return int(self._growth_tracker.item())

    def state_dict(self):
        """The scale and the growth settings (empty when disabled), as torch saves them."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])
