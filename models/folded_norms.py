"""Batch norms of a network whose weights come from an exported ONNX file.

The ONNX exports (the detector's and the classifier's) fold each batch norm into its
convolution. To train such a file again, each norm is first set to the identity plus the
folded bias (`unfold`: the same function, in eval mode only), then fitted to the batch
statistics it will meet in training (`fit_norms`), so that train mode computes the file's
function too and a fine-tune starts from the file's accuracy instead of relearning the norms.
"""

from __future__ import annotations

import numpy as np


def unfold(conv, bn, weight: np.ndarray, bias: np.ndarray) -> None:
    """Give `conv` the folded weight and make `bn` the identity plus the folded bias."""
    import torch

    with torch.no_grad():
        conv.weight.copy_(torch.from_numpy(np.array(weight)))
        bn.weight.fill_(1.0)
        bn.bias.copy_(torch.from_numpy(np.array(bias)))
        bn.running_mean.zero_()
        bn.running_var.fill_(1.0 - bn.eps)


def fit_norms(model, pairs, x) -> None:
    """Each (conv, batch norm) pair of `model`, its norm unfolded, refitted so that the layer
    computes the same with the batch statistics of `x`: (z - mu) / sqrt(var + eps) * gamma +
    beta == z + bias when gamma = sqrt(var + eps) and beta = bias + mu. The statistics are
    measured in eval mode, where every layer sees the folded function's input."""
    import torch

    stats: dict[int, tuple] = {}

    def hook(k):
        def fn(mod, inp, out):
            z = out.double()
            stats[k] = (z.mean((0, 2, 3)), z.var((0, 2, 3), unbiased=False))
        return fn

    was_training = model.training
    model.eval()
    handles = [conv.register_forward_hook(hook(k)) for k, (conv, _) in enumerate(pairs)]
    try:
        with torch.no_grad():
            model(x)
    finally:
        for h in handles:
            h.remove()
    with torch.no_grad():
        for k, (_, bn) in enumerate(pairs):
            mu, var = stats[k]
            bn.running_mean.copy_(mu.float())
            bn.running_var.copy_(var.float())
            bn.weight.copy_(torch.sqrt(var + bn.eps).float())
            bn.bias.copy_((bn.bias.double() + mu).float())
    model.train(was_training)
