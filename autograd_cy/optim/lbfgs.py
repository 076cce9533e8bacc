"""``LBFGS``, as ``torch.optim.LBFGS``: the limited-memory BFGS quasi-Newton method. Each
``step(closure)`` runs up to ``max_iter`` iterations, each moving the parameters (seen as
one flat vector) along ``d = -H g``, where the inverse Hessian ``H`` is approximated from
the last ``history_size`` pairs of parameter and gradient changes (the two-loop
recursion); the step length is ``lr`` (the first iteration's scaled down by the gradient's
size), or one satisfying the strong Wolfe conditions with ``line_search_fn="strong_wolfe"``.

It needs the loss at more than one point per step, so ``closure`` (zero the gradients,
compute the loss, backward, return it) is required. Its state is global, kept as torch
keeps it under the first parameter (``func_evals``, ``n_iter``, the direction ``d``, the
step ``t``, the history ``old_dirs``/``old_stps``/``ro``, ``H_diag``, ...), so that
``state_dict()`` has torch's layout. The arithmetic is Tensor ops, as torch's, on any
device; the scalars it derives (``ys``, ``ro``, ``H_diag``, ``gtd``) stay 0-dim tensors.
"""
from autograd_cy._C.tensor import Tensor
from autograd_cy.grad_mode import enable_grad, no_grad
from autograd_cy.optim.optimizer import Optimizer, _host_scalar

__all__ = ["LBFGS"]


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through two points with their values and slopes,
    clamped to ``bounds`` (the interval of the two points by default); the bounds'
    midpoint when the cubic has no minimum."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square < 0:
        return (xmin_bound + xmax_bound) / 2.0
    d2 = d2_square.sqrt()
    if x1 <= x2:
        min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(min_pos, xmin_bound), xmax_bound)


class _Point:
    """A trial step length ``t`` with the loss, flat gradient and directional derivative
    there."""

    def __init__(self, t, f, g, gtd):
        self.t, self.f, self.g, self.gtd = t, f, g, gtd


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """A step length along ``d`` from ``x`` satisfying the strong Wolfe conditions
    (sufficient decrease, ``c1``, and a flat enough slope, ``c2``): first bracket one,
    extrapolating by cubic interpolation, then shrink the bracket (zoom). Returns
    ``(loss, flat gradient, t, evaluations)``."""
    d_norm = d.abs().max()
    start = _Point(0, f, g.clone(), gtd)
    f_new, g_new = obj_func(x, t, d)
    evals = 1
    new = _Point(t, f_new, g_new, g_new.dot(d))
    prev = start
    done = False
    ls_iter = 0
    bracket = None
    while ls_iter < max_ls:                  # bracketing
        if new.f > (f + c1 * new.t * gtd) or (ls_iter > 1 and new.f >= prev.f):
            bracket = [prev, _Point(new.t, new.f, new.g.clone(), new.gtd)]
            break
        if abs(new.gtd) <= -c2 * gtd:
            bracket = [new]
            done = True
            break
        if new.gtd >= 0:
            bracket = [prev, _Point(new.t, new.f, new.g.clone(), new.gtd)]
            break
        min_step = new.t + 0.01 * (new.t - prev.t)
        max_step = new.t * 10
        t = _cubic_interpolate(prev.t, prev.f, prev.gtd, new.t, new.f, new.gtd,
                               bounds=(min_step, max_step))
        prev = _Point(new.t, new.f, new.g.clone(), new.gtd)
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        new = _Point(t, f_new, g_new, g_new.dot(d))
        ls_iter += 1
    if ls_iter == max_ls:
        bracket = [_Point(0, f, g, None), _Point(new.t, new.f, new.g, None)]
    low, high = (0, 1) if bracket[0].f <= bracket[-1].f else (1, 0)
    insufficient_progress = False
    while not done and ls_iter < max_ls:     # zoom
        ends = [p.t for p in bracket]
        if abs(ends[1] - ends[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0].t, bracket[0].f, bracket[0].gtd,
                               bracket[1].t, bracket[1].f, bracket[1].gtd)
        # NOTE [Zooming away from the bracket's ends]
        # A trial point within a tenth of the bracket's length of one end makes little
        # progress; the second time in a row (or when it is at or past the end) it is
        # moved to a tenth of the length inside.
        eps = 0.1 * (max(ends) - min(ends))
        if min(max(ends) - t, t - min(ends)) < eps:
            if insufficient_progress or t >= max(ends) or t <= min(ends):
                t = max(ends) - eps if abs(t - max(ends)) < abs(t - min(ends)) else \
                    min(ends) + eps
                insufficient_progress = False
            else:
                insufficient_progress = True
        else:
            insufficient_progress = False
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        new = _Point(t, f_new, g_new.clone(), g_new.dot(d))
        ls_iter += 1
        if new.f > (f + c1 * t * gtd) or new.f >= bracket[low].f:
            bracket[high] = new              # not low enough: the new high end
            low, high = (0, 1) if bracket[0].f <= bracket[1].f else (1, 0)
        else:
            if abs(new.gtd) <= -c2 * gtd:
                done = True
            elif new.gtd * (bracket[high].t - bracket[low].t) >= 0:
                bracket[high] = bracket[low]     # the old low becomes the high end
            bracket[low] = new
    best = bracket[low]
    return best.f, best.g, best.t, evals


class LBFGS(Optimizer):
    """``LBFGS(params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
    tolerance_change=1e-9, history_size=100, line_search_fn=None)``; ``max_eval``
    defaults to ``max_iter * 5 // 4``. One parameter group only."""

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                    "tolerance_grad": tolerance_grad, "tolerance_change": tolerance_change,
                    "history_size": history_size, "line_search_fn": line_search_fn}
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    def __getstate__(self):
        return {**super().__getstate__(), "_params": self._params, "_numel_cache": None}

    # ---------------------------------------------------------- the flat vector

    def _numel(self):
        """The length of the flat vector (a complex parameter counts twice)."""
        if self._numel_cache is None:
            self._numel_cache = sum(2 * p.numel() if p.is_complex() else p.numel()
                                    for p in self._params)
        return self._numel_cache

    def _gather_flat_grad(self):
        """Every parameter's gradient as one flat vector (zeros for a missing one)."""
        from autograd_cy import cat, view_as_real
        views = []
        for p in self._params:
            view = p.new_zeros(p.numel()) if p.grad is None else p.grad.reshape(-1)
            if view.is_complex():
                view = view_as_real(view).reshape(-1)
            views.append(view)
        return cat(views, 0)

    def _add_grad(self, step_size, update):
        """``params += step_size * update``, ``update`` a flat vector."""
        from autograd_cy import view_as_real
        offset = 0
        for p in self._params:
            if p.is_complex():
                p = view_as_real(p)
            numel = p.numel()
            p.add_(update[offset:offset + numel].view_as(p), alpha=step_size)
            offset += numel
        assert offset == self._numel()

    def _clone_param(self):
        return [p.clone() for p in self._params]

    def _set_param(self, params_data):
        for p, data in zip(self._params, params_data):
            p.copy_(data)

    def _directional_evaluate(self, closure, x, t, d):
        """The loss and flat gradient at ``x + t * d``; the parameters are then put back
        to ``x``."""
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    # ---------------------------------------------------------- the step

    def step(self, closure):
        """Up to ``max_iter`` L-BFGS iterations, ``closure`` evaluating the loss and the
        gradients (with grad mode on); returns the first evaluation's loss."""
        with no_grad():
            return self._run(closure)

    def _run(self, closure):
        def evaluate():
            with enable_grad():
                return closure()
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        if isinstance(lr, Tensor):
            lr = _host_scalar(lr)           # NOTE [A Tensor lr]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = evaluate()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        opt_cond = flat_grad.abs().max() <= tolerance_grad
        if opt_cond:
            return orig_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag = state.get("H_diag")
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:            # the first direction: steepest descent
                d = flat_grad.neg()
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad.sub(prev_flat_grad)
                s = d.mul(t)
                ys = y.dot(s)
                if ys > 1e-10:                  # curvature positive: remember the pair
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                if "al" not in state:
                    state["al"] = [None] * history_size
                d = _two_loop_direction(flat_grad, old_dirs, old_stps, ro, H_diag,
                                        state["al"])
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone()
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss

            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)              # the directional derivative
            if gtd > -tolerance_change:
                break
            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def obj_func(x, t, d):
                    return self._directional_evaluate(evaluate, x, t, d)
                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd,
                    max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_grad(t, d)            # a fixed step
                if n_iter != max_iter:          # the last iteration's loss is not needed
                    loss = float(evaluate())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max() <= tolerance_change:       # no progress
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        state.update({"d": d, "t": t, "old_dirs": old_dirs, "old_stps": old_stps, "ro": ro,
                      "H_diag": H_diag, "prev_flat_grad": prev_flat_grad,
                      "prev_loss": prev_loss})
        return orig_loss


def _two_loop_direction(flat_grad, old_dirs, old_stps, ro, H_diag, al):
    """``-H g`` by the two-loop recursion over the remembered pairs (newest first, then
    oldest first), ``H_diag`` scaling the initial inverse Hessian; ``al`` is the state's
    buffer of the first loop's coefficients."""
    from autograd_cy import mul
    q = flat_grad.neg()
    for i in range(len(old_dirs) - 1, -1, -1):
        al[i] = old_stps[i].dot(q) * ro[i]
        q.add_(old_dirs[i], alpha=-al[i])
    d = r = mul(q, H_diag)
    for i in range(len(old_dirs)):
        be_i = old_dirs[i].dot(r) * ro[i]
        r.add_(old_stps[i], alpha=al[i] - be_i)
    return d
