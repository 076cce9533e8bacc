# Design: float32 to float16 rounding in one C loop (NOTE [Rounding to float16]). Below
# the ops: conversion.pyx casts with it, and the distributed package's half-precision
# reductions round with it; it imports nothing of autograd_cy.

cpdef object float32_to_float16(object array, object out=*)
