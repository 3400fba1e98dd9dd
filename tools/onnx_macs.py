"""Multiply-accumulates of an ONNX model's convolutions and matrix products, per input.

    python tools/onnx_macs.py models/card_detector.onnx models/card_classifier.onnx

Counts Conv (output elements x input channels per group x kernel size), MatMul and Gemm
(output elements x inner size) from the shapes ONNX shape inference gives; 1 MAC = 2 FLOPs.
Dynamic dimensions (the classifier's batch) count as 1. Needs `onnx` (the `train` extra)."""

from __future__ import annotations

import sys

import numpy as np
import onnx
from onnx import numpy_helper, shape_inference


def macs(path: str) -> dict:
    graph = shape_inference.infer_shapes(onnx.load(path)).graph
    shapes = {
        v.name: [d.dim_value if d.dim_value > 0 else 1 for d in v.type.tensor_type.shape.dim]
        for v in list(graph.value_info) + list(graph.input) + list(graph.output)
    }
    weights = {i.name: numpy_helper.to_array(i).shape for i in graph.initializer}
    shapes.update({k: list(v) for k, v in weights.items()})
    total: dict[str, int] = {}
    for node in graph.node:
        out = shapes.get(node.output[0])
        if out is None:
            continue
        if node.op_type == "Conv":
            w = shapes[node.input[1]]  # (out channels, in channels per group, kh, kw)
            n = int(np.prod(out)) * w[1] * int(np.prod(w[2:]))
        elif node.op_type in ("MatMul", "Gemm"):
            n = int(np.prod(out)) * shapes[node.input[0]][-1]
        else:
            continue
        total[node.op_type] = total.get(node.op_type, 0) + n
    inputs = [[d.dim_value or "N" for d in i.type.tensor_type.shape.dim] for i in graph.input]
    params = sum(int(np.prod(s)) for s in weights.values())
    gmac = sum(total.values()) / 1e9
    return {"model": path, "input": inputs, "params_m": round(params / 1e6, 2),
            "gmac": round(gmac, 3), "gflop": round(2 * gmac, 3)}  # fmt: skip


if __name__ == "__main__":
    for p in sys.argv[1:]:
        print(macs(p))
