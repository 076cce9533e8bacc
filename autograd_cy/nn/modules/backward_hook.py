"""Module backward hooks, built on the engine's node hooks as torch builds them.

NOTE [Module backward hooks]
A module is not a node of the graph, so "the gradient of the module's inputs" has no single
place in the engine. torch makes one: the module's tensor arguments pass through an identity
Function (``BackwardHookFunction``) on the way in, and its tensor outputs pass through another
on the way out. Their nodes (``BackwardHookFunctionBackward``) bracket everything the module
recorded, so

* the output node's post hook sees the gradients of the module's outputs: it runs the
  ``register_full_backward_pre_hook`` hooks (which may replace them) and keeps them;
* the input node's post hook sees the gradients of the module's inputs: it runs the
  ``register_full_backward_hook`` hooks with those and the kept output gradients (they may
  replace the input gradients), and forgets the output gradients.

Positions that are not tensors (or tensors outside autograd) get None in the tuples the hooks
see. When no input requires grad, the input node does not exist, and the output node's hook
calls the full hooks itself with all-None input gradients, with torch's warning.
"""
import warnings

from autograd_cy._C.tensor import Tensor
from autograd_cy.autograd.function import Function
from autograd_cy.grad_mode import is_grad_enabled


class BackwardHookFunction(Function):
    """The identity on a module's tensor arguments or outputs: a node to hook."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads


def _with_nones(indices, values, size):
    """``values`` at ``indices`` of a tuple of ``size``, None elsewhere."""
    packed = [None] * size
    for index, value in zip(indices, values):
        packed[index] = value
    return tuple(packed)


class BackwardHook:
    """The backward hooks of one call of ``module`` (NOTE [Module backward hooks])."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = -1
        self.input_tensors_index = self.output_tensors_index = None

    def _through_identity(self, args, hook_node):
        """``args`` with its tensors passed through BackwardHookFunction, whose node is given
        to ``hook_node``; the positions of those tensors. Unchanged (and None) when no
        tensor requires grad or grad mode is off."""
        indices = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
        tensors = [args[i] for i in indices]
        if not (is_grad_enabled() and any(t.requires_grad for t in tensors)):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        nodes = [t.grad_fn for t in new_tensors if t.grad_fn is not None
                 and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        hook_node(nodes[0])
        replaced = list(args)
        for index, tensor in zip(indices, new_tensors):
            replaced[index] = tensor
        return (tuple(replaced) if type(args) is tuple else type(args)(*replaced)), indices

    # ------------------------------------------------------------------ inputs

    def setup_input_hook(self, args):
        """Hook the node of the module's inputs: it calls the full backward hooks."""
        result, self.input_tensors_index = self._through_identity(args, self._hook_inputs)
        self.n_inputs = len(args)
        return result

    def _hook_inputs(self, node):
        def hook(grad_inputs, _):
            if self.grad_outputs is None:
                # the gradient reached the inputs without passing through the outputs
                # (double backward): torch calls no hook
                return None
            grads = _with_nones(self.input_tensors_index, grad_inputs, self.n_inputs)
            for user_hook in self.user_hooks:
                result = user_hook(self.module, grads, self.grad_outputs)
                if result is None:
                    continue
                if len(result) != len(grads):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, "
                                       f"got {len(result)}, but expected {len(grads)}")
                grads = result
            self.grad_outputs = None
            return tuple(grads[i] for i in self.input_tensors_index)
        node.register_hook(hook)

    # ------------------------------------------------------------------ outputs

    def setup_output_hook(self, outputs):
        """Hook the node of the module's outputs: it calls the backward pre-hooks and keeps
        the output gradients for the input node's hook."""
        single = not isinstance(outputs, tuple)
        args = (outputs,) if single else outputs
        result, self.output_tensors_index = self._through_identity(args, self._hook_outputs)
        self.n_outputs = len(args)
        return result[0] if single else result

    def _hook_outputs(self, node):
        def hook(_, grad_outputs):
            self.grad_outputs = _with_nones(self.output_tensors_index, grad_outputs,
                                            self.n_outputs)
            for user_pre_hook in self.user_pre_hooks:
                result = user_pre_hook(self.module, self.grad_outputs)
                if result is None:
                    continue
                if len(result) != len(self.grad_outputs):
                    raise RuntimeError(
                        "Backward pre hook returned an invalid number of grad_output, got "
                        f"{len(result)}, but expected {len(self.grad_outputs)}")
                self.grad_outputs = result
            kept = self.grad_outputs
            if self.input_tensors_index is None:
                self._call_hooks_without_inputs()
            return tuple(kept[i] for i in self.output_tensors_index)
        node.register_hook(hook)

    def _call_hooks_without_inputs(self):
        warnings.warn("Full backward hook is firing when gradients are computed with respect "
                      "to module outputs since no inputs require gradients. See "
                      "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                      "#torch.nn.Module.register_full_backward_hook for more details.",
                      stacklevel=5)
        grads = (None,) * self.n_inputs
        for user_hook in self.user_hooks:
            result = user_hook(self.module, grads, self.grad_outputs)
            if result is not None and not (isinstance(result, tuple)
                                           and all(g is None for g in result)):
                raise RuntimeError("Backward hook for Modules where no input requires gradient "
                                   "should always return None or None for all gradients.")
        self.grad_outputs = None
