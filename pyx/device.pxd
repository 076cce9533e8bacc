# Design: the device model, at the bottom of the core beside dtype: where a tensor's array
# lives. A NumPy array is on `cpu`, a CuPy array on `cuda:N`.

cdef class device:
    cdef readonly str type        # "cpu" or "cuda"
    cdef readonly object index    # None or the device number

