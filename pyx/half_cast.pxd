# Design: float32 to float16 rounding, and back, each in one C loop (NOTE [Rounding to
# float16]). Below the ops: conversion.pyx casts and copy_ copies with them, and the
# distributed package's half-precision reductions use them; it imports nothing of
# autograd_cy.

cpdef object float32_to_float16(object array, object out=*)
cpdef object float16_to_float32(object array, object out=*)
