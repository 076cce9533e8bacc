# Design: a value kept for backward, version-checked on unpack (NOTE [Saved tensors] in
# saved_tensor.pyx), and the per-thread stack of saved_tensors_hooks. Below Node: it knows
# only tensors, so Node can release its saved tensors generically.

from autograd_cy._C.tensor cimport Tensor


cdef class NativeHook:
    # A saved_tensors_hooks pack or unpack hook written in Cython, which saving and unpacking
    # call in C (NOTE [Native saved-tensor hooks] in saved_tensor.pyx).
    cdef object call(self, object value)


cdef class SavedTensor:
    # One per saved value of every node, so it is kept small: flags are bytes, not ints.
    cdef object data                  # the Tensor itself, or for a node's own output its array
    cdef unsigned char is_output      # re-wrap with grad_fn = the owning node on unpack
    cdef unsigned char is_leaf_or_input_kept
    cdef unsigned char was_none
    cdef unsigned char freed
    cdef unsigned char saved_requires_grad
    cdef Py_ssize_t output_nr
    cdef unsigned long long saved_version
    cdef object version_counter       # VersionCounter shared with the original tensor
    cdef object input_grad_fn         # grad_fn of a saved input (restored after hooks)
    cdef object unpack_hook, packed   # saved_tensors_hooks: what pack_hook returned
    cdef object fw_grad               # a saved output's (tangent, level), or None (forward AD)

    cpdef object unpack(self, object owner=*)
    cdef object unpack_array(self, object owner)
    cdef int check(self, object owner) except -1
    cdef void rebind_output(self, Tensor t)
    cdef _apply_hooks(self, pack_hook, unpack_hook, Tensor value)
    cdef void _restore_metadata(self, Tensor result, object owner)
    cdef void release(self)
    cdef void set_output_grad_fn(self, object grad_fn)


cdef SavedTensor save(Tensor t, bint is_output, bint wrapped_number=*)
cdef tuple hooks_state()
cdef void set_hooks_state(tuple state) except *
cdef void before_write(Tensor t) except *
cdef str freed_message(object owner)              # the "second time" error, with provenance
