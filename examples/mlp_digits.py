"""Train a multilayer perceptron on 8x8 images of digits, written against torch's names.

    python examples/mlp_digits.py               # with autograd_cy (imported as torch)
    python examples/mlp_digits.py --lib torch   # the same script on PyTorch

The model, the data order (a seeded DataLoader) and the initial weights (seeded nn.init)
are the same in both libraries, so the two runs print the same losses.
"""
import argparse
import importlib
import os

import numpy as np

DIGITS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "digits.npz")


def load_digits(torch, dtype):
    """The 1,800 images as ``(N, 64)`` floats in [0, 1] and their labels; the first 1,500 train,
    the rest test."""
    data = np.load(DIGITS)
    images = torch.from_numpy(data["images"].reshape(-1, 64) / 16.0).to(dtype)
    labels = torch.from_numpy(data["labels"])
    return (images[:1500], labels[:1500]), (images[1500:], labels[1500:])


def build_model(torch):
    nn = torch.nn
    return nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(),
                         nn.Linear(64, 10))


def accuracy(torch, model, images, labels):
    with torch.no_grad():
        return (model(images).argmax(dim=1) == labels).double().mean().item()


def train(torch, epochs=10, steps=None, dtype="float32", seed=0, log=print, device="cpu"):
    """Train with Adam on mini-batches of 64 on ``device``; returns the loss of every step
    and the test accuracy. ``steps`` stops early (the test runs a few steps under both
    libraries)."""
    dtype = getattr(torch, dtype)
    torch.manual_seed(seed)
    (train_x, train_y), (test_x, test_y) = load_digits(torch, dtype)
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(train_x, train_y), batch_size=64, shuffle=True,
        generator=torch.Generator().manual_seed(seed))
    model = build_model(torch).to(device, dtype)
    test_x, test_y = test_x.to(device), test_y.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    losses = []
    for epoch in range(epochs):
        model.train()
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(images), labels)
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
            if steps is not None and len(losses) == steps:
                return losses, None
        model.eval()
        log(f"epoch {epoch + 1}: loss {losses[-1]:.4f}, "
            f"test accuracy {accuracy(torch, model, test_x, test_y):.3f}")
    return losses, accuracy(torch, model, test_x, test_y)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lib", choices=["autograd_cy", "torch"], default="autograd_cy")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    train(importlib.import_module(args.lib), epochs=args.epochs, device=args.device)
