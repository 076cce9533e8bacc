"""The run as a picture: each workload against torch and the NumPy floor, and the cost per
node against graph depth, one PNG beside the run's JSON (matplotlib, from the ``bench``
extra)."""
import os
import shutil

try:
    import matplotlib
    matplotlib.use("Agg")          # files only, no display
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
    from matplotlib.ticker import FuncFormatter, NullLocator
except ImportError:                # the bench extra is not installed: no picture
    plt = None

IMPLEMENTATION_STYLE = {          # label and colour of each implementation, in bar order
    "autograd_cy": ("autograd_cy", "#1f77b4"),
    "torch": ("PyTorch", "#d62728"),
    "numpy": ("NumPy floor (no autograd)", "#7f7f7f"),
}


def write_picture(results, path, title):
    """Draw ``results`` (the harness's list) into ``path``; False when matplotlib is missing."""
    if plt is None:
        return False
    depth = [r for r in results if r["name"].startswith("depth_")]
    bars = [r for r in results if not r["name"].startswith("depth_")
            and "numpy" in r["timings"]]            # the bars are ratios to the floor
    panels = [panel for panel, rows in (("bars", bars), ("depth", depth)) if rows]
    if not panels:
        return False
    height = 1.5 + 0.5 * max(len(bars), 7)
    figure, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), height),
                                squeeze=False)
    for axis, panel in zip(axes[0], panels):
        if panel == "bars":
            draw_bars(axis, bars)
        else:
            draw_depth(axis, depth)
    figure.suptitle(title, fontsize=9)
    # One legend for both panels (the colours are the same), in a strip under them.
    handles = [Patch(color=colour, label=label) for label, colour in IMPLEMENTATION_STYLE.values()]
    figure.legend(handles=handles, loc="lower center", ncol=3, fontsize=9, frameon=False)
    figure.tight_layout(rect=(0, 0.35 / height, 1, 1))
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return True


def draw_bars(axis, results):
    """Horizontal bars: each workload's median time over the NumPy floor's (1 = the floor).
    The workloads without a floor (a CNN, a transformer) are in the table only."""
    height = 0.27
    names = [r["name"] for r in results]
    for offset, (impl, (label, colour)) in enumerate(IMPLEMENTATION_STYLE.items()):
        ratios = [r["timings"][impl]["median"] / r["timings"]["numpy"]["median"]
                  for r in results]
        positions = [i + (offset - 1) * height for i in range(len(results))]
        axis.barh(positions, ratios, height=height, color=colour, label=label)
        if impl != "numpy":             # the floor's bars are all 1x
            for y, ratio in zip(positions, ratios):
                axis.text(ratio, y, f" {ratio:.2f}x", va="center", fontsize=7)
    axis.set_yticks(range(len(names)), names)
    axis.set_ylim(len(names) - 0.5, -0.5)          # the first workload on top, no margins
    axis.set_xscale("log")
    axis.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}x"))
    axis.xaxis.set_minor_formatter(FuncFormatter(label_twos_and_fives))
    axis.axvline(1.0, color="black", linewidth=0.8)
    axis.set_xlim(right=axis.get_xlim()[1] * 1.4)      # room for the last bar's label
    axis.set_xlabel("median time / NumPy floor's (log scale; lower is faster)")
    axis.set_title("each workload against PyTorch and the NumPy floor", fontsize=9)


def label_twos_and_fives(value, _):
    """A minor tick's label on the log axis: 2x, 5x, 0.5x, 20x..., the others unlabelled."""
    leading = f"{value:.0e}"[0]
    return f"{value:g}x" if leading in "25" else ""


def draw_depth(axis, results):
    """Microseconds per backward node against the depth of the chain."""
    layers = [int(r["name"].split("_")[1]) for r in results]
    for impl, (label, colour) in IMPLEMENTATION_STYLE.items():
        axis.plot(layers, [r["timings"][impl]["median"] / r["nodes"] * 1e6 for r in results],
                  marker="o", color=colour)
    axis.set_xscale("log")
    axis.set_xticks(layers, [f"{n:,}" for n in layers])      # ticks at the depths measured
    axis.xaxis.set_minor_locator(NullLocator())
    axis.set_ylim(bottom=0)
    axis.set_xlabel("chain depth (layers)")
    axis.set_ylabel("microseconds per node")
    axis.set_title("cost per node against depth", fontsize=9)


def publish(path, latest):
    """Copy the run's picture to ``latest`` (benchmarks/results/latest.png, which the README
    shows and git tracks)."""
    os.makedirs(os.path.dirname(latest), exist_ok=True)
    shutil.copyfile(path, latest)
