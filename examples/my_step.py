"""A step of your own for the benchmark: ``python -m benchmarks --script examples/my_step.py``.

``setup(torch)`` is called once with PyTorch and once with autograd_cy as ``torch``; it builds
the model and the data and returns the step, either as one callable or as three phases,
``forward()`` (returns the loss), ``backward(loss)`` and ``optimizer_step()``, which the
benchmark also times one by one. Write it with torch's names only.
"""


def setup(torch):
    torch.manual_seed(0)
    nn = torch.nn
    model = nn.Sequential(nn.Linear(32, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(),
                          nn.Linear(64, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x, y = torch.randn(16, 32), torch.randn(16, 1)

    def forward():
        return nn.functional.mse_loss(model(x), y)

    def backward(loss):
        optimizer.zero_grad()
        loss.backward()
    return forward, backward, optimizer.step
