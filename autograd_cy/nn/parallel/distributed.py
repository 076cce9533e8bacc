"""``DistributedDataParallel``, as ``torch.nn.parallel.DistributedDataParallel``: wraps a
module so that each rank's backward averages the gradients over all ranks, overlapping the
communication with the backward itself (NOTE [Data parallelism on the engine])."""
import contextlib

from autograd_cy import distributed as dist
from autograd_cy._C.tensor import Tensor
from autograd_cy._C.ops.split_cat import cat
from autograd_cy.grad_mode import is_grad_enabled, no_grad
from autograd_cy.nn.modules.module import Module
from autograd_cy.nn.parallel.buckets import DEFAULT_BUCKET_CAP_MB, DEFAULT_FIRST_BUCKET_BYTES
from autograd_cy.nn.parallel.reducer import Reducer

__all__ = ["DistributedDataParallel"]


class DistributedDataParallel(Module):
    """``DistributedDataParallel(module, device_ids=None, output_device=None, dim=0,
    broadcast_buffers=True, init_sync=True, process_group=None, bucket_cap_mb=None,
    find_unused_parameters=False, check_reduction=False, gradient_as_bucket_view=False,
    static_graph=False)``.

    At construction the ranks check that they hold the same parameters and take rank 0's
    values (parameters and buffers). Each forward first broadcasts rank 0's buffers (with
    ``broadcast_buffers``); each backward leaves in ``.grad`` the average of the ranks'
    gradients."""

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=None, init_sync=True, process_group=None,
                 bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None,
                 mixed_precision=None, device_mesh=None,
                 skip_all_reduce_unused_params=False, bucket_cap_mb_list=None,
                 batched_grad_copy=False, forward_sync_buffers=None):
        super().__init__()
        self.module = module
        self.process_group = dist.process_group._group_or_default(process_group)
        params = [p for p in module.parameters() if p.requires_grad]
        if not params:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        devices = {p.device for p in params}
        if len(devices) > 1:
            raise ValueError("DistributedDataParallel's input module must be on the same "
                             f"type of devices, but input module parameters locate in "
                             f"{devices}.")
        if device_ids is not None and next(iter(devices)).type == "cpu":
            raise ValueError(
                "DistributedDataParallel device_ids and output_device arguments only work "
                "with single-device/multiple-device GPU modules or CPU modules, but got "
                f"device_ids {device_ids}, output_device {output_device}, and module "
                f"parameters {devices}.")
        self.device_ids = device_ids
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = True if broadcast_buffers is None else broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        cap_mb = DEFAULT_BUCKET_CAP_MB if bucket_cap_mb is None else bucket_cap_mb
        self.bucket_bytes_cap = int(cap_mb * 1024 * 1024)
        self._verify_params_across_processes(module)
        if init_sync:
            self._broadcast_coalesced(list(module.parameters()) + list(module.buffers()))
        # static_graph: the same parameters are used in every iteration, but not
        # necessarily all of them; finding the unused ones each time is correct for it too
        self.reducer = Reducer(params, self.process_group, self.bucket_bytes_cap,
                               DEFAULT_FIRST_BUCKET_BYTES if bucket_cap_mb is None
                               else min(DEFAULT_FIRST_BUCKET_BYTES, self.bucket_bytes_cap),
                               find_unused_parameters or static_graph,
                               gradient_as_bucket_view)
        self._comm_hook_name = None

    # -- construction -------------------------------------------------------------------

    def _verify_params_across_processes(self, module):
        """Every rank must hold parameters of the same count, shapes and dtypes."""
        mine = [(tuple(p.shape), str(p.dtype)) for p in module.parameters()]
        everyone = [None] * self.process_group.size()
        dist.all_gather_object(everyone, mine, group=self.process_group)
        me = self.process_group.rank()
        for rank, theirs in enumerate(everyone):
            if len(theirs) != len(mine):
                raise RuntimeError(
                    f"DDP expects same model across all ranks, but Rank {me} has "
                    f"{len(mine)} params, while rank {rank} has inconsistent "
                    f"{len(theirs)} params.")
            for i, ((shape, dtype), (their_shape, their_dtype)) in enumerate(
                    zip(mine, theirs)):
                if shape != their_shape or dtype != their_dtype:
                    raise RuntimeError(
                        f"DDP expects same model across all ranks, but params[{i}] in this "
                        f"process (rank {me}) with sizes {list(shape)} and dtype {dtype} "
                        f"appears not to match sizes {list(their_shape)} and dtype "
                        f"{their_dtype} of the same param in process {rank}.")

    def _broadcast_coalesced(self, tensors):
        """Rank 0's values of ``tensors`` into every rank's, one broadcast per dtype and
        device (flattened together)."""
        groups = {}
        for t in tensors:
            groups.setdefault((t.dtype, str(t.device)), []).append(t)
        with no_grad():
            for same in groups.values():
                flat = cat([t.detach().reshape(-1) for t in same])
                dist.broadcast(flat, group=self.process_group,
                               src=self.process_group.global_ranks[0])
                offset = 0
                for t in same:
                    n = t.numel()
                    t.copy_(flat[offset:offset + n].view(tuple(t.shape)))
                    offset += n

    # -- forward --------------------------------------------------------------------------

    def forward(self, *inputs, **kwargs):
        grad_sync = is_grad_enabled() and self.require_backward_grad_sync
        if grad_sync and not self.reducer.has_rebuilt_buckets and \
                self.reducer.ready_order and not self.reducer.find_unused_parameters:
            self._rebuild_buckets()
        buffers = list(self.module.buffers())
        if self.broadcast_buffers and self.require_forward_param_sync and buffers:
            self._broadcast_coalesced(buffers)
        outputs = self.module(*inputs, **kwargs)
        if grad_sync:
            unused = (self._unused_parameters(outputs)
                      if self.reducer.find_unused_parameters else [])
            self.reducer.prepare_for_backward(unused)
        return outputs

    def _rebuild_buckets(self):
        """Rebuild the buckets in the order gradients became ready in the first iteration,
        rank 0's order for every rank (NOTE [DDP's buckets])."""
        order = [list(self.reducer.ready_order)]
        if len(order[0]) != len(self.reducer.params):
            order = [[]]
        dist.broadcast_object_list(order, group=self.process_group,
                                   src=self.process_group.global_ranks[0])
        self.reducer.rebuild_buckets(order[0])

    def _unused_parameters(self, outputs):
        """The indices of the parameters the graph of ``outputs`` does not reach."""
        reached = set()
        seen = set()
        stack = [t.grad_fn for t in _tensors_in(outputs) if t.grad_fn is not None]
        while stack:
            node = stack.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            variable = getattr(node, "variable", None)
            if variable is not None:
                reached.add(id(variable))
            stack.extend(next_node for next_node, _ in node.next_functions)
        return [i for i, p in enumerate(self.reducer.params) if id(p) not in reached]

    # -- gradient synchronisation ----------------------------------------------------------

    @contextlib.contextmanager
    def no_sync(self):
        """Backwards inside accumulate gradients locally, without communicating; the first
        backward after it averages the accumulated gradients."""
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous

    def register_comm_hook(self, state, hook):
        """Reduce each bucket with ``hook(state, bucket)`` (a ``GradBucket``), which
        returns a Future of the bucket's reduced (averaged) flat tensor, instead of the
        default allreduce. Once only, before the first backward."""
        if self.reducer.comm_hook is not None:
            raise RuntimeError("register_comm_hook or register_builtin_comm_hook can only "
                               "be called once.")
        if not callable(hook):
            raise TypeError("Communication hook must be callable.")
        self.reducer.comm_hook = hook
        self.reducer.comm_hook_state = self.process_group if state is None else state
        self._comm_hook_name = getattr(hook, "__qualname__", repr(hook))

    def _get_ddp_logging_data(self):
        """Some of what torch's DDP logs about itself: its settings and bucket sizes."""
        return {"world_size": self.process_group.size(),
                "backend_name": self.process_group.name(),
                "bucket_cap_bytes": self.bucket_bytes_cap,
                "find_unused_parameters": self.find_unused_parameters,
                "gradient_as_bucket_view": self.gradient_as_bucket_view,
                "broadcast_buffers": self.broadcast_buffers,
                "comm_hook": self._comm_hook_name or "",
                "bucket_sizes": list(self.reducer.initial_bucket_sizes),
                "rebuilt_bucket_sizes": list(self.reducer.rebuilt_bucket_sizes),
                "has_rebuilt_buckets": int(self.reducer.has_rebuilt_buckets)}


def _tensors_in(value):
    """The tensors of a forward's output: a tensor, or tuples, lists and dicts of them."""
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in _tensors_in(v)]
    return []
