"""The run as a picture: each workload against torch and the NumPy floor, and the cost per
node against graph depth, one PNG beside the run's JSON (matplotlib, from the ``bench``
extra)."""
import os
import shutil

try:
    import matplotlib
    matplotlib.use("Agg")          # files only, no display
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter
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
    bars = [r for r in results if not r["name"].startswith("depth_")]
    panels = [panel for panel, rows in (("bars", bars), ("depth", depth)) if rows]
    if not panels:
        return False
    figure, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 0.5 + 0.45 *
                                max(len(bars), 8)), squeeze=False)
    for axis, panel in zip(axes[0], panels):
        if panel == "bars":
            draw_bars(axis, bars)
        else:
            draw_depth(axis, depth)
    figure.suptitle(title, fontsize=9)
    handles, labels = axes[0][0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=3, fontsize=8, frameon=False)
    figure.tight_layout(rect=(0, 0.06, 1, 1))    # room for the legend below the panels
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return True


def draw_bars(axis, results):
    """Horizontal bars: each workload's median time over the NumPy floor's (1 = the floor)."""
    height = 0.27
    names = [r["name"] for r in results]
    for offset, (impl, (label, colour)) in enumerate(IMPLEMENTATION_STYLE.items()):
        ratios = [r["timings"][impl]["median"] / r["timings"]["numpy"]["median"]
                  for r in results]
        positions = [i + (offset - 1) * height for i in range(len(results))]
        axis.barh(positions, ratios, height=height, color=colour, label=label)
        if impl == "autograd_cy":
            for y, ratio in zip(positions, ratios):
                axis.text(ratio, y, f" {ratio:.2f}x", va="center", fontsize=7)
    axis.set_yticks(range(len(names)), names)
    axis.invert_yaxis()
    axis.set_xscale("log")
    axis.xaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}x"))
    axis.axvline(1.0, color="black", linewidth=0.8)
    axis.set_xlabel("median time / NumPy floor's (log scale; lower is faster)")
    axis.set_title("each workload against PyTorch and the NumPy floor", fontsize=9)


def draw_depth(axis, results):
    """Microseconds per backward node against the depth of the chain."""
    layers = [int(r["name"].split("_")[1]) for r in results]
    for impl, (label, colour) in IMPLEMENTATION_STYLE.items():
        axis.plot(layers, [r["timings"][impl]["median"] / r["nodes"] * 1e6 for r in results],
                  marker="o", color=colour, label=label)
    axis.set_xscale("log")
    axis.set_ylim(bottom=0)
    axis.set_xlabel("chain depth (layers)")
    axis.set_ylabel("microseconds per node")
    axis.set_title("cost per node against depth", fontsize=9)


def publish(path, latest):
    """Copy the run's picture to ``latest`` (benchmarks/results/latest.png, which the README
    shows and git tracks)."""
    os.makedirs(os.path.dirname(latest), exist_ok=True)
    shutil.copyfile(path, latest)
