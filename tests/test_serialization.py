"""ag.save/ag.load: round trips of every dtype, of module and optimizer state dicts and of
nested containers; the format NumPy reads; weights_only's refusal in torch's words;
map_location; and a state dict saved by torch, loaded through NumPy."""
import io
import pickle
from collections import OrderedDict

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_close

DTYPES = ["float16", "bfloat16", "float32", "float64", "complex64", "complex128", "int8",
          "int16", "int32", "int64", "uint8", "bool"]


def round_trip(obj, **load_options):
    buffer = io.BytesIO()
    ag.save(obj, buffer)
    buffer.seek(0)
    return ag.load(buffer, **load_options)


@pytest.mark.parametrize("dtype", DTYPES)
def test_every_dtype_round_trips(dtype):
    values = ag.tensor(np.arange(-3, 3).reshape(2, 3)).to(getattr(ag, dtype))
    back = round_trip({"t": values, "scalar": values[0, 0]})
    assert back["t"].dtype == values.dtype and back["t"].equal(values)
    assert tuple(back["scalar"].shape) == ()


def test_module_and_optimizer_state_round_trip(tmp_path):
    model = ag.nn.Sequential(ag.nn.Linear(3, 4), ag.nn.BatchNorm1d(4), ag.nn.Linear(4, 1))
    optimizer = ag.optim.Adam(model.parameters(), lr=0.01)
    model(ag.randn(5, 3)).sum().backward()
    optimizer.step()
    path = tmp_path / "checkpoint.pt"
    ag.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "epoch": 3,
             "losses": [0.5, float("nan")], "shape": (2, None)}, path)
    back = ag.load(path)
    assert list(back["model"]) == list(model.state_dict())
    assert back["epoch"] == 3 and np.isnan(back["losses"][1]) and back["shape"] == (2, None)
    fresh = ag.nn.Sequential(ag.nn.Linear(3, 4), ag.nn.BatchNorm1d(4), ag.nn.Linear(4, 1))
    fresh.load_state_dict(back["model"])
    for a, b in zip(fresh.state_dict().values(), model.state_dict().values()):
        assert a.equal(b)
    resumed = ag.optim.Adam(fresh.parameters(), lr=0.01)
    resumed.load_state_dict(back["optimizer"])
    assert resumed.state_dict()["state"][0]["step"].item() == 1.0
    assert type(back["model"]) is OrderedDict


def test_leaves_parameters_and_shared_tensors():
    weight = ag.nn.Parameter(ag.ones(2, 2))
    grad_leaf = ag.zeros(3, requires_grad=True)
    back = round_trip({"w": weight, "tied": weight, "g": grad_leaf, "view": ag.arange(6)[2:4]})
    assert isinstance(back["w"], ag.nn.Parameter) and back["w"].requires_grad
    assert back["tied"] is back["w"]
    assert back["g"].requires_grad and back["g"].is_leaf
    assert back["view"].tolist() == [2, 3]


def test_numpy_reads_the_file():
    buffer = io.BytesIO()
    ag.save({"a": ag.arange(4.0)}, buffer)
    buffer.seek(0)
    archive = np.load(buffer)
    assert archive["t0"].tolist() == [0.0, 1.0, 2.0, 3.0]


def test_pickled_objects_are_refused_unless_asked_for():
    model = ag.nn.Linear(2, 2)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed") as ours:
        round_trip(model)
    buffer = io.BytesIO()
    torch.save(torch.nn.Linear(2, 2), buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        torch.load(buffer)
    assert "Unsupported global: GLOBAL autograd_cy.nn.modules.linear.Linear" in str(ours.value)
    loaded = round_trip(model, weights_only=False)
    assert type(loaded) is ag.nn.Linear and loaded.weight.equal(model.weight)


@pytest.mark.cpu_only         # CPU tensors stay on the CPU by default (the device run moves them)
@pytest.mark.skipif(not ag.cuda.is_available(), reason="needs a (possibly emulated) device")
def test_map_location():
    saved = {"a": ag.ones(2, device="cuda"), "b": ag.zeros(1)}
    back = round_trip(saved, map_location="cpu")
    assert not back["a"].is_cuda
    back = round_trip(saved)
    assert back["a"].is_cuda and not back["b"].is_cuda
    back = round_trip(saved, map_location={"cpu": "cuda:0"})
    assert back["b"].is_cuda
    back = round_trip(saved, map_location=lambda tensor, location: tensor)
    assert not back["a"].is_cuda


@pytest.mark.cpu_only         # NumPy arrays are host memory
def test_from_numpy_shares_memory_and_numpy_round_trips():
    def run(lib):
        array = np.arange(4.0)
        tensor = lib.from_numpy(array)
        array[0] = 9.0
        tensor[1] = 7.0
        return tensor.tolist(), array.tolist(), lib.tensor(array).numpy().tolist()
    assert run(ag) == run(torch)


@pytest.mark.cpu_only
def test_a_torch_state_dict_through_numpy(tmp_path):
    """README's recipe: torch saves its state dict with NumPy, autograd_cy loads it."""
    torch_model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(),
                                      torch.nn.Linear(4, 2))
    path = tmp_path / "weights.npz"
    np.savez(path, **{k: v.numpy() for k, v in torch_model.state_dict().items()})
    model = ag.nn.Sequential(ag.nn.Linear(3, 4), ag.nn.ReLU(), ag.nn.Linear(4, 2))
    model.load_state_dict({k: ag.from_numpy(v) for k, v in np.load(path).items()})
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    assert_close(model(ag.tensor(x)), torch_model(torch.tensor(x)))
