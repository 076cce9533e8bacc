"""``AdaptiveLogSoftmaxWithLoss`` (Grave et al., 2016): a softmax over many classes split by
frequency. The head scores the ``cutoffs[0]`` most frequent classes and one entry per tail
cluster; each cluster's classes are scored by a two-layer projection whose hidden size
shrinks by ``div_value`` per cluster. A class's log-probability is its head log-probability,
or its cluster's head log-probability plus its log-probability within the cluster.

``forward`` scores only each row's target (the named tuple ``_ASMoutput(output, loss)``),
``log_prob`` every class, ``predict`` the most likely class, all with torch's graphs
(log_softmax, gather, index_copy_, the in-place add) and errors.
"""
from collections import namedtuple

from autograd_cy import argmax
from autograd_cy.nn import functional as F
from autograd_cy.nn.modules.container import ModuleList, Sequential
from autograd_cy.nn.modules.linear import Linear
from autograd_cy.nn.modules.module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Adaptive softmax: ``head`` (a Linear to the shortlist and one entry per cluster) and
    ``tail`` (a Sequential of two bias-free Linears per cluster)."""

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if not cutoffs:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers "
                             "sorted in an increasing order, where each value is between 1 "
                             "and n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, device=device,
                           dtype=dtype)
        self.tail = ModuleList()
        for cluster in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (cluster + 1)))
            classes = self.cutoffs[cluster + 1] - self.cutoffs[cluster]
            self.tail.append(Sequential(
                Linear(in_features, hidden, bias=False, device=device, dtype=dtype),
                Linear(hidden, classes, bias=False, device=device, dtype=dtype)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for to_hidden, to_classes in self.tail:
            to_hidden.reset_parameters()
            to_classes.reset_parameters()

    def forward(self, input_, target_):
        """The log-probability of each row's target and the mean negative log-likelihood."""
        if target_.dim() == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch "
                                   "dimension.")
            if input_.dim() != 2:
                raise RuntimeError(f"1D target tensor expects 2D input tensors, but found "
                                   f"inputs with size {input_.size()}")
        elif target_.dim() == 0:
            if input_.dim() != 1:
                raise RuntimeError(f"0D target tensor expects 1D input tensors, but found "
                                   f"inputs with size {input_.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        rows = target.size(0)
        output = input.new_zeros(rows)
        head_index = target.new_empty(rows)        # the head entry each row reads
        covered = 0
        bounds = [0] + self.cutoffs
        for cluster, (low, high) in enumerate(zip(bounds[:-1], bounds[1:])):
            mask = (target >= low) & (target < high)
            members = mask.nonzero().reshape(-1)
            if members.numel() == 0:
                continue
            if cluster == 0:                        # the shortlist: read from the head
                head_index.index_copy_(0, members, target[mask])
            else:
                scores = self.tail[cluster - 1](input.index_select(0, members))
                head_index.index_fill_(0, members, self.shortlist_size + cluster - 1)
                within = F.log_softmax(scores, dim=1).gather(
                    1, (target[mask] - low).unsqueeze(1))
                output.index_copy_(0, members, within.squeeze(1))
            covered += members.numel()
        if covered != rows:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but "
                               f"values in range [{target.min().item()}, "
                               f"{target.max().item()}] were found. ")
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output += head_logprob.gather(1, head_index.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _get_full_log_prob(self, input, head_output):
        """``(rows, n_classes)`` log-probabilities from the head's scores."""
        result = input.new_empty((head_output.size(0), self.n_classes))
        head_logprob = F.log_softmax(head_output, dim=1)
        result[:, :self.shortlist_size] = head_logprob[:, :self.shortlist_size]
        for cluster, (start, stop) in enumerate(zip(self.cutoffs[:-1], self.cutoffs[1:])):
            within = F.log_softmax(self.tail[cluster](input), dim=1)
            result[:, start:stop] = within + head_logprob[
                :, self.shortlist_size + cluster].unsqueeze(1)
        return result

    def log_prob(self, input):
        """The log-probability of every class, ``(N, n_classes)``."""
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most likely class of each row; the tails are evaluated only for the rows
        whose head argmax is a cluster."""
        head_output = self.head(input)
        output = argmax(head_output, dim=1)
        in_tail = output >= self.shortlist_size
        if not in_tail.any():
            return output
        if in_tail.all():
            return argmax(self._get_full_log_prob(input, head_output), dim=1)
        output[in_tail] = argmax(self._get_full_log_prob(input[in_tail],
                                                         head_output[in_tail]), dim=1)
        return output
