"""Make ``digits.npz``: 8x8 images of handwritten-looking digits, 0 to 9, for the examples.

Each image is drawn as the UCI/scikit-learn "digits" set was made: a glyph on a 32x32 bitmap,
then the number of ink pixels in each 4x4 block, so every pixel is an integer from 0 to 16.
The glyphs are a 5x7 pixel font, each drawn with its own random scale, slant, shift and stroke
width, so no two samples are the same. Deterministic: run it again and the file is the same.

    python examples/data/make_digits.py      # writes examples/data/digits.npz
"""
import os

import numpy as np

GLYPHS = {
    0: [" ### ", "#   #", "#  ##", "# # #", "##  #", "#   #", " ### "],
    1: ["  #  ", " ##  ", "# #  ", "  #  ", "  #  ", "  #  ", "#####"],
    2: [" ### ", "#   #", "    #", "   # ", "  #  ", " #   ", "#####"],
    3: ["#####", "   # ", "  #  ", "   # ", "    #", "#   #", " ### "],
    4: ["   # ", "  ## ", " # # ", "#  # ", "#####", "   # ", "   # "],
    5: ["#####", "#    ", "#### ", "    #", "    #", "#   #", " ### "],
    6: ["  ## ", " #   ", "#    ", "#### ", "#   #", "#   #", " ### "],
    7: ["#####", "    #", "   # ", "  #  ", " #   ", " #   ", " #   "],
    8: [" ### ", "#   #", "#   #", " ### ", "#   #", "#   #", " ### "],
    9: [" ### ", "#   #", "#   #", " ####", "    #", "   # ", " ##  "],
}
SAMPLES_PER_DIGIT = 180
SEED = 1797


def draw(digit, rng):
    """One 8x8 image of ``digit`` with values 0..16."""
    glyph = np.array([[c == "#" for c in row] for row in GLYPHS[digit]], dtype=float)
    canvas = np.zeros((32, 32))
    scale_y, scale_x = rng.uniform(3.2, 4.2), rng.uniform(3.0, 4.6)
    slant = rng.uniform(-0.35, 0.35)
    centre = np.array([16, 16]) + rng.uniform(-2.5, 2.5, size=2)
    width = rng.uniform(0.45, 0.8)
    ys, xs = np.mgrid[0:32, 0:32] + 0.5
    # each canvas pixel, mapped back into glyph coordinates (row, column)
    rows = (ys - centre[0]) / scale_y + 3.5
    cols = (xs - centre[1] - slant * (ys - centre[0])) / scale_x + 2.5
    for r, c in zip(*np.nonzero(glyph)):
        canvas = np.maximum(canvas, (np.abs(rows - r - 0.5) < 0.5 + width / 2)
                            & (np.abs(cols - c - 0.5) < 0.5 + width / 2))
    canvas = canvas * (rng.random((32, 32)) > 0.04)          # a few dropped ink pixels
    return canvas.reshape(8, 4, 8, 4).sum(axis=(1, 3)).astype(np.uint8)


def make(seed=SEED):
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(10), SAMPLES_PER_DIGIT)
    rng.shuffle(labels)
    images = np.stack([draw(int(d), rng) for d in labels])
    return images, labels.astype(np.int64)


if __name__ == "__main__":
    images, labels = make()
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "digits.npz")
    np.savez_compressed(path, images=images, labels=labels)
    print(f"wrote {path}: {images.shape[0]} images, 8x8, values 0..{images.max()}")
