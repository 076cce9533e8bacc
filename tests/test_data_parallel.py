"""``nn.DataParallel`` and ``nn.parallel.data_parallel`` against torch: without CUDA a
pass-through (torch's on a machine without a GPU); on two emulated CUDA devices the batch
cut in two, a replica per device, the outputs joined on the first device, the gradients
summed into the module, and only the first replica's BatchNorm statistics kept. torch here
has no GPU, so its side of the two-device cases is the module run on each half of the
batch, which is what its DataParallel computes."""
import json
import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

MODEL = textwrap.dedent("""
    def make_model(lib):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.BatchNorm1d(8), lib.nn.ReLU(),
                                  lib.nn.Linear(8, 3)).double()
        with lib.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(lib.linspace(-1, 1, p.numel(), dtype=lib.float64).reshape(p.shape)
                        * (i + 1) / 3)
        return model, lib.linspace(-2, 2, 20, dtype=lib.float64).reshape(5, 4)
    """)


def run_with_devices(devices, body):
    """Run ``body`` (which prints one JSON line) under AUTOGRAD_CY_CUDA=``devices``."""
    script = "import json, warnings\nimport autograd_cy as lib\n" + MODEL + textwrap.dedent(body)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, "AUTOGRAD_CY_CUDA": devices}, timeout=300,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def make_model(lib):
    namespace = {}
    exec(MODEL, namespace)
    return namespace["make_model"](lib)


def test_without_cuda_it_calls_the_module():
    ours = run_with_devices("off", """
        model, x = make_model(lib)
        net = lib.nn.DataParallel(model)
        out = net(x)
        out.sum().backward()
        print(json.dumps([repr(net), net.device_ids, list(net.state_dict()), out.tolist(),
                          model[0].weight.grad.tolist()]))
        """)
    model, x = make_model(torch)
    net = torch.nn.DataParallel(model)
    out = net(x)
    out.sum().backward()
    theirs = [repr(net), net.device_ids, list(net.state_dict()), out.tolist(),
              model[0].weight.grad.tolist()]
    assert ours[:3] == theirs[:3]
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-12)
    np.testing.assert_allclose(ours[4], theirs[4], rtol=1e-7, atol=1e-12)


def test_two_devices_split_the_batch_and_sum_the_gradients():
    ours = run_with_devices("emulate:2", """
        model, x = make_model(lib)
        net = lib.nn.DataParallel(model.to("cuda:0"))
        out = net(x)
        (out ** 2).sum().backward()
        print(json.dumps([net.device_ids, net.output_device, str(out.device),
                          out.cpu().tolist(),
                          [p.grad.cpu().tolist() for p in model.parameters()],
                          model[1].running_mean.cpu().tolist(),
                          int(model[1].num_batches_tracked)]))
        """)
    model, x = make_model(torch)
    first, second = x.chunk(2)
    out = torch.cat([model(first), model(second)])
    (out ** 2).sum().backward()
    model, _ = make_model(torch)
    model(first)                    # the statistics DataParallel keeps: replica 0's
    assert ours[:3] == [[0, 1], 0, "cuda:0"]
    np.testing.assert_allclose(ours[3], out.tolist(), rtol=1e-12)
    grads = [p.grad.tolist() for p in make_model_grads(torch)]
    for our_grad, their_grad in zip(ours[4], grads):
        np.testing.assert_allclose(our_grad, their_grad, rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(ours[5], model[1].running_mean.tolist(), rtol=1e-12)
    assert ours[6] == 1


def make_model_grads(lib):
    model, x = make_model(lib)
    out = lib.cat([model(part) for part in x.chunk(2)])
    (out ** 2).sum().backward()
    return list(model.parameters())


def test_two_devices_scalars_nested_outputs_and_errors():
    ours = run_with_devices("emulate:2", """
        class Pair(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = lib.nn.Parameter(lib.tensor(2.0, dtype=lib.float64))

            def forward(self, x, shift=None):
                return {"sum": (x * self.scale).sum(), "rows": (x * self.scale + shift, None)}

        x = lib.arange(12.0, dtype=lib.float64).reshape(6, 2)
        module = Pair().to("cuda:0")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = lib.nn.DataParallel(module)(x, shift=lib.ones(6, 2, dtype=lib.float64))
        out["sum"].sum().backward()
        single = lib.nn.parallel.data_parallel(lib.nn.Linear(2, 1).double().to("cuda:1"),
                                               x, device_ids=[1], output_device=1)
        try:
            lib.nn.DataParallel(lib.nn.Linear(2, 1), device_ids=[0, 1])(x)
            error = None
        except RuntimeError as e:
            error = str(e)
        print(json.dumps([out["sum"].tolist(), out["rows"][0].cpu().tolist(),
                          out["rows"][1], [str(w.message) for w in caught],
                          module.scale.grad.item(), str(single.device), list(single.shape),
                          error]))
        """)
    x = torch.arange(12.0, dtype=torch.float64).reshape(6, 2)
    halves = x.chunk(2)
    assert ours[0] == [float((h * 2).sum()) for h in halves]
    np.testing.assert_allclose(ours[1], (x * 2 + 1).tolist())
    assert ours[2] is None
    assert ours[3] == ["Was asked to gather along dimension 0, but all input tensors were "
                       "scalars; will instead unsqueeze and return a vector."]
    assert ours[4] == float(x.sum())
    assert ours[5:7] == ["cuda:1", [6, 1]]
    assert ours[7] == ("module must have its parameters and buffers on device cuda:0 "
                       "(device_ids[0]) but found one of them on device: cpu")


def test_one_emulated_device_moves_the_module_and_matches_torch():
    import autograd_cy as ag
    model, x = make_model(ag)
    net = ag.nn.DataParallel(model)         # the test session emulates one device
    out = net(x)
    (out ** 2).sum().backward()
    their_model, their_x = make_model(torch)
    theirs = their_model(their_x)
    (theirs ** 2).sum().backward()
    assert net.device_ids == [0] and str(out.device) == "cuda:0"
    assert str(model[0].weight.device) == "cuda:0"
    np.testing.assert_allclose(out.cpu().tolist(), theirs.tolist(), rtol=1e-12)
    np.testing.assert_allclose(model[0].weight.grad.cpu().tolist(),
                               their_model[0].weight.grad.tolist(), rtol=1e-7, atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error")      # nothing to warn about with one device
        net(x)
