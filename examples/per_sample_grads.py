"""Per-example gradients of a small MLP with ``func.vmap(func.grad(loss))``, written against
torch's names (as the torch.func tutorial computes them), checked against one backward per
example.

    python examples/per_sample_grads.py               # with autograd_cy (imported as torch)
    python examples/per_sample_grads.py --lib torch   # the same script on PyTorch
"""
import argparse
import importlib

from mlp_digits import load_digits


def build_model(torch):
    nn = torch.nn
    return nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 10))


def per_sample_grads(torch, model, images, labels):
    """``{name: (batch, *param.shape)}``: the gradient of each example's loss."""
    func = torch.func
    params = {name: p.detach() for name, p in model.named_parameters()}

    def loss_of_one(params, image, label):
        logits = func.functional_call(model, params, (image.unsqueeze(0),))
        return torch.nn.functional.cross_entropy(logits, label.unsqueeze(0))
    return func.vmap(func.grad(loss_of_one), in_dims=(None, 0, 0))(params, images, labels)


def loop_grads(torch, model, images, labels):
    """The same gradients, one ordinary backward per example."""
    grads = {name: [] for name, _ in model.named_parameters()}
    for image, label in zip(images, labels):
        model.zero_grad()
        torch.nn.functional.cross_entropy(model(image.unsqueeze(0)),
                                          label.unsqueeze(0)).backward()
        for name, p in model.named_parameters():
            grads[name].append(p.grad.clone())
    return {name: torch.stack(g) for name, g in grads.items()}


def run(torch, batch=64, dtype="float32", seed=0):
    """Per-example gradients of the first ``batch`` digits; returns them and the largest
    difference from the loop of backwards."""
    dtype = getattr(torch, dtype)
    torch.manual_seed(seed)
    (images, labels), _ = load_digits(torch, dtype)
    model = build_model(torch).to(dtype)
    vectorized = per_sample_grads(torch, model, images[:batch], labels[:batch])
    looped = loop_grads(torch, model, images[:batch], labels[:batch])
    difference = max((vectorized[k] - looped[k]).abs().max().item() for k in looped)
    return vectorized, difference


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lib", choices=["autograd_cy", "torch"], default="autograd_cy")
    args = parser.parse_args()
    grads, difference = run(importlib.import_module(args.lib))
    for name, g in grads.items():
        print(f"{name}: per-example gradients of shape {tuple(g.shape)}")
    print(f"largest difference from one backward per example: {difference:.2e}")
