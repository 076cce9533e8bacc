"""Activation checkpointing workloads: the ``chain`` under ``checkpoint_sequential``.

Issue 12's target: the checkpointed chain costs at most 2.2x the plain ``chain`` in time
(each segment but the last runs its forward twice; timed beside ``chain`` in every round, as
its ``baseline``), while the bytes it keeps for backward
fall as the segment count says. ``report()`` prints those bytes, measured with
saved_tensors_hooks on both libraries, after the timing table.
"""
import numpy as np

from benchmarks.workloads import Chain, constant, library


class CheckpointedChain(Chain):
    """``chain``'s 200 layers of ``tanh(y*c+d)`` in ``segments`` checkpointed segments."""

    def __init__(self, segments=10, use_reentrant=False, layers=200, size=16):
        variant = "reentrant" if use_reentrant else "non-reentrant"
        super().__init__(layers=layers, size=size,
                         name="chain_ckpt" + ("_reentrant" if use_reentrant else ""))
        self.segments, self.use_reentrant = segments, use_reentrant
        self.baseline, self.target = Chain(layers=layers, size=size), 2.2
        self.description = (f"chain under checkpoint_sequential, {segments} segments, "
                            f"{variant}, forward + backward")

    def functions(self, impl):
        c, d = constant(impl, self.c), constant(impl, self.d)
        return [lambda y: (y * c + d).tanh()] * self.layers

    def build(self, impl):
        if impl == "numpy":
            return self._numpy_checkpointed_iteration()
        checkpoint = _checkpoint_module(impl)
        x = constant(impl, self.x, requires_grad=True)
        functions, segments, use_reentrant = self.functions(impl), self.segments, \
            self.use_reentrant

        def iteration():
            y = checkpoint.checkpoint_sequential(functions, segments, x,
                                                 use_reentrant=use_reentrant)
            y.sum().backward()
            x.grad = None
        return iteration

    def _numpy_checkpointed_iteration(self):
        """By hand: keep each segment's input; in backward, rerun the segment's forward
        and then its backward (the last segment keeps its outputs, as checkpoint_sequential
        does not checkpoint it)."""
        x, c, d, layers = self.x, self.c, self.d, self.layers
        size = layers // self.segments
        bounds = [(start, start + size) for start in range(0, size * (self.segments - 1), size)]
        bounds.append((bounds[-1][1] if bounds else 0, layers))

        def run_segment(y, start, end):
            outputs = []
            for _ in range(start, end):
                y = np.tanh(y * c + d)
                outputs.append(y)
            return outputs

        def iteration():
            inputs, y = [], x
            for start, end in bounds[:-1]:
                inputs.append(y)
                y = run_segment(y, start, end)[-1]
            last_outputs = run_segment(y, *bounds[-1])
            grad = np.ones_like(last_outputs[-1])
            for outputs in [last_outputs] + [run_segment(inputs[i], *bounds[i])
                                             for i in reversed(range(len(inputs)))]:
                for y in reversed(outputs):
                    grad = grad * (1 - y * y) * c
            return grad
        return iteration

    def saved_bytes(self, impl, segments):
        """Bytes of the distinct storages kept for backward by one forward (0 segments:
        not checkpointed)."""
        lib = library(impl)
        storages = {}

        def pack(t):
            key = t.data_ptr() if impl == "autograd_cy" else t.untyped_storage().data_ptr()
            storages[key] = t.numel() * t.element_size()
            return t
        x = constant(impl, self.x, requires_grad=True)
        functions = self.functions(impl)
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            if segments:
                _checkpoint_module(impl).checkpoint_sequential(
                    functions, segments, x, use_reentrant=self.use_reentrant)
            else:
                y = x
                for function in functions:
                    y = function(y)
        return sum(storages.values())

    def report(self):
        """Saved bytes against segment count, both libraries, as a markdown table."""
        counts = (0, 2, 5, 10, 14, 20, 50)
        rows = ["| segments | autograd_cy bytes | torch bytes |", "|---|---|---|"]
        for segments in counts:
            rows.append(f"| {segments or 'none'} | {self.saved_bytes('autograd_cy', segments)} "
                        f"| {self.saved_bytes('torch', segments)} |")
        return (f"\n{self.name}: bytes kept for backward by one forward of the "
                f"{self.layers}-layer chain ({self.size} float32)\n" + "\n".join(rows))


def _checkpoint_module(impl):
    if impl == "torch":
        import torch.utils.checkpoint
        return torch.utils.checkpoint
    import autograd_cy.utils.checkpoint
    return autograd_cy.utils.checkpoint


def checkpoint_workloads():
    return [CheckpointedChain(), CheckpointedChain(use_reentrant=True)]
