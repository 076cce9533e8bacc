"""``conj()`` as torch has it: a view with the conjugate bit (NOTE [Conjugate views] in
pyx/tensor.pyx). Memory shared both ways, the bits (``is_conj``, ``is_neg``) through views,
copies and ``resolve_*``, autograd through writes into either side (CopySlices, the rebuilt
view grad_fn), forward AD, gradcheck, and torch's refusals, each compared with torch.
"""
import numpy as np
import pytest
import torch

import autograd_cy as ag
from oracle import assert_same, assert_same_error, check_op


def name(t):
    return type(t.grad_fn).__name__


def test_a_conjugate_view_shares_memory_both_ways():
    def fn(T):
        x = T.tensor([1 + 2j, 3 - 1j])
        y = x.conj()
        seen = [y.is_conj(), y._is_view(), y._base is x, y.data_ptr() == x.data_ptr()]
        x[0] = 5 + 5j
        seen.append(y.tolist())
        y[1] = 7 + 7j
        seen.append(x.tolist())
        x.add_(1)
        seen.append(y.tolist())
        y.mul_(2)
        seen.append(x.tolist())
        y[1:].mul_(1j)                       # through a view of the conjugate view
        seen.append(x.tolist())
        y.imag.add_(1)                       # through its imaginary part (negative bit)
        seen.append(x.tolist())
        return seen
    assert_same(fn)


def test_the_bits_through_views_copies_and_resolve():
    def fn(T):
        x = T.tensor([[1 + 2j, 3 - 1j], [0.5j, 2 + 0j]])
        y = x.conj()
        z = y.t()[1:]
        twice = y.conj()
        return [
            z.is_conj(), z._base is x, y.clone().is_conj(), (y + 0).is_conj(),
            y.detach().is_conj(), y.resolve_conj().is_conj(), y.resolve_conj()._is_view(),
            y.conj_physical().is_conj(), y.contiguous().is_conj(), y.reshape(4).is_conj(),
            twice.is_conj(), twice._is_view(), twice.tolist(),
            y.real.is_neg(), y.imag.is_neg(), y.real.tolist(), y.imag.tolist(),
            y.imag.resolve_neg().is_neg(), y.imag.resolve_neg().tolist(),
            x.is_conj(), x.imag.is_neg(), T.tensor([1.0]).conj().is_conj(),
            y.resolve_conj().tolist(), repr(y.detach().cpu()), T.stack([y, x]).tolist()]
    assert_same(fn)


def test_a_real_tensor_is_its_own_conjugate():
    for T in (torch, ag):
        x = T.tensor([1.0, 2.0])
        assert x.conj() is x and x.resolve_conj() is x and x.resolve_neg() is x


@pytest.mark.parametrize("fn", [
    lambda lib, z: z.conj() * z,
    lambda lib, z: z.conj().t()[0] * z[1],
    lambda lib, z: z.conj().imag * z.real,
    lambda lib, z: z.conj().conj().exp(),
], ids=["product", "transposed_row", "imaginary_part", "twice"])
def test_values_and_gradients_through_conjugate_views(fn):
    z = np.array([[1 + 2j, 3 - 1j], [0.5j, -2 + 1j]])
    check_op(fn, z, dtype=np.float64)


def test_writes_into_a_conjugate_view_are_differentiated_as_torch():
    def fn(T):
        a = T.tensor([[1 + 1j, 2 - 1j], [0.5j, 3 + 0j]], dtype=T.complex128,
                     requires_grad=True)
        x = a * 1
        y = x.conj()
        names = [name(y)]
        x.mul_(2)                            # the view's grad_fn is rebuilt
        names.append(name(y))
        y.mul_(1j)                           # the base's becomes CopySlices
        names += [name(x), name(y)]
        x.t()[0].conj().imag.mul_(3)         # a real part of a conjugate view of a view
        (x * x.conj().exp()).real.sum().backward()
        return names, x.tolist(), a.grad.tolist()
    assert_same(fn, rtol=1e-12, atol=1e-12)


def test_the_conjugate_of_a_view_as_complex_is_a_view_of_the_real_numbers():
    def fn(T):
        a = T.tensor([[1.0, 2.0], [3.0, -1.0]], requires_grad=True)
        r = a * 1
        c = T.view_as_complex(r).conj()
        seen = [c.is_conj(), c._base is r, c.tolist()]
        r[0, 1] = 7.0
        seen.append(c.tolist())
        c.mul_(1j)
        seen += [r.tolist(), name(r)]
        r.mul_(2)
        seen += [name(c), c.tolist()]
        (c * T.tensor([1 + 2j, 3j])).real.sum().backward()
        return seen, a.grad.tolist()
    assert_same(fn)


def test_a_conjugate_view_keeps_its_history_after_the_base_changes():
    def fn(T):
        a = T.tensor([1 + 1j, 2 - 1j], dtype=T.complex128, requires_grad=True)
        x = a * 1
        y = x.conj()
        x.mul_(3)
        (y * T.tensor([1j, 2], dtype=T.complex128)).real.sum().backward()
        return y.tolist(), a.grad.tolist()
    assert_same(fn)


def test_saved_conjugate_view_sees_writes_into_its_base():
    assert_same_error(
        lambda T: _square_then_write(T), RuntimeError, "modified by an inplace operation")


def _square_then_write(T):
    a = T.tensor([1 + 1j, 2 - 1j], requires_grad=True)
    x = a * 1
    y = x.conj()
    loss = (y * y).real.sum()
    x.add_(1)
    loss.backward()


@pytest.mark.cpu_only           # numpy() of a CUDA tensor refuses for its device first
@pytest.mark.parametrize("snippet", [
    lambda T: T.tensor([1 + 2j]).conj().numpy(),
    lambda T: T.tensor([1 + 2j]).conj().imag.numpy(),
    lambda T: T.view_as_real(T.tensor([1 + 2j]).conj()),
    lambda T: T.tensor([1 + 2j], requires_grad=True).conj().mul_(2),
], ids=["numpy", "numpy_of_negative_bit", "view_as_real", "view_of_a_leaf"])
def test_refusals_as_torch(snippet):
    assert_same_error(snippet, RuntimeError)


@pytest.mark.cpu_only           # numpy() is the CPU's
def test_numpy_force_resolves_the_bits():
    x = ag.tensor([1 + 2j, 3 - 1j])
    np.testing.assert_array_equal(x.conj().numpy(force=True), [1 - 2j, 3 + 1j])
    np.testing.assert_array_equal(x.conj().imag.numpy(force=True), [-2, 1])
    np.testing.assert_array_equal(np.asarray(ag.tensor(x.conj())), [1 - 2j, 3 + 1j])


def test_inference_mode_conjugate_views_share_memory():
    def fn(T):
        with T.inference_mode():
            x = T.tensor([1 + 1j, 2j])
            y = x.conj()
            y.mul_(2)
            return x.tolist(), y.is_conj()
    assert_same(fn)


def test_forward_ad_tangents_of_conjugate_views_share_memory():
    def fn(T):
        fwAD = T.autograd.forward_ad
        with fwAD.dual_level():
            p = fwAD.make_dual(T.tensor([1 + 1j, 2j]), T.tensor([1 + 0j, 1j]))
            base = p * 1
            view = base.conj()
            base.mul_(2)
            seen = [t.tolist() for t in fwAD.unpack_dual(view)[:2]]
            view.mul_(p)
            seen += [t.tolist() for t in fwAD.unpack_dual(base)[:2]]
            return seen
    assert_same(fn)


def test_gradcheck_through_writes_into_conjugate_views():
    def write_through_conjugate(z):
        w = z * 1
        w.conj()[1:].mul_(z[:1])
        return w

    for T in (torch, ag):
        z = T.tensor([1 + 1j, 2 - 0.5j, -1j], dtype=T.complex128, requires_grad=True)
        assert T.autograd.gradcheck(write_through_conjugate, (z,))
        assert T.autograd.gradgradcheck(write_through_conjugate, (z,))


@pytest.mark.cpu_only           # a write through numpy()
def test_a_new_conjugate_view_reads_writes_that_bumped_no_version():
    x = ag.tensor([1 + 1j, 2j])
    kept = x.conj()
    x.detach().numpy()[0] = 5 + 5j          # NumPy's write: no version counter moves
    assert x.conj().tolist() == [5 - 5j, -2j]
    assert kept.is_conj()


def test_an_operand_with_a_conjugate_or_negative_bit_overlaps_nothing():
    """torch resolves such an operand into memory of its own first (fuzzer seed 87300923:
    no memory-overlap refusal for ``y += y.imag``)."""
    def fn(T):
        x = T.tensor([0.625 + 0.125j, -1 + 2j])
        y = x.conj()
        y += y.imag
        z = T.tensor([1 + 1j, 2 - 1j, 3j])
        z[1:] += z.conj()[:-1]
        return x.tolist(), y.tolist(), z.tolist()
    assert_same(fn)
