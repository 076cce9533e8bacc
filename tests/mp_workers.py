"""Functions that tests/test_multiprocessing.py runs in child processes: a module of its own
that imports no torch, so that a spawned child starts in about a second."""
import importlib


def train_steps(lib_name, model, steps):
    """SGD steps on ``model`` (shared with the parent) in the child."""
    lib = importlib.import_module(lib_name)
    optimizer = lib.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        optimizer.zero_grad()
        model(lib.ones(1, 2)).sum().backward()
        optimizer.step()


def add_one(queue, done):
    tensor = queue.get()
    tensor.add_(1)
    done.put(tensor.is_shared())


def fail(i, message):
    if i == 1:
        raise ValueError(message)
