"""``autograd_cy.utils._pytree``: as ``torch.utils._pytree``, the pytrees of
``autograd_cy.func.pytree`` (the one the transforms walk, so a registered node works in
``func.vmap`` and ``func.grad``)."""
from autograd_cy.func.pytree import (  # noqa: F401
    LeafSpec, TreeSpec, register_pytree_node, tree_all, tree_any, tree_flatten, tree_leaves,
    tree_map, tree_map_only, tree_structure, tree_unflatten,
)

__all__ = ["LeafSpec", "TreeSpec", "register_pytree_node", "tree_all", "tree_any",
           "tree_flatten", "tree_leaves", "tree_map", "tree_map_only", "tree_structure",
           "tree_unflatten"]
