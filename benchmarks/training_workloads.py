"""Training steps: ``nn`` modules, a loss, ``backward()`` and an ``optim`` step, the way a
training script runs them, against the same script on torch.

- ``train_mlp``: a 784-256-256-10 ReLU ``nn.Sequential`` with cross-entropy and Adam, batch 64;
  its NumPy floor is the same step by hand (forward, backward and Adam's update).
- ``train_cnn``, ``train_transformer``: the training steps of ``examples/cnn_digits.py`` (two
  convolutions and poolings on 8x8 images, batch 64, Adam) and ``examples/char_transformer.py``
  (2 layers, context 32, batch 16, AdamW), built by the examples' own ``build_model``. Nobody
  writes a convolution's or an attention's backward by hand for a floor, so they have none.
- ``--script my_step.py`` (``ScriptWorkload``): a step of the user's, written against torch's
  names, under both libraries.

Each step is three phases, timed separately too (``split_report``): the forward and the loss,
``zero_grad`` and ``backward()``, and ``optimizer.step()``.
"""
import importlib.util
import os
import statistics
import time

import numpy as np

from benchmarks import workloads
from benchmarks.console import format_time
from benchmarks.workloads import Workload, library

EXAMPLES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "examples")


def load_script(path, name=None):
    """The Python file at ``path`` as a module (the examples import each other by name, so
    their folder goes on ``sys.path``)."""
    import sys
    folder = os.path.dirname(os.path.abspath(path))
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(name or os.path.basename(path)[:-3], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _phases_as_step(phases):
    """One iteration: forward, backward, optimizer step."""
    forward, backward, optimize = phases

    def step():
        backward(forward())
        optimize()
    return step


class TrainingStep(Workload):
    """A training step built by ``setup(lib)``, which returns the three phases."""

    floor = False

    def __init__(self, name, description, setup, nodes, numpy_step=None):
        self.name, self.description, self.nodes = name, description, nodes
        self.setup = setup
        self.numpy_step = numpy_step
        self.floor = numpy_step is not None

    def phases(self, impl):
        return self.setup(library(impl))

    def build(self, impl):
        if impl == "numpy":
            return self.numpy_step() if self.numpy_step else None
        return _phases_as_step(self.phases(impl))


def _optimizing(lib, model, loss_of, optimizer):
    """The three phases of a step of ``model`` whose loss is ``loss_of(model)``."""
    def forward():
        return loss_of(model)

    def backward(loss):
        optimizer.zero_grad()
        loss.backward()
    return forward, backward, optimizer.step


# ---------------------------------------------------------------- train_mlp

MLP_SIZES, MLP_BATCH, LR = (784, 256, 256, 10), 64, 1e-3


def _mlp_data():
    rng = np.random.default_rng(5)
    inputs = rng.standard_normal((MLP_BATCH, MLP_SIZES[0])).astype(np.float32)
    return inputs, rng.integers(0, MLP_SIZES[-1], MLP_BATCH)


def _mlp_setup(lib):
    nn = lib.nn
    lib.manual_seed(0)
    layers = []
    for n_in, n_out in zip(MLP_SIZES[:-1], MLP_SIZES[1:]):
        layers += [nn.Linear(n_in, n_out), nn.ReLU()]
    model = nn.Sequential(*layers[:-1]).to(workloads.DEVICE)
    x, y = (lib.tensor(a, device=workloads.DEVICE) for a in _mlp_data())
    loss_fn = nn.CrossEntropyLoss()
    return _optimizing(lib, model, lambda m: loss_fn(m(x), y),
                       lib.optim.Adam(model.parameters(), lr=LR))


def _mlp_numpy_step():
    """The step by hand: forward, cross-entropy, backward, and Adam as optim_adam_step's
    floor updates."""
    from benchmarks.optim_workloads import numpy_adam
    rng = np.random.default_rng(0)
    weights = [(rng.uniform(-1, 1, (n_in, n_out)) / np.sqrt(n_in)).astype(np.float32)
               for n_in, n_out in zip(MLP_SIZES[:-1], MLP_SIZES[1:])]
    biases = [np.zeros(n, np.float32) for n in MLP_SIZES[1:]]
    update = numpy_adam(weights + biases, LR)
    inputs, targets = _mlp_data()
    rows = np.arange(MLP_BATCH)

    def step():
        activations, h = [inputs], inputs
        for i, (w, b) in enumerate(zip(weights, biases)):
            h = h @ w + b
            if i < len(weights) - 1:
                np.maximum(h, 0, out=h)
                activations.append(h)
        shifted = h - h.max(axis=1, keepdims=True)
        probabilities = np.exp(shifted)
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        grad = probabilities
        grad[rows, targets] -= 1
        grad /= MLP_BATCH
        grads = [None] * (2 * len(weights))
        for i in range(len(weights) - 1, -1, -1):
            grads[i] = activations[i].T @ grad
            grads[len(weights) + i] = grad.sum(axis=0)
            if i > 0:
                grad = (grad @ weights[i].T) * (activations[i] > 0)
        update(grads)
    return step


# ---------------------------------------------------------------- the examples' steps

def _cnn_setup(lib):
    example = load_script(os.path.join(EXAMPLES, "cnn_digits.py"))
    lib.manual_seed(0)
    model = example.build_model(lib).to(workloads.DEVICE)
    rng = np.random.default_rng(6)
    x = lib.tensor(rng.random((64, 1, 8, 8)).astype(np.float32), device=workloads.DEVICE)
    y = lib.tensor(rng.integers(0, 10, 64), device=workloads.DEVICE)
    return _optimizing(lib, model, lambda m: lib.nn.functional.cross_entropy(m(x), y),
                       lib.optim.Adam(model.parameters(), lr=3e-3))


def _transformer_setup(lib):
    example = load_script(os.path.join(EXAMPLES, "char_transformer.py"))
    lib.manual_seed(0)
    data, alphabet = example.load_text(lib)
    model = example.build_model(lib, len(alphabet))
    x, y = example.batch(lib, data, 16)

    def loss_of(m):
        return lib.nn.functional.cross_entropy(m(x).reshape(-1, len(alphabet)),
                                               y.reshape(-1))
    return _optimizing(lib, model, loss_of,
                       lib.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01))


def training_workloads():
    return [
        TrainingStep("train_mlp", "Adam step of a 784-256-256-10 nn.Sequential, batch 64",
                     _mlp_setup, nodes=3 * 3 + 4, numpy_step=_mlp_numpy_step),
        TrainingStep("train_cnn", "Adam step of examples/cnn_digits.py's CNN, batch 64",
                     _cnn_setup, nodes=16),
        TrainingStep("train_transformer", "AdamW step of examples/char_transformer.py, "
                     "batch 16 x 32 characters", _transformer_setup, nodes=120),
    ]


# ---------------------------------------------------------------- --script

class ScriptWorkload(TrainingStep):
    """``python -m benchmarks --script my_step.py``: the script defines ``setup(torch)``,
    called once with each library as ``torch``, which returns either one callable (the step)
    or three: ``forward()`` returning the loss, ``backward(loss)`` and ``optimizer_step()``
    (then each phase is timed too)."""

    def __init__(self, path):
        self.script = load_script(path, "user_step")
        if not hasattr(self.script, "setup"):
            raise SystemExit(f"{path} defines no setup(torch): see benchmarks/README.md, "
                             "'Your own workload'")
        name = os.path.basename(path)[:-3]
        super().__init__(name, f"setup() of {path}", self.script.setup, nodes=1)

    def phases(self, impl):
        made = self.setup(library(impl))
        return made if isinstance(made, tuple) else None

    def build(self, impl):
        if impl == "numpy":
            return None
        made = self.setup(library(impl))
        return _phases_as_step(made) if isinstance(made, tuple) else made


# ---------------------------------------------------------------- the split

def split_report(workloads, rounds):
    """The median time of each phase per library, for the workloads made of phases."""
    lines = []
    for workload in workloads:
        if not hasattr(workload, "phases"):
            continue
        medians = {}
        for impl in ("autograd_cy", "torch"):
            phases = workload.phases(impl)
            if phases is None:
                break
            forward, backward, optimize = phases
            times = {"forward": [], "backward": [], "optimizer": []}
            for _ in range(rounds + 1):            # the first iteration warms up
                start = time.perf_counter()
                loss = forward()
                middle = time.perf_counter()
                backward(loss)
                after_backward = time.perf_counter()
                optimize()
                end = time.perf_counter()
                for key, seconds in zip(times, (middle - start, after_backward - middle,
                                                end - after_backward)):
                    times[key].append(seconds)
            medians[impl] = {k: statistics.median(v[1:]) for k, v in times.items()}
        if len(medians) < 2:
            continue
        if not lines:
            lines = ["", "", "Where a training step's time goes (medians of "
                     f"{rounds} steps, each phase timed on its own):", "",
                     "| workload | phase | autograd_cy | torch | vs torch |",
                     "|---|---|---|---|---|"]
        for phase in ("forward", "backward", "optimizer"):
            ours, theirs = medians["autograd_cy"][phase], medians["torch"][phase]
            lines.append(f"| {workload.name} | {phase} | {format_time(ours)} | "
                         f"{format_time(theirs)} | {ours / theirs:.2f}x |")
    return "\n".join(lines) + ("\n" if lines else "")
