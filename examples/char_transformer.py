"""Train a character-level transformer (2 layers, about 8,600 parameters) on a text file,
written against torch's names, then sample from it.

    python examples/char_transformer.py               # with autograd_cy (imported as torch)
    python examples/char_transformer.py --lib torch   # the same script on PyTorch
"""
import argparse
import importlib
import os

TEXT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "autograd.txt")
CONTEXT, WIDTH, HEADS, LAYERS = 32, 16, 2, 2


def load_text(torch):
    """The text as a tensor of character indices, and the alphabet."""
    with open(TEXT) as handle:
        text = handle.read()
    alphabet = sorted(set(text))
    index = {c: i for i, c in enumerate(alphabet)}
    return torch.tensor([index[c] for c in text]), alphabet


def build_model(torch, vocabulary):
    nn = torch.nn

    class Block(nn.Module):
        """Pre-norm transformer block: causal self-attention, then a feed-forward layer,
        each added to the residual stream."""

        def __init__(self):
            super().__init__()
            self.norm1 = nn.LayerNorm(WIDTH)
            self.attention = nn.MultiheadAttention(WIDTH, HEADS, batch_first=True)
            self.norm2 = nn.LayerNorm(WIDTH)
            self.feed_forward = nn.Sequential(nn.Linear(WIDTH, 4 * WIDTH), nn.GELU(),
                                              nn.Linear(4 * WIDTH, WIDTH))

        def forward(self, x, mask):
            h = self.norm1(x)
            x = x + self.attention(h, h, h, attn_mask=mask, need_weights=False)[0]
            return x + self.feed_forward(self.norm2(x))

    class CharTransformer(nn.Module):
        def __init__(self):
            super().__init__()
            self.token = nn.Embedding(vocabulary, WIDTH)
            self.position = nn.Embedding(CONTEXT, WIDTH)
            self.blocks = nn.ModuleList([Block() for _ in range(LAYERS)])
            self.norm = nn.LayerNorm(WIDTH)
            self.head = nn.Linear(WIDTH, vocabulary)

        def forward(self, tokens):
            length = tokens.shape[1]
            device = tokens.device
            x = self.token(tokens) + self.position(torch.arange(length, device=device))
            mask = torch.triu(torch.ones(length, length, dtype=torch.bool, device=device),
                              diagonal=1)
            for block in self.blocks:
                x = block(x, mask)
            return self.head(self.norm(x))
    return CharTransformer()


def batch(torch, data, size):
    """``size`` random windows of the text and the same windows shifted by one."""
    starts = torch.randint(len(data) - CONTEXT - 1, (size,))
    x = torch.stack([data[s:s + CONTEXT] for s in starts.tolist()])
    y = torch.stack([data[s + 1:s + CONTEXT + 1] for s in starts.tolist()])
    return x, y


def train(torch, iterations=600, steps=None, dtype="float32", seed=0, log=print,
          device="cpu"):
    """AdamW on batches of 16 windows on ``device``; returns every step's loss and a sample
    of text."""
    dtype = getattr(torch, dtype)
    torch.manual_seed(seed)
    data, alphabet = load_text(torch)
    model = build_model(torch, len(alphabet)).to(device, dtype)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.01)
    losses = []
    for step in range(steps if steps is not None else iterations):
        x, y = (t.to(device) for t in batch(torch, data, 16))
        logits = model(x)
        loss = torch.nn.functional.cross_entropy(logits.reshape(-1, len(alphabet)),
                                                 y.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if (step + 1) % 100 == 0:
            log(f"step {step + 1}: loss {sum(losses[-100:]) / 100:.4f}")
    return losses, (sample(torch, model, alphabet) if steps is None else None)


def sample(torch, model, alphabet, length=200):
    """Greedy continuation of the text's first characters."""
    model.eval()
    index = {c: i for i, c in enumerate(alphabet)}
    tokens = [index[c] for c in "An autograd engine"]
    with torch.no_grad():
        for _ in range(length):
            context = torch.tensor([tokens[-CONTEXT:]],
                                   device=next(model.parameters()).device)
            tokens.append(int(model(context)[0, -1].argmax().item()))
    return "".join(alphabet[t] for t in tokens)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lib", choices=["autograd_cy", "torch"], default="autograd_cy")
    parser.add_argument("--iterations", type=int, default=600)
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()
    torch = importlib.import_module(args.lib)
    alphabet_size = len(load_text(torch)[1])
    print(f"{sum(p.numel() for p in build_model(torch, alphabet_size).parameters())} "
          "parameters")
    print(train(torch, iterations=args.iterations, device=args.device)[1])
