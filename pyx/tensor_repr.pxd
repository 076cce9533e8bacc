# Design: ``repr(tensor)`` in PyTorch's print format (tensor_repr.pyx), filled into Tensor's
# operator table at import. Pure formatting: it reads arrays and the autograd flags only.
