"""Surgery on the generic classifier's ONNX graph, for `deck fit` (needs the `onnx` package).

Whatever classifier ships (ours, or a retrained one), its last step is a linear layer: a
`Gemm`, or a `MatMul` followed by an `Add`, from the penultimate features to the class
logits. `last_linear` finds it by walking back from the graph's output; `feature_model`
adds the features as a second output (to fit a deck's head on); `deck_model` writes the
adapted classifier: a 1x1 colour transform in front of the input (this camera's and light's
colours mapped to the ones the classifier learnt) and the deck's head beside the generic
last layer, with the same input, output and metadata as the generic model, so the
recognizer loads it like the generic one (one more small matrix product per crop).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.decks.store import DeckError

FEATURES = "deck_features"


def _onnx():
    try:
        import onnx
        from onnx import helper, numpy_helper
    except ImportError as exc:  # pragma: no cover - onnx is a runtime dependency
        raise DeckError("`deck fit` needs the onnx package: pip install onnx") from exc
    return onnx, helper, numpy_helper


@dataclass
class LastLinear:
    features: str  # the tensor feeding the last layer
    weight: np.ndarray  # (classes, features): logits = features @ weight.T + bias
    bias: np.ndarray  # (classes,)
    nodes: list  # the node(s) of the layer (Gemm, or MatMul + Add)
    weight_name: str
    bias_name: str
    layout: str  # how the weight initializer is stored: "gemm-transB", "gemm", "matmul"


def load(path: Path):
    onnx, _, _ = _onnx()
    try:
        return onnx.load(str(path))
    except Exception as exc:  # noqa: BLE001 - onnx raises several kinds on a bad file
        raise DeckError(f"cannot read the classifier {path}: {exc}") from exc


def last_linear(model) -> LastLinear:
    """The last linear layer of a classifier graph (see the module doc)."""
    _, helper, numpy_helper = _onnx()
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    producer = {o: n for n in g.node for o in n.output}
    name = g.output[0].name
    # through shape-only steps to the layer that makes the logits
    while name in producer and producer[name].op_type in ("Identity", "Reshape", "Flatten", "Squeeze"):
        name = producer[name].input[0]
    node = producer.get(name)
    if node is None:
        raise DeckError("the classifier's output is not made by a node: cannot find its last layer")
    if node.op_type == "Gemm":
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        if attrs.get("transA", 0) or len(node.input) < 3:
            raise DeckError("the classifier's last Gemm has transA or no bias: not supported for decks")
        if node.input[1] not in inits or node.input[2] not in inits:
            raise DeckError("the classifier's last Gemm has computed weights: not supported for decks")
        w = numpy_helper.to_array(inits[node.input[1]]).astype(np.float32)
        b = numpy_helper.to_array(inits[node.input[2]]).astype(np.float32)
        alpha, beta = float(attrs.get("alpha", 1.0)), float(attrs.get("beta", 1.0))
        trans = bool(attrs.get("transB", 0))
        weight = (w if trans else w.T) * alpha
        return LastLinear(node.input[0], weight, b.reshape(-1) * beta, [node], node.input[1], node.input[2],
                          "gemm-transB" if trans else "gemm")
    if node.op_type == "Add":
        a, c = node.input
        mm = producer.get(a) if c in inits else producer.get(c)
        bias_name = c if c in inits else a
        if mm is None or mm.op_type != "MatMul" or mm.input[1] not in inits:
            raise DeckError("the classifier's last layer is an Add but not MatMul + bias: not supported for decks")
        w = numpy_helper.to_array(inits[mm.input[1]]).astype(np.float32)  # (features, classes)
        b = numpy_helper.to_array(inits[bias_name]).astype(np.float32)
        return LastLinear(mm.input[0], w.T.copy(), b.reshape(-1), [mm, node], mm.input[1], bias_name, "matmul")
    raise DeckError(f"the classifier ends in a {node.op_type} node, not a linear layer: not supported for decks")


def _colour_front(model, matrix: np.ndarray) -> None:
    """Put `clip(M @ [r, g, b, 1])` in front of the graph's input (M: 3x4, RGB order)."""
    _, helper, numpy_helper = _onnx()
    g = model.graph
    inp = g.input[0].name
    inner = inp + "_deck_colour"
    for n in g.node:
        for i, x in enumerate(n.input):
            if x == inp:
                n.input[i] = inner
    w = np.asarray(matrix[:, :3], np.float32).reshape(3, 3, 1, 1)
    b = np.asarray(matrix[:, 3], np.float32)
    g.initializer.extend([
        numpy_helper.from_array(w, "deck_colour_w"), numpy_helper.from_array(b, "deck_colour_b"),
        numpy_helper.from_array(np.float32(0.0), "deck_colour_lo"),
        numpy_helper.from_array(np.float32(1.0), "deck_colour_hi"),
    ])
    nodes = [
        helper.make_node("Conv", [inp, "deck_colour_w", "deck_colour_b"], [inner + "_raw"], kernel_shape=[1, 1],
                         name="deck_colour"),
        helper.make_node("Clip", [inner + "_raw", "deck_colour_lo", "deck_colour_hi"], [inner], name="deck_clip"),
    ]
    for k, n in enumerate(nodes):
        g.node.insert(k, n)


def feature_model(path: Path, matrix: np.ndarray | None = None) -> tuple[bytes, LastLinear]:
    """The generic classifier (behind the colour transform, when given) with its penultimate
    features as a second output named FEATURES. Returns (ONNX bytes, the last layer)."""
    onnx, helper, _ = _onnx()
    model = load(path)
    layer = last_linear(model)
    if matrix is not None:
        _colour_front(model, matrix)
    g = model.graph
    g.node.append(helper.make_node("Identity", [layer.features], [FEATURES], name="deck_features_out"))
    g.output.append(helper.make_tensor_value_info(FEATURES, onnx.TensorProto.FLOAT, None))
    return model.SerializeToString(), layer


def deck_model(path: Path, out: Path, head_w: np.ndarray, head_b: np.ndarray, subclasses: int,
               temperature: float, matrix: np.ndarray | None, metadata: dict[str, str],
               enrolled: np.ndarray | None = None) -> None:
    """Write the adapted classifier: logits = (generic logits + head) / temperature, with the
    colour map in front. head = LSE over each class's `subclasses` rows of (head_w @ features
    + head_b): a second linear layer on the generic one's features (one row per class and
    turn of the card). A class not enrolled (`enrolled` 0: a lost card) gets the
    best enrolled class's head score, so the head never speaks against it: the generic
    layer decides it. The generic layer stays as it is."""
    onnx, helper, numpy_helper = _onnx()
    model = load(path)
    layer = last_linear(model)
    k = layer.weight.shape[0]
    if head_w.shape != (k * subclasses, layer.weight.shape[1]):
        raise DeckError(f"deck head {head_w.shape} does not fit the classifier's last layer {layer.weight.shape}")
    g = model.graph
    final = g.output[0].name
    inner = final + "_generic"
    for n in g.node:
        for i, x in enumerate(n.output):
            if x == final:
                n.output[i] = inner
        for i, x in enumerate(n.input):
            if x == final:
                n.input[i] = inner
    g.initializer.extend([
        numpy_helper.from_array(np.ascontiguousarray(head_w, np.float32), "deck_head_w"),
        numpy_helper.from_array(np.asarray(head_b, np.float32).reshape(-1), "deck_head_b"),
        numpy_helper.from_array(np.array([-1, k, subclasses], np.int64), "deck_head_shape"),
        numpy_helper.from_array(np.array([2], np.int64), "deck_head_axes"),
        numpy_helper.from_array(np.float32(1.0 / temperature), "deck_inv_t"),
    ])
    flat = layer.features + "_deck_flat"
    opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=17)
    lse_inputs = ["deck_head_3d"] + (["deck_head_axes"] if opset >= 18 else [])
    lse_attrs = {"keepdims": 0} | ({} if opset >= 18 else {"axes": [2]})
    m = np.ones(k, np.float32) if enrolled is None else np.asarray(enrolled, np.float32).reshape(k)
    g.initializer.extend([
        numpy_helper.from_array(m, "deck_enrolled"),
        numpy_helper.from_array((1.0 - m).astype(np.float32), "deck_not_enrolled"),
        numpy_helper.from_array(((m - 1.0) * 1e6).astype(np.float32), "deck_enrolled_only"),
        numpy_helper.from_array(np.array([1], np.int64), "deck_class_axis"),
    ])
    max_inputs = ["deck_head_masked"] + (["deck_class_axis"] if opset >= 18 else [])
    max_attrs = {"keepdims": 1} | ({} if opset >= 18 else {"axes": [1]})
    g.node.extend([
        helper.make_node("Flatten", [layer.features], [flat], axis=1, name="deck_flat"),
        helper.make_node("Gemm", [flat, "deck_head_w", "deck_head_b"], ["deck_head"], transB=1, name="deck_head"),
        helper.make_node("Reshape", ["deck_head", "deck_head_shape"], ["deck_head_3d"], name="deck_head_turns"),
        helper.make_node("ReduceLogSumExp", lse_inputs, ["deck_head_lse"], name="deck_head_lse", **lse_attrs),
        helper.make_node("Add", ["deck_head_lse", "deck_enrolled_only"], ["deck_head_masked"], name="deck_mask"),
        helper.make_node("ReduceMax", max_inputs, ["deck_head_best"], name="deck_head_best", **max_attrs),
        helper.make_node("Mul", ["deck_head_lse", "deck_enrolled"], ["deck_head_own"], name="deck_head_own"),
        helper.make_node("Mul", ["deck_head_best", "deck_not_enrolled"], ["deck_head_lent"], name="deck_head_lent"),
        helper.make_node("Add", ["deck_head_own", "deck_head_lent"], ["deck_head_final"], name="deck_head_final"),
        helper.make_node("Add", [inner, "deck_head_final"], ["deck_sum"], name="deck_blend"),
        helper.make_node("Mul", ["deck_sum", "deck_inv_t"], [final], name="deck_temperature"),
    ])
    if matrix is not None:
        _colour_front(model, matrix)
    for key, v in metadata.items():
        entry = next((p for p in model.metadata_props if p.key == key), None)
        if entry is None:
            entry = model.metadata_props.add()
            entry.key = key
        entry.value = v
    onnx.checker.check_model(model)
    tmp = Path(str(out) + ".tmp")
    onnx.save(model, str(tmp))
    tmp.replace(out)


__all__ = ["FEATURES", "LastLinear", "deck_model", "feature_model", "last_linear"]
