"""``einsum``: sums of products of tensors' entries, named by subscript letters
(``"ij,jk->ik"`` is a matrix product).

An ellipsis (``"...ij"``) names the dims no letter names.

NOTE [einsum's ellipsis]
The ellipses of the operands cover their own counts of dims, which broadcast together
aligned to the right (as NumPy's); the output puts them where its ``...`` is, first when
the output is implicit, and sums them away when an explicit output has none. Each is
named ``"...<k>"`` (k counted over the broadcast dims) and joins the letters.

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

import autograd_cy as _ag

__all__ = ["einsum"]


_ELLIPSIS = "..."


def _tokens(part, name):
    """The subscripts of one operand (or the output) as a list: its letters, and
    ``"..."`` where its ellipsis is, with torch's errors for a stray ``.``."""
    tokens, k = [], 0
    while k < len(part):
        if part[k] != ".":
            tokens.append(part[k])
            k += 1
            continue
        if _ELLIPSIS in tokens:
            raise RuntimeError(f"einsum(): found '.' for {name} for which an ellipsis was "
                               f"already found")
        if part[k:k + 3] != _ELLIPSIS:
            raise RuntimeError(f"einsum(): found '.' for {name} that is not part of any "
                               f"ellipsis" + (" (...)" if name == "output" else ""))
        tokens.append(_ELLIPSIS)
        k += 3
    return tokens


def _parse(equation, count):
    """(the operands' subscripts, the output's), each a list of letters and ``"..."``,
    with torch's errors; the implicit output is the ellipsis, then the letters used once
    in alphabetical order."""
    equation = equation.replace(" ", "")
    inputs, arrow, output = equation.partition("->")
    parts = inputs.split(",")
    if len(parts) != count:
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation" if count > len(parts) else
                           "einsum(): fewer operands were provided than specified in the "
                           "equation")
    subscripts = [_tokens(part, f"operand {k}") for k, part in enumerate(parts)]
    for letters in parts + [output]:
        for letter in letters:
            if not letter.isalpha() and letter != ".":
                raise RuntimeError(f"einsum(): invalid subscript given at index "
                                   f"{equation.index(letter)} in the equation string, "
                                   f"subscripts must be in [a-zA-Z]")
    used = [letter for tokens in subscripts for letter in tokens if letter != _ELLIPSIS]
    if arrow:
        output = _tokens(output, "output")
    else:
        output = ([_ELLIPSIS] if any(_ELLIPSIS in tokens for tokens in subscripts) else []) + (
            sorted(letter for letter in set(used) if used.count(letter) == 1))
    for letter in output:
        if letter == _ELLIPSIS:
            continue
        if output.count(letter) > 1:
            raise RuntimeError(f"einsum(): output subscript {letter} appears more than once "
                               f"in the output")
        if letter not in used:
            raise RuntimeError(f"einsum(): output subscript {letter} does not appear in the "
                               f"equation for any input operand")
    return subscripts, output


def _ellipsis_expanded(tokens, dims, total):
    """``tokens`` with its ``"..."`` replaced by the names of the ``dims`` broadcast dims it
    covers, aligned to the right among ``total`` (NOTE [einsum's ellipsis])."""
    if _ELLIPSIS not in tokens:
        return tokens
    k = tokens.index(_ELLIPSIS)
    return tokens[:k] + [f"...{j}" for j in range(total - dims, total)] + tokens[k + 1:]


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


def _check_contraction_dtypes(prepared, output):
    """torch's refusal of operands of two dtypes that a step contracts: it takes the
    operands left to right, and a step where a letter leaves (summed, in neither the output
    nor a later operand) with a size above 1 on both sides is a ``bmm``, which takes one
    dtype; a step without one is a promoting multiply."""
    if any(operand.numel() == 0 for operand, _ in prepared):
        return          # torch's products of empty operands promote, nothing is refused
    dtype, seen = None, {}          # the running product's dtype and letter sizes
    for k, (operand, letters) in enumerate(prepared):
        own = dict(zip(letters, operand.shape))
        if dtype is not None and operand.dtype != dtype:
            later = set().union(*(set(other) for _, other in prepared[k + 1:]))
            if any(seen.get(letter, 1) > 1 and size > 1 for letter, size in own.items()
                   if letter not in output and letter not in later):
                raise RuntimeError(f"expected scalar type {dtype._scalar_name} but found "
                                   f"{operand.dtype._scalar_name}")
        dtype = operand.dtype if dtype is None else _ag.promote_types(dtype, operand.dtype)
        for letter, size in own.items():
            seen[letter] = max(size, seen.get(letter, 1))


def einsum(equation, *operands):
    """The sum over the letters not in the output of the product of the operands' entries
    named by the letters (``einsum("ij,jk->ik", a, b)`` is ``a @ b``)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    subscripts, output = _parse(equation, len(operands))
    covered = []            # how many dims each operand's ellipsis covers
    for k, (operand, letters) in enumerate(zip(operands, subscripts)):
        named = len(letters) - (_ELLIPSIS in letters)
        if _ELLIPSIS in letters and named > operand.dim():
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({named}) "
                               f"is more than the number of dimensions ({operand.dim()}) for "
                               f"operand {k}")
        if _ELLIPSIS not in letters and named != operand.dim():
            raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                               f"({named}) does not match the number of dimensions "
                               f"({operand.dim()}) for operand {k} and no ellipsis was given")
        covered.append(operand.dim() - named)
    total = max(covered, default=0)
    output = _ellipsis_expanded(output, total, total)
    prepared, sizes = [], {}
    for operand, letters, dims in zip(operands, subscripts, covered):
        letters = _ellipsis_expanded(letters, dims, total)
        operand, letters = _diagonals_taken(operand, letters)
        for letter, size in zip(letters, operand.shape):
            if sizes.get(letter, size) != size and 1 not in (size, sizes[letter]):
                if letter.startswith(_ELLIPSIS):
                    raise RuntimeError(
                        f"einsum(): dimension {int(letter[3:]) - total + dims} covered by "
                        f"ellipsis in operand {len(prepared)}has size {size} which does not "
                        f"broadcast with previously seen ellipsis with size {sizes[letter]} "
                        f"for the respective dimension")
                raise RuntimeError(f"einsum(): subscript {letter} has size {size} for operand "
                                   f"{len(prepared)} which does not broadcast with "
                                   f"previously seen size {sizes[letter]}")
            # broadcast: a size of 1 gives way to the other (an empty dim too)
            sizes[letter] = size if sizes.get(letter, 1) == 1 else sizes[letter]
        prepared.append((operand, letters))
    summed = [letter for letter in sizes if letter not in output]
    _check_contraction_dtypes(prepared, output)
    order = list(output) + summed
    product = None
    for operand, letters in prepared:
        permutation = sorted(range(len(letters)), key=lambda k: order.index(letters[k]))
        if permutation != list(range(len(letters))) or len(prepared) == 1:
            operand = operand.permute(permutation)      # (a lone operand: always, as torch)
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
