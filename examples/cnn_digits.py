"""Train a small convolutional network on 8x8 images of digits, written against torch's names.

    python examples/cnn_digits.py               # with autograd_cy (imported as torch)
    python examples/cnn_digits.py --lib torch   # the same script on PyTorch
"""
import argparse
import importlib

from mlp_digits import accuracy, load_digits


def build_model(torch):
    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),      # 8 x 4 x 4
        nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),     # 16 x 2 x 2
        nn.Flatten(), nn.Linear(64, 10))


def train(torch, epochs=8, steps=None, dtype="float32", seed=0, log=print, device="cpu"):
    """Train with Adam on mini-batches of 64 images of shape (1, 8, 8) on ``device``;
    returns the loss of every step and the test accuracy."""
    dtype = getattr(torch, dtype)
    torch.manual_seed(seed)
    (train_x, train_y), (test_x, test_y) = load_digits(torch, dtype)
    train_x, test_x = train_x.view(-1, 1, 8, 8), test_x.view(-1, 1, 8, 8)
    loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(train_x, train_y), batch_size=64, shuffle=True,
        generator=torch.Generator().manual_seed(seed))
    model = build_model(torch).to(device, dtype)
    test_x, test_y = test_x.to(device), test_y.to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    losses = []
    for epoch in range(epochs):
        model.train()
        for images, labels in loader:
            images, labels = images.to(device), labels.to(device)
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(images), labels)
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
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    train(importlib.import_module(args.lib), epochs=args.epochs, device=args.device)
