"""Overlaps, fans and table scenes on the tuning seeds (never the model card's), to choose
between models: `python tools/overlap_tune.py MODELS_DIR|shipped OUT.json [--no-mirror]`. MODELS_DIR holds
the four ONNX files (links to the shipped ones beside the one tried). Rendered overlaps seed
9393, fans 9394, table scenes 9395; the three shared sets' cut-outs seed 9292 (models/README.md,
twentieth session). --no-mirror: a photo read unsurely is not read again mirrored (the figures
before the twenty-second session)."""

import json
import sys
from pathlib import Path

import models.evaluate as ev


def main() -> None:
    folder = None if sys.argv[1] == "shipped" else Path(sys.argv[1])
    rec = ev._recognizer(folder, **({"mirror": False} if "--no-mirror" in sys.argv[3:] else {}))
    print("corner reader:", rec.corner_path, file=sys.stderr)
    out = {"renders": ev.eval_overlap(rec, seed=9393)["overlap"]}
    out["renders"]["fan"] = ev.eval_fan(rec, seed=9394)
    out["renders"]["table"] = ev.eval_table(rec, seed=9395)
    out.update(ev.eval_overlap_real(rec, ["mit", "mit2", "classic"], seed=9292)["overlap_real"])
    Path(sys.argv[2]).write_text(json.dumps(out, indent=1))
    for name, parts in out.items():
        print(name, {k: (f.get("recall_covered", f.get("recall_all")), f.get("precision"), f.get("f1"))
                     for k, f in parts.items()})


if __name__ == "__main__":
    main()
