# Design: PyTorch's argument-parser errors, for the ops whose Python signature cannot raise
# them itself (a dim that may be missing but not None, sizes given as one tuple or as many
# ints). Only error paths and the parsing of a size list run here.

cdef object invalid_combination(str name, tuple args, dict kwargs, tuple signatures)
cdef object missing_argument(str name, str argument)
cdef tuple int_list(str name, str argument, tuple args, object keyword, tuple signatures=*)
