"""Which ops autocast casts, and to what, per device type: torch 2.13's lists
(aten/src/ATen/autocast_mode.cpp), by the names the ops have in ``autograd_cy``
("torch"), ``nn.functional`` ("F"), ``linalg`` and ``fft``.

- ``lower``: floating inputs to the autocast dtype (bfloat16 on the CPU, float16 on CUDA);
- ``fp32``: floating inputs to float32;
- ``fp32_opt_dtype``: when the first input is eligible and no ``dtype`` is given, the op
  runs with ``dtype=float32`` (torch's fp32_set_opt_dtype; ``norm``'s fp32_append_dtype too);
- ``promote``: floating inputs to the widest of them (float32 over the autocast dtype);
- ``banned``: refused (binary_cross_entropy on CUDA);
- ``native``: not cast, and not casting inside: ops torch runs as one kernel that ours
  compose of listed ones (``addmv`` of ``mv``s ...), so that they keep torch's dtype.
A tensor is eligible when it is floating, on the device, and not float64. An op on no list
runs in whatever dtype its inputs have.
"""

__all__ = ["POLICIES", "BANNED_MESSAGE"]


def _names(text):
    return frozenset(text.split())


_CPU_LOWER = {
    "torch": _names("""conv1d conv2d conv3d bmm mm baddbmm addmm addbmm matmul conv_tbc
        conv_transpose1d conv_transpose2d conv_transpose3d prelu einsum chain_matmul"""),
    "F": _names("""conv1d conv2d conv3d linear conv_transpose1d conv_transpose2d
        conv_transpose3d prelu scaled_dot_product_attention"""),
    "linalg": _names("vecdot multi_dot"),
}
_CPU_FP32 = {
    "torch": _names("""polar prod quantile nanquantile stft cdist trace view_as_complex
        cholesky cholesky_inverse cholesky_solve inverse pinverse max_pool3d
        cosine_embedding_loss hinge_embedding_loss poisson_nll_loss margin_ranking_loss
        triplet_margin_loss ctc_loss kl_div binary_cross_entropy_with_logits geqrf qr svd
        triangular_solve orgqr ormqr"""),
    "F": _names("""avg_pool3d binary_cross_entropy grid_sample max_pool3d max_unpool2d
        max_unpool3d adaptive_avg_pool3d mse_loss cosine_embedding_loss nll_loss
        hinge_embedding_loss poisson_nll_loss smooth_l1_loss cross_entropy l1_loss huber_loss
        margin_ranking_loss soft_margin_loss triplet_margin_loss multi_margin_loss ctc_loss
        kl_div multilabel_margin_loss binary_cross_entropy_with_logits fractional_max_pool2d
        fractional_max_pool3d adaptive_max_pool3d"""),
    "fft": _names("""fft ifft fft2 ifft2 fftn ifftn rfft irfft rfft2 irfft2 rfftn irfftn hfft
        ihfft"""),
    "linalg": _names("""cond matrix_rank solve cholesky svdvals eigvals eigvalsh inv
        householder_product tensorinv tensorsolve qr cholesky_ex svd eig eigh lstsq inv_ex
        lu_solve"""),
}
_CPU_PROMOTE = {"torch": _names("cat stack concat concatenate index_copy")}
_CPU_NATIVE = {"torch": _names("addmv addr bilinear"),
               "F": _names("""bilinear interpolate upsample adaptive_avg_pool1d
                   adaptive_avg_pool2d""")}

_CUDA_LOWER = {
    "torch": _names("""conv1d conv2d conv3d conv_tbc conv_transpose1d conv_transpose2d
        conv_transpose3d prelu addmm addmv addr matmul einsum mm mv addbmm baddbmm bmm
        chain_matmul"""),
    "F": _names("""conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d
        prelu linear scaled_dot_product_attention"""),
    "linalg": _names("vecdot multi_dot"),
}
_CUDA_FP32 = {
    "torch": _names("""acos asin cosh erfinv exp expm1 log log10 log2 log1p reciprocal rsqrt
        sinh tan pow layer_norm group_norm cosine_similarity poisson_nll_loss
        cosine_embedding_loss hinge_embedding_loss kl_div margin_ranking_loss
        triplet_margin_loss binary_cross_entropy_with_logits dist pdist cdist renorm
        logsumexp"""),
    "F": _names("""softplus layer_norm group_norm cosine_similarity poisson_nll_loss
        cosine_embedding_loss nll_loss hinge_embedding_loss kl_div l1_loss smooth_l1_loss
        huber_loss mse_loss margin_ranking_loss multilabel_margin_loss soft_margin_loss
        triplet_margin_loss multi_margin_loss binary_cross_entropy_with_logits pdist
        cross_entropy pow"""),
}
_CUDA_FP32_OPT_DTYPE = {
    "torch": _names("prod softmax log_softmax cumprod cumsum sum norm"),
    "F": _names("softmax log_softmax"),
    "linalg": _names("vector_norm matrix_norm norm"),
}
_CUDA_PROMOTE = {
    "torch": _names("addcdiv addcmul atan2 bilinear cross dot index_put scatter_add tensordot"),
    "F": _names("bilinear grid_sample"),
    "linalg": _names("cross"),
}
_CUDA_BANNED = {"F": _names("binary_cross_entropy")}
_CUDA_NATIVE = {"torch": _names("adaptive_avg_pool1d"),
                "F": _names("adaptive_avg_pool1d adaptive_avg_pool2d adaptive_avg_pool3d")}

# {device type: [(policy, {namespace: names})]}
POLICIES = {
    "cpu": [("lower", _CPU_LOWER), ("fp32", _CPU_FP32), ("promote", _CPU_PROMOTE),
            ("native", _CPU_NATIVE)],
    "cuda": [("lower", _CUDA_LOWER), ("fp32", _CUDA_FP32),
             ("fp32_opt_dtype", _CUDA_FP32_OPT_DTYPE), ("promote", _CUDA_PROMOTE),
             ("banned", _CUDA_BANNED), ("native", _CUDA_NATIVE)],
}

BANNED_MESSAGE = (
    "torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
    "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
    "In this case, combine the two layers using "
    "torch.nn.functional.binary_cross_entropy_with_logits\n"
    "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
    "safe to autocast.")
