"""Train the digits MLP of mlp_digits.py data-parallel on several processes, written against
torch's names (torch.distributed, DistributedDataParallel, DistributedSampler).

    python -m autograd_cy.distributed.run --nproc 2 examples/mlp_digits_ddp.py
    mpiexec -n 2 python examples/mlp_digits_ddp.py              # the same, by hand
    mpiexec -n 2 python examples/mlp_digits_ddp.py --lib torch  # on PyTorch (gloo)

Each of the N ranks trains on its own 1/N of every batch of 64 (a DistributedSampler), and
DDP averages the gradients during backward, so the model follows the same steps as the one
process of mlp_digits.py with batches of 64 would, up to rounding. Rank 0 prints.
"""
import argparse
import importlib
import os

from mlp_digits import accuracy, build_model, load_digits


def init_process_group(torch):
    """The process group of the ranks mpiexec started. torch's gloo finds its peers through
    the environment torchrun sets; under mpiexec it is set here from MPI's."""
    if torch.__name__ == "torch" and "PMI_RANK" in os.environ:
        os.environ.setdefault("RANK", os.environ["PMI_RANK"])
        os.environ.setdefault("WORLD_SIZE", os.environ["PMI_SIZE"])
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29517")
    torch.distributed.init_process_group("gloo")  # autograd_cy runs "gloo" on MPI


def train(torch, epochs=10, steps=None, seed=0, log=print):
    """Data-parallel training with Adam, global batch 64; returns the losses of every step
    (averaged over the ranks) and the test accuracy. ``steps`` stops early."""
    dist = torch.distributed
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(seed)
    (train_x, train_y), (test_x, test_y) = load_digits(torch, torch.float32)
    dataset = torch.utils.data.TensorDataset(train_x, train_y)
    sampler = torch.utils.data.DistributedSampler(dataset, shuffle=True, seed=seed)
    loader = torch.utils.data.DataLoader(dataset, batch_size=64 // world, sampler=sampler)
    model = torch.nn.parallel.DistributedDataParallel(build_model(torch))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    losses = []
    for epoch in range(epochs):
        sampler.set_epoch(epoch)
        model.train()
        for images, labels in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(images), labels)
            loss.backward()
            optimizer.step()
            mean_loss = loss.detach().clone()
            dist.all_reduce(mean_loss)
            losses.append(mean_loss.item() / world)
            if steps is not None and len(losses) == steps:
                return losses, None
        model.eval()
        if rank == 0:
            log(f"epoch {epoch + 1}: loss {losses[-1]:.4f}, "
                f"test accuracy {accuracy(torch, model.module, test_x, test_y):.3f}")
    return losses, accuracy(torch, model.module, test_x, test_y)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lib", choices=["autograd_cy", "torch"], default="autograd_cy")
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--steps", type=int, default=None,
                        help="stop after this many steps and print their losses")
    args = parser.parse_args()
    library = importlib.import_module(args.lib)
    importlib.import_module(f"{args.lib}.distributed")
    importlib.import_module(f"{args.lib}.nn.parallel")
    importlib.import_module(f"{args.lib}.utils.data")
    init_process_group(library)
    losses, _ = train(library, epochs=args.epochs, steps=args.steps)
    if args.steps is not None and library.distributed.get_rank() == 0:
        print(" ".join(f"{loss:.6f}" for loss in losses))
    library.distributed.destroy_process_group()
