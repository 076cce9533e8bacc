"""The older, hook-based ``nn.utils.spectral_norm`` and ``remove_spectral_norm``
(``torch.nn.utils.spectral_norm``): the parameter ``<name>_orig`` holds the weight, the
buffers ``<name>_u`` and ``<name>_v`` the power iteration's vectors, and a forward pre-hook
sets ``<name> = <name>_orig / sigma`` (a plain attribute) before every forward, iterating
once more per forward in training mode. The state dict's metadata records the format's
version (``spectral_norm``: ``<name>.version``), and a state dict of the version before
(with ``<name>`` but without ``<name>_v``) is loaded by solving for ``v``."""
from autograd_cy import dot, mv
from autograd_cy.grad_mode import no_grad
from autograd_cy.linalg import multi_dot
from autograd_cy.nn.distance import normalize
from autograd_cy.nn.parameter import Parameter, is_lazy

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook",
           "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    """The forward pre-hook of ``spectral_norm``."""
    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but got "
                             f"n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """The weight as a matrix: ``dim`` first, the other dims flattened."""
        if self.dim != 0:
            weight = weight.permute(self.dim,
                                    *[d for d in range(weight.dim()) if d != self.dim])
        return weight.reshape(weight.shape[0], -1)

    def compute_weight(self, module, do_power_iteration):
        """``<name>_orig / sigma``, ``sigma = u . (W v)``; ``u`` and ``v`` updated in place
        first with ``do_power_iteration``, then copied (a later forward must not change what
        this one's backward saved)."""
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        matrix = self.reshape_weight_to_matrix(weight)
        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v.copy_(normalize(mv(matrix.t(), u), dim=0, eps=self.eps))
                    u.copy_(normalize(mv(matrix, v), dim=0, eps=self.eps))
                u, v = u.clone(), v.clone()
        sigma = dot(u, mv(matrix, v))
        return weight / sigma

    def remove(self, module):
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name,
                self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, matrix, u, target_sigma):
        """A ``v`` with ``u . (W v) = target_sigma``: the least-squares solution of
        ``W v = u``, rescaled."""
        v = multi_dot([matrix.t().mm(matrix).pinverse(), matrix.t(), u.unsqueeze(1)])
        v = v.squeeze(1)
        return v.mul_(target_sigma / dot(u, mv(matrix, v)))

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError("Cannot register two spectral_norm hooks on the same "
                                   f"parameter {name}")
        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if is_lazy(weight):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized "
                             "parameters. Make sure to run the dummy forward before applying "
                             "spectral normalization")
        with no_grad():
            matrix = fn.reshape_weight_to_matrix(weight)
            rows, cols = matrix.shape
            u = normalize(weight.new_empty(rows).normal_(0, 1), dim=0, eps=fn.eps)
            v = normalize(weight.new_empty(cols).normal_(0, 1), dim=0, eps=fn.eps)
        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)
        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Loads a state dict saved before the format's version 1 (``<name>``, ``<name>_orig``
    and ``<name>_u``, no ``<name>_v``): ``v`` is solved for from the saved ``sigma``."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys,
                 unexpected_keys, error_msgs):
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        key = prefix + fn.name
        if (version is None and key not in state_dict
                and all(key + suffix in state_dict for suffix in ("_orig", "_u", "_v"))):
            return
        missing = [key + suffix for suffix in ("_orig", "", "_u")
                   if key + suffix not in state_dict]
        if missing:
            if strict:
                missing_keys.extend(missing)
            return
        with no_grad():
            weight_orig = state_dict[key + "_orig"]
            weight = state_dict.pop(key)
            sigma = (weight_orig / weight).mean()
            matrix = fn.reshape_weight_to_matrix(weight_orig)
            u = state_dict[key + "_u"]
            state_dict[key + "_v"] = fn._solve_v_and_rescale(matrix, u, sigma)


class SpectralNormStateDictHook:
    """Records the format's version in the state dict's metadata."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = self.fn._version


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Divide ``module.<name>`` by its spectral norm, estimated by power iteration before
    every forward (``n_power_iterations`` steps in training mode, none in eval). ``dim``
    defaults to 1 for the transposed convolutions, else 0."""
    if dim is None:
        from autograd_cy.nn.utils.parametrizations import _is_conv_transpose
        dim = 1 if _is_conv_transpose(module) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo ``spectral_norm``: ``<name>`` is a Parameter of its normalized value again."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")
    for table, kind in ((module._state_dict_hooks, SpectralNormStateDictHook),
                        (module._load_state_dict_pre_hooks, SpectralNormLoadStateDictPreHook)):
        for key, hook in table.items():
            hook = getattr(hook, "hook", hook)      # a load pre-hook sits in a _WrappedHook
            if isinstance(hook, kind) and hook.fn.name == name:
                del table[key]
                break
    return module
