"""The wider op vocabulary of the fuzzer: op families that users' autograd programs draw on
beyond elementwise arithmetic, shapes and indexing (a mixin of ``generator.Generator``).

nn.functional activations, losses and normalisations; scans and softmax with ``dim`` and
``dtype``; sort/topk/kthvalue/median values and indices; scatter/index/masked writes;
linalg on small square matrices (made well conditioned: ``A + 3I``, ``A A^T + I``); pad,
einsum, flip/roll; lerp/addcmul/addcdiv, clamp with tensor bounds, where with two
broadcasting branches; in-place ops on views; norms and var/std with ``correction``.

Every maker returns one ``Op`` (or None); its operands may be made with ``run_now``, so
torch's refusals (a wrong dim, a complex dtype an op has no kernel for) drop the op as in
the generator's own families.
"""
from tests.fuzz.program import DType, IndexTensor, Op, Ref

ACTIVATIONS = ["elu", "selu", "celu", "hardtanh", "hardswish", "hardsigmoid", "mish",
               "softsign", "tanhshrink", "logsigmoid", "relu6", "glu", "softshrink",
               "hardshrink", "threshold", "prelu", "rrelu", "softmin", "silu", "gelu",
               "leaky_relu", "softplus"]
MATH_UNARY = ["erf", "erfc", "lgamma", "digamma", "sinc", "logit", "nan_to_num", "frac",
              "trunc", "round", "floor", "ceil", "sgn", "log2", "log10", "exp2", "deg2rad",
              "i0", "erfinv"]
MATH_BINARY = ["atan2", "hypot", "fmod", "remainder", "logaddexp", "logaddexp2", "xlogy",
               "copysign", "float_power", "true_divide", "fmax", "fmin"]
LOSSES = ["smooth_l1_loss", "huber_loss", "kl_div", "soft_margin_loss",
          "margin_ranking_loss", "hinge_embedding_loss", "cosine_embedding_loss",
          "poisson_nll_loss", "gaussian_nll_loss", "triplet_margin_loss",
          "multilabel_soft_margin_loss", "multi_margin_loss", "cosine_similarity",
          "pairwise_distance"]
VIEW_INPLACE = ["mul_", "add_", "sub_", "div_", "clamp_", "lerp_", "addcmul_", "addcdiv_",
                "copy_", "fill_", "zero_", "exp_", "sigmoid_", "tanh_", "masked_fill_",
                "index_fill_", "clamp_min_", "clamp_max_", "pow_", "neg_"]


class MoreOps:
    """Op families of the wider vocabulary (their weights: ``MORE_FAMILIES``)."""

    def _shape(self, x):
        return tuple(self.value(x).shape)

    def const(self, data, dtype):
        """A leaf that needs no gradient, with the given values."""
        return self.run_now(Op("leaf", "tensor", (data, dtype, False), label="tensor"))

    def signs(self, shape, dtype):
        """A leaf of -1 and 1 (targets of the margin losses)."""
        rng = self.rng

        def build(dims):
            if not dims:
                return rng.choice([-1.0, 1.0])
            return [build(dims[1:]) for _ in range(dims[0])]
        return self.const(build(list(shape)), dtype)

    def op_activation(self):
        rng, x = self.rng, self.pick()
        shape = self._shape(x)
        name = rng.choice(ACTIVATIONS)
        kwargs, args = {}, (x,)
        if name in ("elu", "celu"):
            kwargs = {"alpha": rng.choice([1.0, 0.5, 2.0])}
        elif name == "hardtanh":
            low = self.number()
            kwargs = {"min_val": low, "max_val": low + rng.choice([0.5, 1.0, 2.0])}
        elif name in ("softshrink", "hardshrink"):
            kwargs = {"lambd": rng.choice([0.5, 0.25, 1.0])}
        elif name == "threshold":
            args = (x, self.number(), self.number())
        elif name == "glu":
            kwargs = {"dim": self.dim(x)}
        elif name == "prelu":
            channels = shape[1] if len(shape) >= 2 and rng.random() < 0.6 else 1
            args = (x, self.leaf((channels,), self.dtype_like(x), positive=True))
        elif name == "rrelu":
            kwargs = {"lower": 0.125, "upper": 0.25, "training": False}
        elif name == "softmin":
            kwargs = {"dim": self.dim(x)}
        elif name == "gelu":
            kwargs = {"approximate": "tanh"}      # oneDNN's exact gelu rounds its own way
        elif name == "leaky_relu":
            kwargs = {"negative_slope": rng.choice([0.01, 0.2, -0.5])}
        elif name == "softplus":
            kwargs = {"beta": rng.choice([1.0, 3.0]), "threshold": rng.choice([20.0, 0.5])}
        if rng.random() < 0.15 and name in ("elu", "celu", "selu", "hardtanh", "relu6",
                                            "hardswish", "hardsigmoid", "mish", "silu",
                                            "threshold", "rrelu", "leaky_relu"):
            x = self.inplace_target()
            if x is None:
                return None
            kwargs["inplace"] = True
            return Op("F", name, (x,) + args[1:], kwargs,
                      label=self._view_label(f"F.{name}(inplace)", x), mutates=True)
        return Op("F", name, args, kwargs, label=f"F.{name}")

    def op_math(self):
        rng, x = self.rng, self.pick()
        if rng.random() < 0.55:
            name = rng.choice(MATH_UNARY)
            args, kwargs = (x,), {}
            if name == "logit" and rng.random() < 0.5:
                kwargs = {"eps": rng.choice([1e-6, 0.125])}
            elif name == "nan_to_num":
                kwargs = {"nan": 0.5, "posinf": 2.0} if rng.random() < 0.5 else {}
            elif name == "round" and rng.random() < 0.4:
                kwargs = {"decimals": rng.choice([1, 2, -1])}
            elif name in ("logit", "erfinv"):
                # a probability-like operand, inside the domain most of the time
                x = self.run_now(Op("method", "tanh" if name == "erfinv" else "sigmoid",
                                    (x,), label=name))
                args = (x,)
            if rng.random() < 0.5:
                return Op("fn", name, args, kwargs, label=name)
            return Op("method", name, args, kwargs, label=name)
        name = rng.choice(MATH_BINARY)
        other = self.scalar() if rng.random() < 0.25 and name in (
            "fmod", "remainder", "float_power", "true_divide", "xlogy") else self.partner(x)
        if rng.random() < 0.2 and isinstance(other, Ref):
            x, other = other, x
        if name == "float_power" and isinstance(other, Ref):
            other = self.run_now(Op("fn", "round", (other,), label="round"))
        return Op("fn", name, (x, other), label=name)

    def op_loss(self):
        rng, x = self.rng, self.pick()
        shape = self._shape(x)
        dtype = self.dtype_like(x)
        name = rng.choice(LOSSES)
        reduction = rng.choice(["mean", "sum", "none"])
        kwargs = {"reduction": reduction}
        if name in ("smooth_l1_loss", "huber_loss"):
            kwargs["beta" if name == "smooth_l1_loss" else "delta"] = rng.choice(
                [1.0, 0.5, 2.0])
            return Op("F", name, (x, self.leaf(shape, dtype)), kwargs, label=f"F.{name}")
        if name == "kl_div":
            log_target = rng.random() < 0.4
            target = self.leaf(shape, dtype, positive=not log_target)
            kwargs["log_target"] = log_target
            if rng.random() < 0.3:
                kwargs["reduction"] = "batchmean"
            return Op("F", name, (x, target), kwargs, label="F.kl_div")
        if name == "soft_margin_loss":
            return Op("F", name, (x, self.signs(shape, dtype)), kwargs, label=f"F.{name}")
        if name == "margin_ranking_loss":
            kwargs["margin"] = rng.choice([0.0, 0.5])
            return Op("F", name, (x, self.leaf(shape, dtype), self.signs(shape, dtype)),
                      kwargs, label=f"F.{name}")
        if name == "hinge_embedding_loss":
            kwargs["margin"] = rng.choice([1.0, 0.5])
            return Op("F", name, (x, self.signs(shape, dtype)), kwargs, label=f"F.{name}")
        if name == "poisson_nll_loss":
            kwargs["log_input"] = rng.random() < 0.6
            kwargs["full"] = rng.random() < 0.3
            return Op("F", name, (x, self.leaf(shape, dtype, positive=True)), kwargs,
                      label=f"F.{name}")
        if name == "gaussian_nll_loss":
            var = self.leaf(shape if rng.random() < 0.7 else shape[:-1] + (1,) if shape
                            else (), dtype, positive=True)
            kwargs["full"] = rng.random() < 0.3
            return Op("F", name, (x, self.leaf(shape, dtype), var), kwargs,
                      label=f"F.{name}")
        if name in ("cosine_similarity", "pairwise_distance"):
            other = self.partner(x)
            if name == "cosine_similarity":
                return Op("F", name, (x, other), {"dim": self.dim(x)}, label=f"F.{name}")
            return Op("F", name, (x, other), {"p": rng.choice([2.0, 1.0, 3.0]),
                                              "keepdim": rng.random() < 0.3},
                      label=f"F.{name}")
        if len(shape) not in (1, 2) or 0 in shape:
            return None
        if name == "cosine_embedding_loss":
            target = self.signs(shape[:1] if len(shape) == 2 else (), dtype)
            kwargs["margin"] = rng.choice([0.0, 0.5])
            return Op("F", name, (x, self.leaf(shape, dtype), target), kwargs,
                      label=f"F.{name}")
        if name == "triplet_margin_loss":
            kwargs.update(margin=rng.choice([1.0, 0.5]), p=rng.choice([2.0, 1.0]),
                          swap=rng.random() < 0.3)
            return Op("F", name, (x, self.leaf(shape, dtype), self.leaf(shape, dtype)),
                      kwargs, label=f"F.{name}")
        if name == "multilabel_soft_margin_loss":
            target = self.const(self.mask(shape).values, dtype)
            return Op("F", name, (x, target), kwargs, label=f"F.{name}")
        classes = shape[-1]
        target = IndexTensor([rng.randrange(classes) for _ in range(shape[0])]
                             if len(shape) == 2 else rng.randrange(classes))
        kwargs.update(p=rng.choice([1, 2]), margin=rng.choice([1.0, 0.5]))
        if rng.random() < 0.3:
            kwargs["weight"] = self.leaf((classes,), dtype, positive=True)
        return Op("F", name, (x, target), kwargs, label=f"F.{name}")

    def op_normalization(self):
        rng, x = self.rng, self.pick()
        shape = self._shape(x)
        nd, dtype = len(shape), self.dtype_like(x)
        name = rng.choice(["layer_norm", "normalize", "batch_norm", "group_norm",
                           "instance_norm", "rms_norm", "local_response_norm"])
        eps = rng.choice([1e-5, 0.25])
        if name == "normalize":
            return Op("F", name, (x,), {"p": rng.choice([2.0, 1.0, 3.0]),
                                        "dim": self.dim(x)}, label="F.normalize")
        if name in ("layer_norm", "rms_norm"):
            if nd == 0:
                return None
            k = rng.randint(1, min(nd, 2))
            normalized = shape[nd - k:]
            args = (x, normalized)
            kwargs = {"eps": eps}
            if rng.random() < 0.6:
                kwargs["weight"] = self.leaf(normalized, dtype)
            if name == "layer_norm" and rng.random() < 0.5:
                kwargs["bias"] = self.leaf(normalized, dtype)
            return Op("F", name, args, kwargs, label=f"F.{name}")
        if nd < 2 or 0 in shape:
            return None
        channels = shape[1]
        kwargs = {"eps": eps}
        if name == "local_response_norm":
            return Op("F", name, (x, rng.choice([1, 2, 3])), {"alpha": 0.5, "k": 1.0},
                      label="F.local_response_norm")
        if name == "group_norm":
            groups = rng.choice([g for g in (1, 2, 3) if channels % g == 0])
            if rng.random() < 0.6:
                kwargs["weight"] = self.leaf((channels,), dtype)
                kwargs["bias"] = self.leaf((channels,), dtype)
            return Op("F", name, (x, groups), kwargs, label="F.group_norm")
        if rng.random() < 0.5:
            kwargs["weight"] = self.leaf((channels,), dtype)
            kwargs["bias"] = self.leaf((channels,), dtype)
        if name == "instance_norm":
            return Op("F", name, (x,), kwargs, label="F.instance_norm")
        training = rng.random() < 0.6
        if training:
            mean = var = None
            if rng.random() < 0.5:      # running statistics, updated in place
                mean = self.leaf((channels,), dtype, requires_grad=False)
                var = self.leaf((channels,), dtype, requires_grad=False, positive=True)
        else:
            mean = self.leaf((channels,), dtype, requires_grad=False)
            var = self.leaf((channels,), dtype, requires_grad=False, positive=True)
        kwargs.update(training=training, momentum=rng.choice([0.1, 0.5]))
        return Op("F", "batch_norm", (x, mean, var), kwargs, label="F.batch_norm",
                  mutates=mean is not None and training)

    def op_scan(self):
        rng, x = self.rng, self.pick()
        name = rng.choice(["cumsum", "cumprod", "cummax", "cummin", "logcumsumexp",
                           "softmax", "log_softmax", "cumsum_"])
        d = self.dim(x)
        if name in ("cummax", "cummin"):
            return Op("method", name, (x, d), nout=2, label=name)
        if name == "cumsum_":
            x = self.inplace_target()
            if x is None:
                return None
            return Op("method", name, (x, self.dim(x)),
                      label=self._view_label("cumsum_", x), mutates=True)
        kwargs = {"dim": d}
        if name != "logcumsumexp" and rng.random() < 0.3:
            kwargs["dtype"] = DType(rng.choice(["float64", "float32"]))
        if name in ("softmax", "log_softmax"):
            return Op("F", name, (x,), kwargs, label=f"F.{name} (dim, dtype)")
        if rng.random() < 0.5:
            return Op("fn", name, (x,), kwargs, label=name)
        return Op("method", name, (x,), kwargs, label=name)

    def tie_free(self, x):
        """``x`` plus a ramp of distinct small steps, so that it has no equal entries: which
        of equal entries torch's topk/kthvalue/median/unstable sort pick (and so where the
        gradient goes) is its kernel's choice, no rule to agree with."""
        shape = self._shape(x)
        count = self.value(x).numel()
        step = 2.0 ** -10 if self.family in ("real", "complex") else 2.0 ** -5
        order = list(range(count))
        self.rng.shuffle(order)
        ramp = [k * step for k in order]

        def build(dims, flat):
            if not dims:
                return flat.pop()
            return [build(dims[1:], flat) for _ in range(dims[0])]
        data = build(list(shape), ramp)
        return self.run_now(Op("op", "add", (x, self.const(data, self.dtype_like(x))),
                               label="add"))

    def op_sort(self):
        rng, x = self.rng, self.pick()
        shape = self._shape(x)
        name = rng.choice(["sort", "topk", "kthvalue", "median", "msort", "argsort",
                           "sort", "topk", "stable sort"])
        d = self.dim(x)
        size = shape[d] if shape else 1
        if name in ("stable sort", "argsort"):     # ties kept: a stable sort orders them
            kwargs = {"dim": d, "descending": rng.random() < 0.5, "stable": True}
            if name == "argsort":
                return Op("method", "argsort", (x,), kwargs, label="argsort")
            return Op("method", "sort", (x,), kwargs, nout=2, label="sort (stable)")
        x = self.tie_free(x)
        if name == "sort":
            return Op("method", "sort", (x,), {"dim": d, "descending": rng.random() < 0.5},
                      nout=2, label="sort")
        if name == "msort":
            return Op("fn", "msort", (x,), label="msort")
        if name == "topk":
            k = rng.randint(0, size)
            return Op("method", "topk", (x, k), {"dim": d, "largest": rng.random() < 0.6,
                                                 "sorted": True}, nout=2, label="topk")
        if name == "kthvalue":
            k = rng.randint(1, max(size, 1))
            return Op("method", "kthvalue", (x, k, d), {"keepdim": rng.random() < 0.3},
                      nout=2, label="kthvalue")
        if rng.random() < 0.3:
            return Op("method", "median", (x,), label="median (all)")
        return Op("method", "median", (x, d), {"keepdim": rng.random() < 0.3}, nout=2,
                  label="median (dim)")

    def index_like(self, shape, size):
        rng = self.rng

        def build(dims):
            if not dims:
                return rng.randrange(size)
            return [build(dims[1:]) for _ in range(dims[0])]
        return IndexTensor(build(list(shape)))

    def op_scatter(self):
        rng, x = self.rng, self.pick()
        shape = self._shape(x)
        nd, dtype = len(shape), self.dtype_like(x)
        if nd == 0 or 0 in shape:
            return None
        d = self.dim(x)
        size = shape[d]
        name = rng.choice(["scatter", "scatter_value", "scatter_reduce", "index_fill",
                           "index_copy", "masked_scatter", "masked_select", "take",
                           "take_along_dim", "index_reduce", "select_scatter",
                           "slice_scatter", "diagonal_scatter"])
        if name in ("scatter", "scatter_value", "scatter_reduce", "take_along_dim"):
            ishape = [rng.randint(1, s) for s in shape]
            if name == "take_along_dim":
                ishape[d] = rng.randint(1, 3)
            idx = self.index_like(ishape, size)
            if name == "take_along_dim":
                return Op("fn", name, (x, idx), {"dim": d}, label=name)
            if name == "scatter_value":
                return Op("method", "scatter", (x, d, idx, self.number()),
                          label="scatter (value)")
            src = self.leaf(tuple(ishape), dtype)
            if name == "scatter":
                return Op("method", "scatter", (x, d, idx, src), label="scatter")
            reduce = rng.choice(["sum", "prod", "mean", "amax", "amin"])
            return Op("method", "scatter_reduce", (x, d, idx, src, reduce),
                      {"include_self": rng.random() < 0.6}, label=f"scatter_reduce ({reduce})")
        if name in ("index_fill", "index_copy", "index_reduce"):
            count = rng.randint(1, 3)
            values = [rng.randrange(size) for _ in range(count)]
            if name == "index_copy":
                values = rng.sample(range(size), min(count, size))
            idx = IndexTensor(values)
            if name == "index_fill":
                return Op("method", name, (x, d, idx, self.number()), label=name)
            src_shape = list(shape)
            src_shape[d] = len(values)
            src = self.leaf(tuple(src_shape), dtype)
            if name == "index_copy":
                return Op("method", name, (x, d, idx, src), label=name)
            reduce = rng.choice(["prod", "mean", "amax", "amin"])
            return Op("method", name, (x, d, idx, src, reduce),
                      {"include_self": rng.random() < 0.6}, label=f"index_reduce ({reduce})")
        if name in ("masked_scatter", "masked_select"):
            mask = self.mask(self.broadcast_shape(shape, grow=False))
            if name == "masked_select":
                return Op("method", name, (x, mask), label=name)
            return Op("method", name, (x, mask, self.leaf(shape, dtype)), label=name)
        if name == "take":
            numel = self.value(x).numel()
            return Op("fn", "take", (x, self.index_like([rng.randint(1, 4)], numel)),
                      label="take")
        if name == "select_scatter":
            index = rng.randrange(size)
            src = self.leaf(shape[:d % nd] + shape[d % nd + 1:], dtype)
            return Op("fn", name, (x, src, d, index), label=name)
        if name == "slice_scatter":
            start = rng.randint(0, size - 1)
            step = rng.choice([1, 1, 2])
            length = len(range(start, size, step))
            src_shape = list(shape)
            src_shape[d] = length
            return Op("fn", name, (x, self.leaf(tuple(src_shape), dtype)),
                      {"dim": d, "start": start, "step": step}, label=name)
        if nd < 2:
            return None
        offset = rng.choice([0, 0, 1, -1])
        length = self.value(x).diagonal(offset).shape[-1]
        src = self.leaf(shape[2:] + (length,), dtype)
        return Op("fn", name, (x, src), {"offset": offset}, label=name)

    # ------------------------------------------------------------ linalg

    def square(self, x, kind="general"):
        """A small square matrix (batch) from ``x`` (or a fresh leaf), conditioned:
        ``general``: ``A + 3I``; ``symmetric``: ``A + A^T``; ``pd``: ``A A^T + I``."""
        rng = self.rng
        shape = self._shape(x)
        dtype = self.dtype_like(x)
        if len(shape) < 2 or shape[-1] != shape[-2] or 0 in shape or len(shape) > 3:
            n = rng.choice([1, 2, 3, 3])
            batch = (rng.choice([1, 2]),) if rng.random() < 0.3 else ()
            x = self.leaf(batch + (n, n), dtype, requires_grad=True)
            shape = self._shape(x)
        n = shape[-1]
        if kind == "general":
            eye = self.const([[3.0 if i == j else 0.0 for j in range(n)] for i in range(n)],
                             dtype)
            return self.run_now(Op("op", "add", (x, eye), label="add"))
        transposed = self.run_now(Op("attr", "mT", (x,), label="mT"))
        if kind == "symmetric":
            return self.run_now(Op("op", "add", (x, transposed), label="add"))
        product = self.run_now(Op("op", "matmul", (x, transposed), label="matmul (@)"))
        eye = self.const([[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)],
                         dtype)
        return self.run_now(Op("op", "add", (product, eye), label="add"))

    def op_linalg(self):
        rng, x = self.rng, self.pick()
        name = rng.choice(["det", "slogdet", "inv", "solve", "cholesky", "qr", "eigvalsh",
                           "svdvals", "matrix_norm", "matrix_power", "matrix_exp", "logdet",
                           "trace", "diag", "diagonal", "triu", "tril", "outer", "kron",
                           "tensordot", "addmv", "addr", "baddbmm", "cross", "multi_dot",
                           "solve_triangular", "pinv"])
        dtype = self.dtype_like(x)
        if name in ("det", "inv", "matrix_exp", "slogdet", "logdet", "solve", "matrix_power",
                    "solve_triangular"):
            a = self.square(x, "pd" if name == "logdet" else "general")
            n = self._shape(a)[-1]
            if name == "slogdet":
                return Op("linalg", "slogdet", (a,), nout=2, label="linalg.slogdet")
            if name == "solve":
                b = self.leaf((n,) if rng.random() < 0.3 else (n, rng.choice([1, 2])), dtype)
                return Op("linalg", "solve", (a, b), label="linalg.solve")
            if name == "solve_triangular":
                upper = rng.random() < 0.5
                a = self.run_now(Op("fn", "triu" if upper else "tril", (a,), label="triu"))
                b = self.leaf((n, rng.choice([1, 2])), dtype)
                return Op("linalg", name, (a, b), {"upper": upper,
                                                   "left": True}, label="linalg." + name)
            if name == "matrix_power":
                return Op("linalg", name, (a, rng.choice([0, 1, 2, 3, -1, -2])),
                          label="linalg.matrix_power")
            if name == "logdet":
                return Op("fn", "logdet", (a,), label="logdet")
            return Op("linalg", name, (a,), label=f"linalg.{name}")
        if name in ("cholesky", "eigvalsh"):
            a = self.square(x, "pd" if name == "cholesky" else "symmetric")
            kwargs = {"upper": rng.random() < 0.3} if name == "cholesky" else {}
            return Op("linalg", name, (a,), kwargs, label=f"linalg.{name}")
        shape = self._shape(x)
        nd = len(shape)
        if name in ("qr", "svdvals", "pinv"):
            if nd != 2 or 0 in shape:
                return None
            if name == "qr":
                a = self.square(x, "general")
                return Op("linalg", "qr", (a,), nout=2, label="linalg.qr")
            return Op("linalg", name, (self.square(x, "general") if name == "pinv" else x,),
                      label=f"linalg.{name}")
        if name == "matrix_norm":
            if nd < 2:
                return None
            order = rng.choice(["fro", "nuc", 1, -1, float("inf"), 2])
            return Op("linalg", name, (x,), {"ord": order, "keepdim": rng.random() < 0.3},
                      label=f"linalg.matrix_norm ({order})")
        if name in ("trace", "diag", "triu", "tril", "diagonal"):
            if name == "trace":
                return Op("method", "trace", (x,), label="trace")
            offset = rng.choice([0, 0, 1, -1])
            if name == "diagonal":
                return Op("method", "diagonal", (x,), {"offset": offset,
                                                       "dim1": self.dim(x),
                                                       "dim2": self.dim(x)}, label="diagonal")
            return Op("fn", name, (x, offset), label=name)
        if name in ("outer", "kron"):
            other = self.leaf(self.random_shape(1 if name == "outer" else 2), dtype)
            return Op("fn", name, (x, other), label=name)
        if name == "tensordot":
            k = rng.randint(0, min(nd, 2))
            other = self.leaf(shape[nd - k:] + ((rng.choice([1, 2]),) if rng.random() < 0.7
                                                else ()), dtype)
            return Op("fn", name, (x, other), {"dims": k}, label="tensordot")
        if name == "cross":
            if 3 not in shape:
                return None
            d = shape.index(3)
            return Op("linalg", "cross", (x, self.partner(x, grow=False)), {"dim": d},
                      label="linalg.cross")
        if name == "multi_dot":
            if nd != 2:
                return None
            mid = self.leaf((shape[1], rng.choice([1, 2, 3])), dtype)
            last = self.leaf((self._shape(mid)[1],) if rng.random() < 0.4 else
                             (self._shape(mid)[1], 2), dtype)
            return Op("linalg", "multi_dot", ([x, mid, last],), label="linalg.multi_dot")
        beta, alpha = rng.choice([(1, 1), (0.5, 2), (0, -1)])
        if name == "addmv":
            if nd != 2:
                return None
            return Op("fn", name, (self.leaf((shape[0],), dtype), x,
                                   self.leaf((shape[1],), dtype)),
                      {"beta": beta, "alpha": alpha}, label="addmv")
        if name == "addr":
            if nd != 1:
                return None
            other = self.leaf((rng.choice([1, 2, 3]),), dtype)
            bias = self.leaf((shape[0], self._shape(other)[0]), dtype)
            return Op("fn", name, (bias, x, other), {"beta": beta, "alpha": alpha},
                      label="addr")
        if nd != 3:
            return None
        other = self.leaf((shape[0], shape[2], rng.choice([1, 2])), dtype)
        bias = self.leaf((shape[1], self._shape(other)[2]), dtype)
        return Op("fn", "baddbmm", (bias, x, other), {"beta": beta, "alpha": alpha},
                  label="baddbmm")

    # ------------------------------------------------------------ layout

    def op_layout(self):
        rng, x = self.rng, self.pick()
        shape = self._shape(x)
        nd, dtype = len(shape), self.dtype_like(x)
        name = rng.choice(["pad", "pad", "einsum", "einsum", "flip", "roll", "rot90", "diff",
                           "tile", "repeat_interleave", "tril_indices_gather"])
        if name == "pad":
            mode = rng.choice(["constant", "constant", "reflect", "replicate", "circular"])
            k = rng.randint(1, max(1, min(nd, 3)))
            pads = tuple(rng.choice([0, 1, 2, -1] if mode == "constant" else [0, 1, 1, 2])
                         for _ in range(2 * k))
            kwargs = {"mode": mode}
            if mode == "constant" and rng.random() < 0.5:
                kwargs["value"] = self.number()
            return Op("F", "pad", (x, pads), kwargs, label=f"F.pad ({mode})")
        if name == "einsum":
            return self.einsum(x, shape, dtype)
        if name == "flip":
            dims = tuple(sorted(set(self.dim(x) for _ in range(rng.randint(1, 2)))))
            return Op("method", "flip", (x, dims), label="flip")
        if name == "roll":
            if rng.random() < 0.3:
                return Op("method", "roll", (x, rng.randint(-3, 3)), label="roll")
            return Op("method", "roll", (x, rng.randint(-3, 3), self.dim(x)), label="roll")
        if name == "rot90":
            if nd < 2:
                return None
            a, b = rng.sample(range(nd), 2)
            return Op("method", "rot90", (x, rng.randint(-2, 3), (a, b)), label="rot90")
        if name == "diff":
            kwargs = {"n": rng.choice([1, 1, 2]), "dim": self.dim(x)}
            if rng.random() < 0.3 and nd:
                pre = list(shape)
                pre[kwargs["dim"]] = 1
                kwargs["prepend"] = self.leaf(tuple(pre), dtype)
            return Op("fn", "diff", (x,), kwargs, label="diff")
        if name == "tile":
            return Op("method", "tile", (x, tuple(rng.choice([1, 2]) for _ in
                                                  range(rng.randint(1, 3)))), label="tile")
        if name == "repeat_interleave":
            return Op("method", "repeat_interleave", (x, rng.choice([1, 2])),
                      {"dim": self.dim(x)} if nd and rng.random() < 0.7 else {},
                      label="repeat_interleave")
        if nd < 2:
            return None
        rows, cols = shape[-2], shape[-1]
        indices = [(i, j) for i in range(rows) for j in range(cols) if j <= i]
        if not indices:
            return None
        first = IndexTensor([i for i, _ in indices])
        second = IndexTensor([j for _, j in indices])
        return Op("op", "getitem", (x, (Ellipsis, first, second)),
                  label="getitem[lower triangle]")

    def einsum(self, x, shape, dtype):
        rng = self.rng
        letters = "abcd"[:len(shape)]
        if not shape:
            return Op("fn", "einsum", ("->", x), label="einsum")
        choice = rng.choice(["transpose", "reduce", "contract", "outer", "diag", "batch"])
        if choice == "transpose":
            out = list(letters)
            rng.shuffle(out)
            return Op("fn", "einsum", (f"{letters}->{''.join(out)}", x), label="einsum")
        if choice == "reduce":
            keep = "".join(c for c in letters if rng.random() < 0.5)
            return Op("fn", "einsum", (f"{letters}->{keep}", x), label="einsum")
        if choice == "diag":
            if len(shape) < 2 or shape[0] != shape[1]:
                return None
            eq = "ii" + letters[2:] + "->" + rng.choice(["i", ""]) + letters[2:]
            return Op("fn", "einsum", (eq, x), label="einsum")
        if choice == "outer":
            other = self.leaf((rng.choice([1, 2, 3]),), dtype)
            return Op("fn", "einsum", (f"{letters},z->{letters}z", x, other),
                      label="einsum")
        if choice == "batch" and len(shape) >= 2:
            other = self.leaf(shape[:-1] + (rng.choice([1, 2]),), dtype)
            if rng.random() < 0.3:
                return Op("fn", "einsum", (f"...{letters[-1]},...z->...{letters[-1]}z", x,
                                           other), label="einsum (ellipsis)")
            return Op("fn", "einsum", (f"{letters},{letters[:-1]}z->{letters}z", x, other),
                      label="einsum")
        last = letters[-1]
        other = self.leaf((shape[-1], rng.choice([1, 2])), dtype)
        return Op("fn", "einsum", (f"{letters},{last}z->{letters[:-1]}z", x, other),
                  label="einsum")

    # ------------------------------------------------------------ blends and bounds

    def op_blend(self):
        rng, x = self.rng, self.pick()
        shape = self._shape(x)
        dtype = self.dtype_like(x)
        name = rng.choice(["lerp", "addcmul", "addcdiv", "clamp_tensor", "clamp_min",
                           "clamp_max", "where_broadcast"])
        if name == "lerp":
            weight = self.number() if rng.random() < 0.4 else self.partner(x, grow=False)
            return Op("method", "lerp", (x, self.partner(x, grow=False), weight), label="lerp")
        if name in ("addcmul", "addcdiv"):
            kwargs = {"value": rng.choice([1, 0.5, -2])} if rng.random() < 0.5 else {}
            t2 = self.partner(x)
            if name == "addcdiv":
                t2 = self.leaf(self.broadcast_shape(shape), dtype, positive=True)
            return Op("fn", name, (x, self.partner(x), t2), kwargs, label=name)
        if name in ("clamp_min", "clamp_max"):
            bound = self.number() if rng.random() < 0.4 else self.partner(x, grow=False)
            return Op("method", name, (x, bound), label=f"{name}")
        if name == "clamp_tensor":
            # bounds that do not grow the result: torch's clamp backward fails where they do
            # ("output with shape [6, 1] doesn't match the broadcast shape [6, 2]")
            kwargs = {}
            if rng.random() < 0.8:
                kwargs["min"] = self.partner(x, grow=False)
            if rng.random() < 0.8 or not kwargs:
                kwargs["max"] = self.partner(x, grow=False)
            return Op("fn", "clamp", (x,), kwargs, label="clamp (tensor bounds)")
        cond = self.mask(self.broadcast_shape(shape))
        other = self.leaf(self.broadcast_shape(shape), dtype)
        if rng.random() < 0.5:
            return Op("fn", "where", (cond, x, other), label="where (broadcasting)")
        return Op("fn", "where", (cond, other, x), label="where (broadcasting)")

    def op_view_inplace(self):
        """An in-place op on a view of a tensor (the base's graph is rewritten)."""
        rng = self.rng
        base = self.inplace_target()
        if base is None:
            return None
        shape = self._shape(base)
        nd = len(shape)
        how = rng.choice(["getitem", "diagonal", "transpose", "narrow", "select", "view",
                          "unsqueeze", "expand"])
        if how == "getitem":
            view = Op("op", "getitem", (base, self.basic_index(shape)), label="getitem")
        elif how == "diagonal":
            view = Op("method", "diagonal", (base,), label="diagonal")
        elif how == "transpose":
            view = Op("method", "transpose", (base, self.dim(base), self.dim(base)),
                      label="transpose")
        elif how in ("narrow", "select"):
            if nd == 0 or 0 in shape:
                return None
            d = self.dim(base)
            start = rng.randrange(shape[d])
            view = Op("method", how, (base, d, start) + (
                (rng.randint(0, shape[d] - start),) if how == "narrow" else ()), label=how)
        elif how == "view":
            view = Op("method", "view", (base, -1), label="view")
        elif how == "unsqueeze":
            view = Op("method", "unsqueeze", (base, 0), label="unsqueeze")
        else:
            view = Op("method", "expand", (base, (2,) + shape), label="expand")
        v = self.run_now(view)
        vshape = self._shape(v)
        dtype = self.dtype_like(base)
        name = rng.choice(VIEW_INPLACE)
        args, kwargs = (v,), {}
        if name in ("mul_", "add_", "sub_", "div_", "pow_"):
            args += (self.number() if rng.random() < 0.4 else
                     self.leaf(self.broadcast_shape(vshape, grow=False), dtype),)
            if name in ("add_", "sub_") and rng.random() < 0.3:
                kwargs["alpha"] = rng.choice([2, -0.5])
        elif name == "clamp_":
            low = self.number()
            kwargs = {"min": low, "max": low + 1.0}
        elif name in ("clamp_min_", "clamp_max_", "fill_"):
            args += (self.number(),)
        elif name == "lerp_":
            args += (self.leaf(self.broadcast_shape(vshape, grow=False), dtype),
                     self.number() if rng.random() < 0.5 else
                     self.leaf(self.broadcast_shape(vshape, grow=False), dtype))
        elif name in ("addcmul_", "addcdiv_"):
            args += (self.leaf(self.broadcast_shape(vshape, grow=False), dtype),
                     self.leaf(self.broadcast_shape(vshape, grow=False), dtype,
                               positive=name == "addcdiv_"))
            kwargs = {"value": rng.choice([1, -0.5])}
        elif name == "copy_":
            args += (self.leaf(self.broadcast_shape(vshape, grow=False), dtype),)
        elif name == "masked_fill_":
            args += (self.mask(self.broadcast_shape(vshape, grow=False)), self.number())
        elif name == "index_fill_":
            if not vshape or 0 in vshape:
                return None
            d = self.dim(v)
            args += (d, IndexTensor([rng.randrange(vshape[d])]), self.number())
        return Op("method", name, args, kwargs, label=f"{name} on a {how} view",
                  mutates=True)

    def op_reduce_more(self):
        rng, x = self.rng, self.pick()
        shape = self._shape(x)
        name = rng.choice(["var", "std", "var_mean", "std_mean", "vector_norm", "norm",
                           "aminmax", "nansum", "nanmean", "dist", "renorm", "logsumexp",
                           "unbiased"])
        dims = self.reduce_dims(x)
        keep = rng.random() < 0.4
        if name in ("var", "std", "var_mean", "std_mean"):
            kwargs = {"correction": rng.choice([0, 1, 2, 0.5, 3])}
            if dims is not None:
                kwargs["dim"] = dims
            kwargs["keepdim"] = keep
            if name.endswith("_mean"):
                return Op("fn", name, (x,), kwargs, nout=2, label=f"{name} (correction)")
            return Op("fn" if rng.random() < 0.5 else "method", name, (x,), kwargs,
                      label=f"{name} (correction)")
        if name == "unbiased":
            fn = rng.choice(["var", "std"])
            if dims is None:
                return Op("method", fn, (x, rng.random() < 0.5), label=f"{fn} (unbiased)")
            return Op("method", fn, (x, dims, rng.random() < 0.5, keep),
                      label=f"{fn} (unbiased)")
        if name == "vector_norm":
            order = rng.choice([2, 1, 0, 3, 0.5, float("inf"), float("-inf"), -1])
            return Op("linalg", name, (x, order), {"dim": dims, "keepdim": keep},
                      label=f"linalg.vector_norm ({order})")
        if name == "norm":
            p = rng.choice([2, 1, 3, float("inf"), "fro", "nuc", 0])
            return Op("fn", "norm", (x,), {"p": p, "dim": dims, "keepdim": keep},
                      label=f"norm ({p})")
        if name == "aminmax":
            kwargs = {"dim": self.dim(x), "keepdim": keep} if rng.random() < 0.6 else {}
            return Op("fn", "aminmax", (x,), kwargs, nout=2, label="aminmax")
        if name in ("nansum", "nanmean"):
            return Op("fn", name, (x,), {"dim": dims, "keepdim": keep}, label=name)
        if name == "dist":
            return Op("fn", "dist", (x, self.partner(x), rng.choice([2, 1, 0, float("inf"),
                                                                    3])), label="dist")
        if name == "renorm":
            if not shape:
                return None
            return Op("method", "renorm", (x, rng.choice([1, 2]), self.dim(x),
                                           rng.choice([0.5, 1.0])), label="renorm")
        if not isinstance(dims, tuple):
            dims = (self.dim(x),) if dims is None else (dims,)
        return Op("fn", "logsumexp", (x, dims), {"keepdim": keep}, label="logsumexp (dims)")


#: the wider vocabulary's families and their weights (the generator's own add up to 93)
MORE_FAMILIES = [("op_activation", 4), ("op_math", 4), ("op_loss", 3),
                 ("op_normalization", 3), ("op_scan", 3), ("op_sort", 3), ("op_scatter", 3),
                 ("op_linalg", 4), ("op_layout", 3), ("op_blend", 3), ("op_view_inplace", 3),
                 ("op_reduce_more", 3)]

