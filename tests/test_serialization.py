"""ag.save/ag.load: round trips of every dtype, of module and optimizer state dicts and of
nested containers; the format NumPy reads; weights_only's refusal in torch's words;
map_location; and a state dict saved by torch, loaded through NumPy."""
import io
import json
import os
import pickle
import re
from collections import OrderedDict

import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_close, assert_same_error, both

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DTYPES = ["float16", "bfloat16", "float32", "float64", "complex64", "complex128", "int8",
          "int16", "int32", "int64", "uint8", "bool"]


def round_trip(obj, lib=ag, **load_options):
    buffer = io.BytesIO()
    lib.save(obj, buffer)
    buffer.seek(0)
    return lib.load(buffer, **load_options)


def described(value):
    """Loaded data as plain values that keep the types apart (tuple, list, set, Size, bytes,
    OrderedDict, dtype, device), library names left out."""
    kind = type(value).__name__
    if isinstance(value, (ag.Tensor, torch.Tensor)):
        return ("tensor", kind, str(value.dtype).split(".")[-1], value.tolist(),
                value.requires_grad, value.is_leaf)
    if isinstance(value, dict):
        return (kind, [(described(k), described(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (kind, [described(v) for v in value])
    if isinstance(value, set):
        return (kind, sorted(described(v) for v in value))
    if isinstance(value, (ag.dtype, torch.dtype)):
        return ("dtype", str(value).split(".")[-1])
    if isinstance(value, float) and value != value:
        return "nan"
    return (kind, str(value))


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


def skeleton(value):
    """``described`` with each tensor as its type, dtype and shape only."""
    if isinstance(value, (ag.Tensor, torch.Tensor)):
        return ("tensor", str(value.dtype).split(".")[-1], list(value.shape))
    if isinstance(value, dict):
        return (type(value).__name__, [(k, skeleton(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [skeleton(v) for v in value])
    return described(value)


def test_saved_states_load_as_torchs_do():
    """A model's and an Adam's state dicts, saved and loaded by each library: the same
    containers, keys, scalars and tensor dtypes and shapes."""
    def run(lib):
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4))
        optimizer = lib.optim.Adam(model.parameters(), lr=0.01, betas=(0.8, 0.9),
                                   amsgrad=True)
        model(lib.ones(2, 3)).sum().backward()
        optimizer.step()
        return skeleton(round_trip({"model": model.state_dict(),
                                    "optimizer": optimizer.state_dict()}, lib))
    ours, theirs = both(run)
    assert ours == theirs


def test_leaves_parameters_and_shared_tensors():
    weight = ag.nn.Parameter(ag.ones(2, 2))
    grad_leaf = ag.zeros(3, requires_grad=True)
    back = round_trip({"w": weight, "tied": weight, "g": grad_leaf, "view": ag.arange(6)[2:4]})
    assert isinstance(back["w"], ag.nn.Parameter) and back["w"].requires_grad
    assert back["tied"] is back["w"]
    assert back["g"].requires_grad and back["g"].is_leaf
    assert back["view"].tolist() == [2, 3]


def test_what_torchs_weights_only_load_accepts_round_trips():
    """The plain data torch.load(weights_only=True) accepts comes back with its types."""
    def run(lib):
        x = lib.ones(2, requires_grad=True)
        return described(round_trip(OrderedDict([
            ("tuple key", {(1, "a"): 1, 2.5: "f", None: True, 3: [1 + 2j, float("-inf")]}),
            ("bytes", [b"xy", bytearray(b"z")]), ("set", {1, 2}),
            ("size", lib.Size([2, 3])), ("dtype", lib.bfloat16), ("device", lib.device("cpu")),
            ("not a leaf", x * 2), ("view", x[1:]),
            ("frozen", lib.nn.Parameter(lib.ones(1), requires_grad=False)),
            ("nan", float("nan")), ("nested", (OrderedDict(a=[]), ()))]), lib))
    ours, theirs = both(run)
    assert ours == theirs


@pytest.mark.parametrize("make", [lambda: frozenset([1]), lambda: slice(1, 2), lambda: range(3)])
def test_what_torchs_weights_only_load_refuses_is_refused(make):
    ours, theirs = assert_same_error(lambda lib: round_trip({"x": make()}, lib),
                                     pickle.UnpicklingError, "^Weights only load failed",
                                     "weights_only` set to `False`",
                                     "Unsupported global: GLOBAL ")
    assert type(make()).__name__ in ours
    assert type(round_trip(make(), weights_only=False)) is type(make())


def test_weights_only_unset_and_pickle_module_as_torch():
    """Unset means True; a pickle_module turns it off; both together are an error."""
    def run(lib, **options):
        return round_trip({"x": range(2)}, lib, **options)["x"]
    assert run(ag, weights_only=None, pickle_module=pickle) == run(torch, pickle_module=pickle)
    assert_same_error(lambda lib: run(lib, weights_only=None), pickle.UnpicklingError,
                      "Weights only load failed")
    assert_same_error(lambda lib: run(lib, weights_only=True, pickle_module=pickle), exact=True)


def test_the_documented_example_is_what_save_writes():
    """docs/serialization.md's structure of a Linear's state dict is the file's."""
    with open(os.path.join(ROOT, "docs", "serialization.md")) as handle:
        documented = re.search(r"```json\n(.*?)```", handle.read(), re.S).group(1)
    buffer = io.BytesIO()
    ag.save(ag.nn.Linear(2, 1, device="cpu").state_dict(), buffer)
    buffer.seek(0)
    import zipfile
    with zipfile.ZipFile(buffer) as archive:
        assert json.loads(archive.read("structure.json")) == json.loads(documented)
        assert sorted(archive.namelist()) == ["structure.json", "t0.npy", "t1.npy"]


def test_numpy_reads_the_file(tmp_path):
    path = str(tmp_path / "a.pt")               # a str path, as well as os.PathLike
    ag.save({"a": ag.arange(4.0)}, path)
    archive = np.load(path)
    assert archive["t0"].tolist() == [0.0, 1.0, 2.0, 3.0]
    assert ag.load(path)["a"].tolist() == [0.0, 1.0, 2.0, 3.0]


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
    back = round_trip(saved, map_location=lambda tensor, location: None)
    assert back["a"].is_cuda and not back["b"].is_cuda      # None: where it was saved
    back = round_trip(saved, map_location=ag.device("cuda:0"))
    assert back["a"].is_cuda and back["b"].is_cuda
    back = round_trip(saved, map_location="cuda")
    assert str(back["b"].device) == "cuda:0"
    back = round_trip(saved, map_location={"cuda:0": "cpu"})
    assert not back["a"].is_cuda and not back["b"].is_cuda


@pytest.mark.cpu_only         # NumPy arrays are host memory
def test_from_numpy_shares_memory_and_numpy_round_trips():
    def run(lib):
        array = np.arange(4.0)
        tensor = lib.from_numpy(array)
        array[0] = 9.0
        tensor[1] = 7.0
        shared = tensor.numpy()                 # numpy() shares memory too
        shared[2] = 5.0
        copied = lib.tensor(array)              # tensor() copies
        copied[3] = -1.0
        ints = lib.from_numpy(np.arange(3, dtype=np.int16))
        return (tensor.tolist(), array.tolist(), copied.numpy().tolist(),
                np.shares_memory(shared, array), str(ints.dtype).split(".")[-1],
                ints.numpy().dtype.name, lib.from_numpy(copied.numpy()).tolist())
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


@pytest.mark.cpu_only      # CUDA tensors are stored one by one
def test_views_share_memory_after_load():
    """A tensor and its views (the save/load tutorial saves a dict of a tensor and a row of
    it) come back sharing one memory, as torch keeps one storage for them; others do not."""
    def run(lib):
        t = lib.arange(10.0).reshape(2, 5)
        buffer = io.BytesIO()
        lib.save({"t": t, "row": t[1], "column": t[:, 2], "copy": t.clone(), "again": t},
                 buffer)
        buffer.seek(0)
        r = lib.load(buffer)
        pointer = r["t"].untyped_storage().data_ptr()
        shares = [r[k].untyped_storage().data_ptr() == pointer for k in ("row", "column", "copy")]
        r["row"].add_(100)
        return (shares, r["again"] is r["t"], r["t"].tolist(), r["column"].tolist(),
                r["column"].stride(), r["column"].storage_offset(), r["row"]._is_view())
    ours, theirs = both(run)
    assert ours == theirs
    assert ours[0] == [True, True, False]
