"""The reducer: how DDP's gradient averaging rides on the autograd engine
(NOTE [Data parallelism on the engine])."""
import time

from autograd_cy import distributed as dist
from autograd_cy._C.graph_task import queue_callback
from autograd_cy._C.ops.arithmetic import mul
from autograd_cy.dtypes import int32
from autograd_cy.factories import tensor
from autograd_cy.grad_mode import no_grad
from autograd_cy.distributed.grad_bucket import GradBucket
from autograd_cy.nn.parallel.buckets import Bucket, compute_bucket_assignment_by_size

__all__ = ["Reducer"]

# NOTE [Data parallelism on the engine]
# Every rank runs the same model on its own part of the batch; their gradients must be
# averaged before the optimizer steps. DDP does it during backward, not after:
# - Each parameter has a post-accumulate-grad hook (``register_post_accumulate_grad_hook``):
#   the engine calls it right after AccumulateGrad has written the parameter's ``.grad``.
#   The hook copies the gradient, divided by the world size, into the parameter's slot in
#   its bucket (NOTE [DDP's buckets]) and counts the bucket down.
# - When a bucket's last gradient arrives, its allreduce starts (nonblocking), while the
#   engine goes on computing the gradients of the layers before: the communication overlaps
#   with the rest of backward. Every later hook also lets MPI progress (MPICH moves a
#   nonblocking collective only when the program calls into it).
# - Buckets start strictly in index order on every rank (a bucket that fills early waits for
#   the ones before it), because the ranks' collectives must be issued in the same order.
# - When the last bucket has started, the hook queues an engine final callback
#   (``queue_callback``): it runs once backward has finished, waits for every bucket's
#   allreduce and writes the averaged values into ``.grad`` (or, with
#   ``gradient_as_bucket_view``, makes ``.grad`` a view of the bucket, which already holds
#   them).
# - A parameter that took no part in the forward never gets its hook called, and its bucket
#   would never start: with ``find_unused_parameters`` DDP walks the graph from the forward's
#   outputs and marks the unreachable parameters ready at the first hook of backward; without
#   it, the next forward raises, as torch does.


class Reducer:
    """The buckets of a DDP module's parameters and the hooks that reduce them."""

    def __init__(self, params, process_group, bucket_bytes_cap, first_bucket_bytes,
                 find_unused_parameters, gradient_as_bucket_view):
        self.params = params
        self.process_group = process_group
        self.size_limits = [first_bucket_bytes, bucket_bytes_cap]
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.comm_hook = None
        self.comm_hook_state = None
        self.buckets = []
        self.bucket_of = {}
        self._build_buckets(list(range(len(params)))[::-1], keep_order=False)
        self.initial_bucket_sizes = [b.nbytes for b in self.buckets]
        self.rebuilt_bucket_sizes = []
        self.has_rebuilt_buckets = False
        self.ready_order = []
        self.expect_autograd_hooks = False
        #: True from a backward's first hook until its final callback: a forward while it
        #: is set means the previous iteration's reduction never finished
        self.require_finalize = False
        self.next_bucket = 0
        self.unused = []
        self.used = set()
        self.last_step = None
        self._handles = [p.register_post_accumulate_grad_hook(self._autograd_hook(i))
                         for i, p in enumerate(params)]

    def _build_buckets(self, order, keep_order):
        """Buckets of the parameters taken in ``order`` (indices into ``params``)."""
        ordered = [self.params[i] for i in order]
        assignment = compute_bucket_assignment_by_size(ordered, self.size_limits,
                                                       keep_order=keep_order)
        self.buckets = []
        self.bucket_of = {}
        for b, positions in enumerate(assignment):
            indices = [order[p] for p in positions]
            bucket = Bucket(b, [self.params[i] for i in indices], indices)
            self.buckets.append(bucket)
            for slot, i in enumerate(indices):
                self.bucket_of[i] = (bucket, slot)

    # -- forward ----------------------------------------------------------------------

    def rebuild_buckets(self, order):
        """Rebuild the buckets once, in the order the gradients became ready (rank 0's
        order, given by DDP). Returns whether it rebuilt."""
        if self.has_rebuilt_buckets or len(order) != len(self.params):
            return False
        self.has_rebuilt_buckets = True
        self._build_buckets(order, keep_order=True)
        self.rebuilt_bucket_sizes = [b.nbytes for b in self.buckets]
        return True

    def prepare_for_backward(self, unused_indices):
        """Arm the hooks for the backward of the forward that just ran; ``unused_indices``
        are the parameters it did not reach (with ``find_unused_parameters``)."""
        if self.require_finalize:
            raise RuntimeError(
                "Expected to have finished reduction in the prior iteration before starting "
                "a new one. This error indicates that your module has parameters that were "
                "not used in producing loss. You can enable unused parameter detection by "
                "passing the keyword argument `find_unused_parameters=True` to "
                "`autograd_cy.nn.parallel.DistributedDataParallel`, and by making sure all "
                "`forward` function outputs participate in calculating loss. Parameter "
                f"indices which did not receive grad for rank {self.process_group.rank()}: "
                + " ".join(str(i) for i in self._not_ready()))
        for bucket in self.buckets:
            bucket.pending = len(bucket.params)
            bucket.future = None
        self.next_bucket = 0
        self.unused = list(unused_indices)
        self.used = set()
        if not self.has_rebuilt_buckets:
            self.ready_order = []       # this backward's order only (NOTE [DDP's buckets])
        self.expect_autograd_hooks = True
        self.last_step = _StepRecord()

    def _not_ready(self):
        pending = []
        for bucket in self.buckets:
            if bucket.pending:
                pending += [i for i in bucket.param_indices if i not in self.used]
        return sorted(pending)

    # -- backward -----------------------------------------------------------------------

    def _autograd_hook(self, index):
        def hook(param):
            if not self.expect_autograd_hooks:
                return
            step = self.last_step
            self.require_finalize = True
            if step.first_hook is None:
                step.first_hook = time.perf_counter()
                for unused in self.unused:
                    self._mark_ready(unused, unused=True)
            self._mark_ready(index)
            self._let_progress()
        return hook

    def _mark_ready(self, index, unused=False):
        bucket, slot = self.bucket_of[index]
        param = self.params[index]
        if not unused:
            self.used.add(index)
            if not self.has_rebuilt_buckets:
                self.ready_order.append(index)
        view = bucket.views[slot]
        with no_grad():
            if unused or param.grad is None:
                view.zero_()
            elif self.comm_hook is None:  # divided as it is copied: one pass
                mul(param.grad, 1.0 / self.process_group.size(), out=view)
            else:  # the hook divides
                view.copy_(param.grad)
            if not unused and param.grad is not None and self.gradient_as_bucket_view:
                param.grad = view
        bucket.pending -= 1
        if bucket.pending == 0:
            self._launch_ready_buckets()

    def _launch_ready_buckets(self):
        while (self.next_bucket < len(self.buckets)
               and self.buckets[self.next_bucket].pending == 0):
            self._launch(self.buckets[self.next_bucket])
            self.next_bucket += 1
        if self.next_bucket == len(self.buckets):
            queue_callback(self._finalize_backward)

    def _launch(self, bucket):
        is_last = bucket.index == len(self.buckets) - 1
        self.last_step.launches.append((bucket.index, bucket.nbytes, len(self.used),
                                        time.perf_counter()))
        backend = self.process_group.backend
        reduced_before = backend.reduced_bytes
        with backend.unchecked():
            if self.comm_hook is None:
                work = dist.all_reduce(bucket.buffer, group=self.process_group,
                                       async_op=True)
                bucket.future = work.get_future()
            else:
                bucket.future = self.comm_hook(self.comm_hook_state,
                                               GradBucket(bucket, is_last))
        self.last_step.bytes += backend.reduced_bytes - reduced_before

    def _let_progress(self):
        """Let the buckets in flight progress (MPI moves only when called)."""
        for bucket in self.buckets[:self.next_bucket]:
            if bucket.future is not None:
                bucket.future.done()

    def _finalize_backward(self):
        """The engine's final callback: wait for every bucket, write the averages into
        ``.grad``."""
        step = self.last_step
        step.backward_end = time.perf_counter()
        self.expect_autograd_hooks = False
        self.require_finalize = False
        results = [bucket.future.wait() for bucket in self.buckets]
        step.wait = time.perf_counter() - step.backward_end
        globally_used = self._globally_used() if self.find_unused_parameters else None
        with no_grad():
            for bucket, result in zip(self.buckets, results):
                result = result[0] if isinstance(result, list) else result  # Work.result()
                if result is not bucket.buffer:
                    bucket.buffer.copy_(result)
                for i, view in zip(bucket.param_indices, bucket.views):
                    if globally_used is not None and not globally_used[i]:
                        continue
                    self._write_grad(self.params[i], view)

    def _write_grad(self, param, view):
        if self.gradient_as_bucket_view:
            if param.grad is not view:
                param.grad = view
        elif param.grad is None:
            param.grad = view.clone()
        else:
            param.grad.copy_(view)

    def _globally_used(self):
        """Which parameters some rank used in this iteration (an allreduce of the local
        flags)."""
        flags = tensor([int(i in self.used) for i in range(len(self.params))], dtype=int32,
                       device=self.params[0].device)
        with self.process_group.backend.unchecked():
            dist.all_reduce(flags, op=dist.ReduceOp.MAX, group=self.process_group)
        return [bool(v) for v in flags.tolist()]

    def remove_hooks(self):
        for handle in self._handles:
            handle.remove()
        self._handles = []


class _StepRecord:
    """What the reducer saw in one backward: each bucket's launch (index, bytes, how many
    gradients were ready by then, time), the payload bytes, when backward's first hook ran
    and when backward ended, and how long the final callback waited."""

    def __init__(self):
        self.launches = []
        self.bytes = 0
        self.first_hook = None
        self.backward_end = None
        self.wait = 0.0

    @property
    def overlap(self):
        """The share of the communication hidden behind backward: the time from the first
        bucket's launch to the end of backward, against that plus the wait after it."""
        if not self.launches or self.backward_end is None:
            return 0.0
        hidden = self.backward_end - self.launches[0][3]
        return hidden / (hidden + self.wait) if hidden + self.wait > 0 else 0.0
