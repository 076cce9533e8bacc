# Design: backward() and grad() from the user's arguments to one engine call (backward.pyx),
# and Tensor.backward, which it registers. Above the engine.
