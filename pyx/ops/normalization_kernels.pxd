# Design: the array math of layer_norm's rows (autograd_cy/nn/normalization.py), NumPy
# arrays in and out, no autograd: one C loop per row instead of a NumPy pass per step. The
# Python layer takes them for CPU float32/float64 matrices where nothing records, and
# composes Tensor ops otherwise (other devices, create_graph, forward AD).
