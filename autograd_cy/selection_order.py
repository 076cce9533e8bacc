"""Which of equal entries torch's CPU ``kthvalue`` and ``topk`` pick, and in what order.

# NOTE [The order of equal entries in kthvalue and topk]
A selection among distinct values has one answer; among equal ones (NaNs count as equal to
each other and larger than every number, ``-0.0`` equals ``0.0``) the index returned is
whichever the kernel's swaps leave in place. torch's CPU kernels:

- ``kthvalue``: a quickselect over the row (median of three of the ends and the middle, the
  middle moved next to the left end; Hoare partition around the left end's value), the
  ``k``-th position read at the end;
- ``topk``: the row as (value, index) pairs through libstdc++'s ``std::nth_element`` (the
  ``k``-th placed), then ``std::sort`` of the ``k - 1`` before it; when ``64 k <= n``,
  ``std::partial_sort`` (a heap) instead. The comparison is on values only.

A stable sort answers every row whose selected positions hold no equal values; the rows that
do are replayed here, step by step, with those algorithms (the swaps, not torch's code), so
the index (and the sign of a zero) is torch's. The replay is plain Python over one row:
equal entries are rare in floating-point data, and a row without them never comes here.
"""
import numpy as np

__all__ = ["kth_index", "top_pairs", "tied_rows"]


def _greater(x, y):
    """``x`` after ``y`` in ascending order: larger, or NaN against a number."""
    return (x != x and y == y) or x > y


def _less(x, y):
    """``x`` before ``y`` in ascending order."""
    return (x == x and y != y) or x < y


def tied_rows(values, first, last):
    """A bool per row of the sorted 2-d ``values`` (rows, n): whether two neighbours among
    the positions ``first .. last`` (clipped to the row) are equal, NaNs equal to each
    other."""
    n = values.shape[-1]
    first, last = max(first, 0), min(last, n - 1)
    if last <= first:
        return np.zeros(values.shape[0], dtype=bool)
    left, right = values[:, first:last], values[:, first + 1:last + 1]
    with np.errstate(invalid="ignore"):
        same = (left == right) | (np.isnan(left) & np.isnan(right))
    return same.any(axis=-1)


def kth_index(row, k):
    """The index into the list ``row`` that torch's ``kthvalue`` returns for the ``k``-th
    smallest (``k`` from 0): its quickselect replayed (NOTE [The order of equal entries in
    kthvalue and topk])."""
    values, index = list(row), list(range(len(row)))

    def swap(a, b):
        values[a], values[b] = values[b], values[a]
        index[a], index[b] = index[b], index[a]

    low, high = 0, len(values) - 1
    while high > low:
        if high == low + 1:
            if _greater(values[low], values[high]):
                swap(low, high)
            break
        swap((low + high) >> 1, low + 1)
        if _greater(values[low + 1], values[high]):
            swap(low + 1, high)
        if _greater(values[low], values[high]):
            swap(low, high)
        if _greater(values[low + 1], values[low]):
            swap(low + 1, low)
        i, j, pivot = low + 1, high, values[low]
        while True:
            i += 1
            while _greater(pivot, values[i]):
                i += 1
            j -= 1
            while _greater(values[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(low, j)
        if j <= k:
            low = i
        if j >= k:
            high = j - 1
    return index[k]


class _Pairs:
    """A row of (value, index) pairs and libstdc++'s selection and sorting steps on it,
    ordered by ``before`` on the values."""

    def __init__(self, row, before):
        self.a = [(value, i) for i, value in enumerate(row)]
        self.before = before

    def comp(self, x, y):
        return self.before(x[0], y[0])

    # -- insertion sort
    def linear_insert(self, last):
        a, value = self.a, self.a[last]
        while self.comp(value, a[last - 1]):
            a[last] = a[last - 1]
            last -= 1
        a[last] = value

    def insertion_sort(self, first, last):
        a = self.a
        for i in range(first + 1, last):
            if self.comp(a[i], a[first]):
                a[first:i + 1] = [a[i]] + a[first:i]
            else:
                self.linear_insert(i)

    # -- heaps (the largest by ``before`` on top)
    def adjust(self, first, hole, length, value):
        a, top, child = self.a, hole, hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if self.comp(a[first + child], a[first + child - 1]):
                child -= 1
            a[first + hole] = a[first + child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            a[first + hole] = a[first + child - 1]
            hole = child - 1
        parent = (hole - 1) // 2
        while hole > top and self.comp(a[first + parent], value):
            a[first + hole] = a[first + parent]
            hole, parent = parent, (parent - 1) // 2
        a[first + hole] = value

    def pop(self, first, last, result):
        value, self.a[result] = self.a[result], self.a[first]
        self.adjust(first, 0, last - first, value)

    def heap_select(self, first, middle, last):
        length = middle - first
        for parent in range((length - 2) // 2, -1, -1) if length > 1 else ():
            self.adjust(first, parent, length, self.a[first + parent])
        for i in range(middle, last):
            if self.comp(self.a[i], self.a[first]):
                self.pop(first, middle, i)

    def partial_sort(self, first, middle, last):
        self.heap_select(first, middle, last)
        while middle - first > 1:
            middle -= 1
            self.pop(first, middle, middle)

    # -- quicksort's partition
    def partition_pivot(self, first, last):
        a, comp = self.a, self.comp
        mid, x, z = first + (last - first) // 2, first + 1, last - 1
        if comp(a[x], a[mid]):
            median = mid if comp(a[mid], a[z]) else (z if comp(a[x], a[z]) else x)
        else:
            median = x if comp(a[x], a[z]) else (z if comp(a[mid], a[z]) else mid)
        a[first], a[median] = a[median], a[first]
        low, high = first + 1, last
        while True:
            while comp(a[low], a[first]):
                low += 1
            high -= 1
            while comp(a[first], a[high]):
                high -= 1
            if not low < high:
                return low
            a[low], a[high] = a[high], a[low]
            low += 1

    def nth_element(self, nth):
        first, last = 0, len(self.a)
        if nth == last:
            return
        depth = 2 * (last.bit_length() - 1)
        while last - first > 3:
            if depth == 0:
                self.heap_select(first, nth + 1, last)
                self.a[first], self.a[nth] = self.a[nth], self.a[first]
                return
            depth -= 1
            cut = self.partition_pivot(first, last)
            if cut <= nth:
                first = cut
            else:
                last = cut
        self.insertion_sort(first, last)

    def introsort(self, first, last, depth):
        while last - first > 16:
            if depth == 0:
                self.partial_sort(first, last, last)
                return
            depth -= 1
            cut = self.partition_pivot(first, last)
            self.introsort(cut, last, depth)
            last = cut

    def sort(self, first, last):
        if last - first < 2:
            return
        self.introsort(first, last, 2 * ((last - first).bit_length() - 1))
        if last - first > 16:
            self.insertion_sort(first, first + 16)
            for i in range(first + 16, last):
                self.linear_insert(i)
        else:
            self.insertion_sort(first, last)


def top_pairs(row, k, largest):
    """The indices into the list ``row`` of torch's ``topk(k, largest, sorted=True)``, in
    its order: its libstdc++ calls replayed (NOTE [The order of equal entries in kthvalue
    and topk])."""
    pairs = _Pairs(row, _greater if largest else _less)
    if k == 0:
        return []
    if 64 * k <= len(row):
        pairs.partial_sort(0, k, len(row))
    else:
        pairs.nth_element(k - 1)
        pairs.sort(0, k - 1)
    return [i for _, i in pairs.a[:k]]
