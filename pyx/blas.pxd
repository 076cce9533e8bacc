# Design: NumPy's own BLAS, called directly for the 2-D float products (NOTE [Calling
# NumPy's BLAS directly]). Below the ops: matmul.pyx's matrix_product calls it; it imports
# nothing of autograd_cy.

cdef object blas_product(object a, object b)
