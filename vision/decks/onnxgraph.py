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

import copy
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.crops import WHITE_CHROMA, WHITE_INPUT
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
    _rename(g, inp, inner, outputs=False)
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
    model = load(path)
    layer = last_linear(model)
    if matrix is not None:
        _colour_front(model, matrix)
    return features_of(model), layer


def _reduce(helper, op: str, x: str, out: str, axis: int, opset: int, keepdims: int = 1):
    """A Reduce* node over one axis, in the opset's spelling (axes became an input in 18)."""
    if opset >= 18:
        return [helper.make_node(op, [x, f"deck_axis_{axis}"], [out], name=out, keepdims=keepdims)]
    return [helper.make_node(op, [x], [out], name=out, keepdims=keepdims, axes=[axis])]


def _pair_input(model, helper, numpy_helper) -> None:
    """Run the graph on the colour-mapped crops and the crops as they are, in one batch of 2N:
    the mapped half for the deck's reading, the other half for the generic reading and the
    gate. (`_colour_front` must have run: its output is the mapped input.)"""
    g = model.graph
    inp = g.input[0].name
    mapped = inp + "_deck_colour"
    pair = inp + "_deck_pair"
    for n in g.node:
        if n.name in ("deck_colour", "deck_clip"):
            continue
        for i, x in enumerate(n.input):
            if x == mapped:
                n.input[i] = pair
    g.node.insert(2, helper.make_node("Concat", [mapped, inp], [pair], axis=0, name="deck_pair"))
    g.initializer.extend([
        numpy_helper.from_array(np.array([0], np.int64), "deck_zero"),
        numpy_helper.from_array(np.array([1], np.int64), "deck_one"),
        numpy_helper.from_array(np.array([np.iinfo(np.int64).max], np.int64), "deck_end"),
    ])
    g.node.insert(3, helper.make_node("Shape", [inp], ["deck_in_shape"], name="deck_in_shape"))
    g.node.insert(4, helper.make_node("Slice", ["deck_in_shape", "deck_zero", "deck_one"], ["deck_n"], name="deck_n"))


def _halves(helper, x: str) -> tuple[list, str, str]:
    """Nodes splitting a 2N batch (see `_pair_input`) into its mapped and as-is halves."""
    m, r = x + "_mapped", x + "_as_is"
    return [
        helper.make_node("Slice", [x, "deck_zero", "deck_n", "deck_zero"], [m], name=m),
        helper.make_node("Slice", [x, "deck_n", "deck_end", "deck_zero"], [r], name=r),
    ], m, r


def _gate_nodes(model, gate, flat: str, layer: LastLinear, opset: int) -> list:
    """The gate's nodes (see `deck_model`), ending in the boolean "deck_gate_inside" (N, 1),
    from the generic features `flat` of the crops as they are; adds the WHITE_INPUT input
    when the gate tests the light, and the gate's initializers."""
    onnx, helper, numpy_helper = _onnx()
    g = model.graph
    protos, refs = gate.prototypes, gate.references
    if protos.shape[1] != layer.weight.shape[1] or refs.shape[1] != layer.weight.shape[1]:
        raise DeckError(f"deck gate {protos.shape}, {refs.shape} does not fit the classifier's "
                        f"features {layer.weight.shape}")
    g.initializer.extend([
        numpy_helper.from_array(np.ascontiguousarray(protos.T, np.float32), "deck_gate_protos"),
        numpy_helper.from_array(np.ascontiguousarray(refs.T, np.float32), "deck_gate_refs"),
        numpy_helper.from_array(np.float32(1e-12), "deck_gate_eps"),
    ])
    nodes = [
        *_reduce(helper, "ReduceL2", flat, "deck_gate_norm", 1, opset),
        helper.make_node("Max", ["deck_gate_norm", "deck_gate_eps"], ["deck_gate_norm_safe"], name="deck_gate_safe"),
        helper.make_node("Div", [flat, "deck_gate_norm_safe"], ["deck_gate_unit"], name="deck_gate_unit"),
        helper.make_node("MatMul", ["deck_gate_unit", "deck_gate_protos"], ["deck_gate_sims"], name="deck_gate_sims"),
        *_reduce(helper, "ReduceMax", "deck_gate_sims", "deck_gate_best", 1, opset),
        helper.make_node("MatMul", ["deck_gate_unit", "deck_gate_refs"], ["deck_gate_ref_sims"],
                         name="deck_gate_ref_sims"),
        *_reduce(helper, "ReduceMax", "deck_gate_ref_sims", "deck_gate_ref_best", 1, opset),
        helper.make_node("GreaterOrEqual", ["deck_gate_best", "deck_gate_ref_best"],
                         ["deck_gate_card" if gate.light is not None else "deck_gate_inside"], name="deck_gate_card"),
    ]
    if gate.light is not None:
        g.input.append(helper.make_tensor_value_info(WHITE_INPUT, onnx.TensorProto.FLOAT, ["n", 3]))
        g.initializer.extend([
            numpy_helper.from_array(np.float32(1e-4), "deck_light_eps"),
            numpy_helper.from_array(WHITE_CHROMA, "deck_light_chroma"),
            numpy_helper.from_array(np.asarray(gate.light, np.float32).reshape(2), "deck_light"),
            numpy_helper.from_array(np.ones((2, 1), np.float32), "deck_light_sum"),
            numpy_helper.from_array(np.float32(gate.tolerance ** 2), "deck_light_tol2"),
        ])
        nodes += [  # (log B/G, log R/G) of the crop's white, against the enrolment light's
            helper.make_node("Max", [WHITE_INPUT, "deck_light_eps"], ["deck_white_safe"], name="deck_white_safe"),
            helper.make_node("Log", ["deck_white_safe"], ["deck_white_log"], name="deck_white_log"),
            helper.make_node("MatMul", ["deck_white_log", "deck_light_chroma"], ["deck_white_chroma"],
                             name="deck_white_chroma"),
            helper.make_node("Sub", ["deck_white_chroma", "deck_light"], ["deck_light_diff"], name="deck_light_diff"),
            helper.make_node("Mul", ["deck_light_diff", "deck_light_diff"], ["deck_light_sq"], name="deck_light_sq"),
            helper.make_node("MatMul", ["deck_light_sq", "deck_light_sum"], ["deck_light_d2"], name="deck_light_d2"),
            helper.make_node("LessOrEqual", ["deck_light_d2", "deck_light_tol2"], ["deck_gate_light"],
                             name="deck_gate_light"),
            helper.make_node("And", ["deck_gate_card", "deck_gate_light"], ["deck_gate_inside"], name="deck_gate_both"),
        ]
    return nodes


def _generic_output_renamed(model) -> tuple[str, str]:
    """Rename the graph's output tensor to a new inner name: (final name, inner name)."""
    g = model.graph
    final = g.output[0].name
    inner = final + "_generic"
    _rename(g, final, inner)
    return final, inner


def _rename(g, old: str, new: str, outputs: bool = True) -> None:
    """Every node's use of tensor `old` now names `new` (its inputs; its outputs too)."""
    for n in g.node:
        for names in ((n.input, n.output) if outputs else (n.input,)):
            for i, x in enumerate(names):
                if x == old:
                    names[i] = new


def _set_metadata(model, metadata: dict[str, str]) -> None:
    for key, v in metadata.items():
        entry = next((p for p in model.metadata_props if p.key == key), None)
        if entry is None:
            entry = model.metadata_props.add()
            entry.key = key
        entry.value = v


def _save(model, out: Path) -> None:
    onnx, _, _ = _onnx()
    onnx.checker.check_model(model)
    tmp = Path(str(out) + ".tmp")
    onnx.save(model, str(tmp))
    tmp.replace(out)


def deck_model(path: Path, out: Path, head_w: np.ndarray, head_b: np.ndarray, subclasses: int,
               temperature: float, matrix: np.ndarray | None, metadata: dict[str, str],
               enrolled: np.ndarray | None = None, gate=None) -> None:
    """Write the adapted classifier: logits = (generic logits + head) / temperature, with the
    colour map in front. head = LSE over each class's `subclasses` rows of (head_w @ features
    + head_b): a second linear layer on the generic one's features (one row per class and
    turn of the card). A class not enrolled (`enrolled` 0: a lost card) gets the
    best enrolled class's head score, so the head never speaks against it: the generic
    layer decides it. The generic layer stays as it is.

    gate (`vision.decks.fit.Gate`: prototypes and references, unit rows; the light and its
    tolerance): a crop whose generic features, from its own colours, lie nearer (cosine) a
    reference than every prototype, or whose white (a second input, WHITE_INPUT: the crop's
    own white before normalisation) is not the enrolment light's, is not this deck's: its
    logits are the generic model's on the crop as it is (the graph then reads each crop
    twice, mapped and as is, in one batch)."""
    onnx, helper, numpy_helper = _onnx()
    model = load(path)
    layer = last_linear(model)
    k = layer.weight.shape[0]
    if head_w.shape != (k * subclasses, layer.weight.shape[1]):
        raise DeckError(f"deck head {head_w.shape} does not fit the classifier's last layer {layer.weight.shape}")
    g = model.graph
    final, inner = _generic_output_renamed(model)
    g.initializer.extend([
        numpy_helper.from_array(np.ascontiguousarray(head_w, np.float32), "deck_head_w"),
        numpy_helper.from_array(np.asarray(head_b, np.float32).reshape(-1), "deck_head_b"),
        numpy_helper.from_array(np.array([-1, k, subclasses], np.int64), "deck_head_shape"),
        numpy_helper.from_array(np.array([1], np.int64), "deck_axis_1"),
        numpy_helper.from_array(np.array([2], np.int64), "deck_axis_2"),
        numpy_helper.from_array(np.float32(1.0 / temperature), "deck_inv_t"),
    ])
    opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=17)
    m = np.ones(k, np.float32) if enrolled is None else np.asarray(enrolled, np.float32).reshape(k)
    g.initializer.extend([
        numpy_helper.from_array(m, "deck_enrolled"),
        numpy_helper.from_array((1.0 - m).astype(np.float32), "deck_not_enrolled"),
        numpy_helper.from_array(((m - 1.0) * 1e6).astype(np.float32), "deck_enrolled_only"),
    ])
    paired = gate is not None and matrix is not None
    flat = layer.features + "_deck_flat"
    nodes = [helper.make_node("Flatten", [layer.features], [flat], axis=1, name="deck_flat")]
    flat_m = flat_r = flat
    generic_m = generic_r = inner
    if paired:
        split, flat_m, flat_r = _halves(helper, flat)
        split2, generic_m, generic_r = _halves(helper, inner)
        nodes += split + split2
    nodes += [
        helper.make_node("Gemm", [flat_m, "deck_head_w", "deck_head_b"], ["deck_head"], transB=1, name="deck_head"),
        helper.make_node("Reshape", ["deck_head", "deck_head_shape"], ["deck_head_3d"], name="deck_head_turns"),
        *_reduce(helper, "ReduceLogSumExp", "deck_head_3d", "deck_head_lse", 2, opset, keepdims=0),
        helper.make_node("Add", ["deck_head_lse", "deck_enrolled_only"], ["deck_head_masked"], name="deck_mask"),
        *_reduce(helper, "ReduceMax", "deck_head_masked", "deck_head_best", 1, opset),
        helper.make_node("Mul", ["deck_head_lse", "deck_enrolled"], ["deck_head_own"], name="deck_head_own"),
        helper.make_node("Mul", ["deck_head_best", "deck_not_enrolled"], ["deck_head_lent"], name="deck_head_lent"),
        helper.make_node("Add", ["deck_head_own", "deck_head_lent"], ["deck_head_final"], name="deck_head_final"),
        helper.make_node("Add", [generic_m, "deck_head_final"], ["deck_sum"], name="deck_blend"),
    ]
    if gate is None:
        nodes.append(helper.make_node("Mul", ["deck_sum", "deck_inv_t"], [final], name="deck_temperature"))
    else:
        nodes.append(helper.make_node("Mul", ["deck_sum", "deck_inv_t"], ["deck_reading"], name="deck_temperature"))
        nodes += _gate_nodes(model, gate, flat_r, layer, opset)
        nodes.append(helper.make_node("Where", ["deck_gate_inside", "deck_reading", generic_r], [final], name="deck_gate"))
    g.node.extend(nodes)
    if matrix is not None:
        _colour_front(model, matrix)
        if paired:
            _pair_input(model, helper, numpy_helper)
    _set_metadata(model, metadata)
    _save(model, out)


def _prefixed(nodes, inits, prefix: str, keep: dict[str, str]) -> None:
    """Prefix every node's name and tensor names, and the initializers' names, but those in
    `keep` (renamed as it says): a network copied beside another of the same export."""
    for n in nodes:
        n.name = prefix + n.name
        n.input[:] = [keep.get(x, prefix + x if x else x) for x in n.input]
        n.output[:] = [keep.get(x, prefix + x) for x in n.output]
    for t in inits:
        t.name = prefix + t.name


def tuned_deck_model(path: Path, out: Path, tuned, gate, metadata: dict[str, str]) -> None:
    """Write a deck's classifier whose reading is its own network: `tuned` (an ONNX model,
    the generic classifier fine-tuned on the deck's crops: the same input, logits for the
    same classes) reads every crop, and the gate, on the tuned network's own features
    (`vision.decks.fit.Gate`), keeps the deck's cards; the generic classifier reads the
    others, and only them: when the gate keeps every crop (a table of this deck) it is not
    run at all, so the deck costs one network, as the generic model does (no colour map: the
    tuned network learnt the deck's colours). The same input, output and metadata as the
    generic model."""
    onnx, helper, numpy_helper = _onnx()
    generic = load(path)
    model = copy.deepcopy(tuned)
    g, gg = model.graph, generic.graph
    if len(g.input) != 1 or len(g.output) != 1:
        raise DeckError("the tuned network must have one input and one output")
    layer = last_linear(model)
    opset = max((o.version for o in model.opset_import if o.domain in ("", "ai.onnx")), default=17)
    crops, final = gg.input[0].name, gg.output[0].name
    _rename(g, g.input[0].name, crops, outputs=False)
    g.input[0].name = crops
    tuned_out = "deck_tuned_logits"
    _rename(g, g.output[0].name, tuned_out)
    del g.output[:]
    g.output.append(helper.make_tensor_value_info(final, onnx.TensorProto.FLOAT, ["n", layer.weight.shape[0]]))
    g.initializer.extend([
        numpy_helper.from_array(np.array([1], np.int64), "deck_axis_1"),
        numpy_helper.from_array(np.float32(0.5), "deck_half"),
        numpy_helper.from_array(np.array([-1], np.int64), "deck_flat_shape"),
    ])
    flat = layer.features + "_deck_flat"
    nodes = [helper.make_node("Flatten", [layer.features], [flat], axis=1, name="deck_flat")]
    nodes += _gate_nodes(model, gate, flat, layer, opset)
    nodes += [  # every crop the deck's: the tuned reading as it is
        helper.make_node("Cast", ["deck_gate_inside"], ["deck_inside_f"], to=onnx.TensorProto.FLOAT, name="deck_inside_f"),
        helper.make_node("ReduceMin", ["deck_inside_f"], ["deck_all_inside_f"], keepdims=0, name="deck_all_inside_f"),
        helper.make_node("Greater", ["deck_all_inside_f", "deck_half"], ["deck_all_inside"], name="deck_all_inside"),
    ]
    then_g = helper.make_graph(
        [helper.make_node("Identity", [tuned_out], ["deck_then_logits"], name="deck_then")], "deck_all_own", [],
        [helper.make_tensor_value_info("deck_then_logits", onnx.TensorProto.FLOAT, None)])
    # some crop not the deck's: the generic network on those crops only, its logits in their rows
    gnodes, ginits = list(gg.node), list(gg.initializer)
    _prefixed(gnodes, ginits, "deck_generic_", {crops: "deck_foreign_crops"})
    else_nodes = [
        helper.make_node("Not", ["deck_gate_inside"], ["deck_foreign_2d"], name="deck_foreign_2d"),
        helper.make_node("Reshape", ["deck_foreign_2d", "deck_flat_shape"], ["deck_foreign"], name="deck_foreign"),
        helper.make_node("Compress", [crops, "deck_foreign"], ["deck_foreign_crops"], axis=0, name="deck_foreign_crops"),
        *gnodes,
        helper.make_node("NonZero", ["deck_foreign"], ["deck_foreign_rows_t"], name="deck_foreign_rows_t"),
        helper.make_node("Transpose", ["deck_foreign_rows_t"], ["deck_foreign_rows"], perm=[1, 0], name="deck_foreign_rows"),
        helper.make_node("ScatterND", [tuned_out, "deck_foreign_rows", "deck_generic_" + final], ["deck_else_logits"],
                         name="deck_generic_rows"),
    ]
    else_g = helper.make_graph(else_nodes, "deck_some_foreign", [],
                               [helper.make_tensor_value_info("deck_else_logits", onnx.TensorProto.FLOAT, None)],
                               initializer=ginits)
    nodes.append(helper.make_node("If", ["deck_all_inside"], [final], then_branch=then_g, else_branch=else_g,
                                  name="deck_gate"))
    g.node.extend(nodes)
    del model.metadata_props[:]
    model.metadata_props.extend(generic.metadata_props)
    _set_metadata(model, metadata)
    _save(model, out)


def features_of(model) -> bytes:
    """An ONNX classifier (a ModelProto, left as it is) with its penultimate features as a
    second output named FEATURES (the generic classifier's: `feature_model`; a tuned one's:
    `models.deck_tune`)."""
    onnx, helper, _ = _onnx()
    model = copy.deepcopy(model)
    layer = last_linear(model)
    model.graph.node.append(helper.make_node("Identity", [layer.features], [FEATURES], name="deck_features_out"))
    model.graph.output.append(helper.make_tensor_value_info(FEATURES, onnx.TensorProto.FLOAT, None))
    return model.SerializeToString()


__all__ = ["FEATURES", "LastLinear", "deck_model", "feature_model", "features_of", "last_linear", "tuned_deck_model"]
