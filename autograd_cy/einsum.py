"""``einsum``: sums of products of tensors' entries, named by subscript letters
(``"ij,jk->ik"`` is a matrix product).

Composed of existing ops, so each step records its own node: a letter repeated within one
operand takes that diagonal (``diagonal``); each operand is then permuted to one common
order of letters, the output's first and the summed ones after, and viewed with size-1
dims for the letters it lacks; the operands are multiplied (broadcasting) and the summed
letters summed away. torch contracts pairs with ``bmm`` instead, so its nodes (and the
memory used) differ from these; the values and gradients are the same.

>>> import autograd_cy as ag
>>> a = ag.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> ag.einsum("ij,jk->ik", a, a)
tensor([[ 7., 10.],
        [15., 22.]])
>>> ag.einsum("ii", a)
tensor(5.)
"""
import math

__all__ = ["einsum"]


def _parse(equation, count):
    """(the operands' subscripts, the output's), with torch's errors; the implicit output
    is the letters used once, in alphabetical order."""
    equation = equation.replace(" ", "")
    if "." in equation:
        raise NotImplementedError("einsum(): '...' (ellipsis) is not supported yet")
    inputs, arrow, output = equation.partition("->")
    subscripts = inputs.split(",")
    if len(subscripts) != count:
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation" if count > len(subscripts) else
                           "einsum(): fewer operands were provided than specified in the "
                           "equation")
    for letters in subscripts + [output]:
        for letter in letters:
            if not letter.isalpha():
                raise RuntimeError(f"einsum(): invalid subscript given at index "
                                   f"{equation.index(letter)} in the equation string, "
                                   f"subscripts must be in [a-zA-Z]")
    if not arrow:
        counts = {}
        for letter in inputs.replace(",", ""):
            counts[letter] = counts.get(letter, 0) + 1
        output = "".join(sorted(letter for letter, n in counts.items() if n == 1))
    for letter in output:
        if output.count(letter) > 1:
            raise RuntimeError(f"einsum(): output subscript {letter} appears more than once "
                               f"in the output")
        if letter not in inputs:
            raise RuntimeError(f"einsum(): output subscript {letter} does not appear in the "
                               f"equation for any input operand")
    return subscripts, output


def _diagonals_taken(operand, letters):
    """``operand`` with each repeated letter's diagonal taken (its dim moved last)."""
    letters = list(letters)
    while True:
        repeated = next((letter for letter in letters if letters.count(letter) > 1), None)
        if repeated is None:
            return operand, letters
        first = letters.index(repeated)
        second = letters.index(repeated, first + 1)
        operand = operand.diagonal(0, first, second)
        letters = [letter for k, letter in enumerate(letters) if k not in (first, second)]
        letters.append(repeated)


def einsum(equation, *operands):
    """The sum over the letters not in the output of the product of the operands' entries
    named by the letters (``einsum("ij,jk->ik", a, b)`` is ``a @ b``)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    subscripts, output = _parse(equation, len(operands))
    prepared, sizes = [], {}
    for operand, letters in zip(operands, subscripts):
        if len(letters) != operand.dim():
            raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                               f"({len(letters)}) does not match the number of dimensions "
                               f"({operand.dim()}) for operand {len(prepared)} and no "
                               f"ellipsis was given")
        operand, letters = _diagonals_taken(operand, letters)
        for letter, size in zip(letters, operand.shape):
            if sizes.get(letter, size) != size and 1 not in (size, sizes[letter]):
                raise RuntimeError(f"einsum(): subscript {letter} has size {size} for operand "
                                   f"{len(prepared)} which does not broadcast with "
                                   f"previously seen size {sizes[letter]}")
            sizes[letter] = max(size, sizes.get(letter, size))
        prepared.append((operand, letters))
    summed = [letter for letter in sizes if letter not in output]
    order = list(output) + summed
    product = None
    for operand, letters in prepared:
        permutation = sorted(range(len(letters)), key=lambda k: order.index(letters[k]))
        if permutation != list(range(len(letters))) or len(prepared) == 1:
            operand = operand.permute(*permutation)     # (a lone operand: always, as torch)
        present = [letters[k] for k in permutation]
        shape = [operand.shape[present.index(letter)] if letter in present else 1
                 for letter in order]
        if len(shape) != operand.dim():
            operand = operand.reshape(shape)
        product = operand if product is None else product * operand
    if summed:
        product = product.sum(tuple(range(len(output), len(order))))
    full = [sizes[letter] for letter in output]
    if list(product.shape) != full:      # a letter of size 1 in every operand that has it
        product = product.expand(*full) if math.prod(full) else product.reshape(full)
    return product
