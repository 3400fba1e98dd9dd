"""The figures of `uno-table deck` (models/README.md, "Deck enrolment"): before and after.

    python -m models.deck_proof render --look party --seed 1 --json
        a rendered deck the generic model never saw: enrolment photos (2 photos of the 54
        faces laid out) -> `deck learn` (names: the classifier alone vs the assignment) ->
        the host's corrections from the truth (counted) -> `deck fit` (timed) -> top-1 on
        new photos of the same deck (other layouts, angles, focus, distance; never enrolled),
        generic vs fitted, and on the shared real photo sets.
    python -m models.deck_proof set real-cards-mit --json
        a shared set with several photos of some faces: the first photo of each face
        enrolled (re-photographed in two layouts), every other photo tested (never enrolled).
    python -m models.deck_proof mit2 --json
        real-cards-2010s-mit2 (52 photos, one per coloured face, warm light; no wilds):
        A. two folds by face: enrol the photos of half the faces of each colour, test on the
           photos of the other half (faces never enrolled: only the light's colours carry
           over); then the other way round;
        B. all 52 enrolled from synthetic re-photographs (each photo's card cut out and laid
           on a table in two layout photos), tested on the original photos: those pixels
           were enrolled (re-photographed), so B shows the fit on its own cards, not a
           hold-out.

    python -m models.deck_proof fit-stages proof-party-s1 --json
        the deck fitted again (the same settings give the same classifier), each stage timed.
    python -m models.deck_proof true-boxes proof-party-s1 --json
        the classifier alone on the new photos of a `render` run, each card cut at its true
        outline (what a tight box gives), generic vs fitted: apart from the detector's boxes
        on whole photos, where a card is 40-50 px long at the detector's 320 px input.

An evaluation script (floor 3): nothing in the runtime imports it.
Deck looks: `DESIGN[+wear][@CAST]` (vision.decks.looks). Writes decks named `proof-...`
into the data dir and the photos into data/deck-proof/.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from vision.decks import store
from vision.decks.looks import DeckLook, deck_cards, layout_photos
from vision.real_faces import shared_data


def _write_photos(photos, folder: Path, prefix: str) -> tuple[list[Path], list[tuple[str, str, np.ndarray]]]:
    folder.mkdir(parents=True, exist_ok=True)
    paths, truth = [], []
    for i, (img, cards) in enumerate(photos):
        p = folder / f"{prefix}{i + 1}.jpg"
        cv2.imwrite(str(p), img, [cv2.IMWRITE_JPEG_QUALITY, 92])
        paths.append(p)
        truth += [(p.name, name, quad) for name, quad in cards]
    with (folder / f"{prefix}truth.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["image", "card", "quad"])
        for image, name, quad in truth:
            w.writerow([image, name, store.format_quad(quad)])
    return paths, truth


def _nearest(truth, image: str, quad: np.ndarray) -> str | None:
    c = np.asarray(quad).mean(axis=0)
    best, d_best = None, 1e9
    for im, name, q in truth:
        if im != image:
            continue
        d = float(np.linalg.norm(q.mean(axis=0) - c))
        size = float(np.linalg.norm(q[0] - q[2]))
        if d < 0.3 * size and d < d_best:
            best, d_best = name, d
    return best


def naming_figures(name: str, truth, photo_names: list[str]) -> dict:
    """How many of the enrolled cards the classifier alone and the assignment named right."""
    folder = store.deck_dir(name)
    learnt = store.read_cards(folder)
    assigned = 0
    wrong = []
    for c in learnt:
        image = photo_names[int(Path(c.image).name.split("-")[0]) - 1]
        t = _nearest(truth, image, c.quad)
        assigned += t == c.card
        if t != c.card:
            wrong.append([t, c.card])
    return {"cards": len(learnt), "assignment_right": assigned, "wrong": wrong}


def correct_from_truth(name: str, truth, photo_names: list[str]) -> int:
    """The host's taps: every wrong name set right from the truth. Returns how many."""
    folder = store.deck_dir(name)
    cards = store.read_cards(folder)
    taps = 0
    for c in cards:
        image = photo_names[int(Path(c.image).name.split("-")[0]) - 1]
        t = _nearest(truth, image, c.quad)
        if t is not None and t != c.card:
            c.card = t
            taps += 1
    store.write_cards(folder, cards)
    return taps


def score_photos(detector, photos: list[Path], truth) -> dict:
    """Top-1 on every truth card of the photos: the detection at its place must name it."""
    right = found = 0
    confusions: dict[str, int] = {}
    for p in photos:
        dets = detector.detect(cv2.imread(str(p)))
        for im, name, q in truth:
            if im != p.name:
                continue
            c = q.mean(axis=0)
            size = float(np.linalg.norm(q[0] - q[2]))
            near = [d for d in dets if d.quad is not None
                    and np.linalg.norm(np.asarray(d.quad).mean(axis=0) - c) < 0.3 * size]
            if not near:
                continue
            found += 1
            d = max(near, key=lambda d: d.confidence)
            if d.card == name:
                right += 1
            else:
                key = f"{name}->{d.card}"
                confusions[key] = confusions.get(key, 0) + 1
    n = len([t for t in truth if t[0] in {p.name for p in photos}])
    return {"cards": n, "found": found, "right": right, "top1": round(right / max(1, n), 4),
            "confusions": dict(sorted(confusions.items(), key=lambda kv: -kv[1])[:12])}


def _photo_config(**kw):
    """The detector as `uno-table detect` reads photos (tiles), every reading kept."""
    from vision.config import OnnxDetectorConfig

    return OnnxDetectorConfig(min_confidence=0.0, tiles=True, **kw)


def _detector(deck: str | None):
    from vision.detectors import make_detector

    return make_detector(_photo_config(deck=deck))


def shared_sets(deck: str | None, sets=("real-cards-mit", "real-cards-2010s-mit2", "real-cards-classic-apache")) -> dict:
    from vision.evaluate import evaluate_photos

    out = {}
    for s in sets:
        folder = shared_data() / s
        if (folder / "labels.csv").is_file():
            r = evaluate_photos(folder, _photo_config(deck=deck))
            out[s] = f"{r['right']}/{r['photos']}"
    return out


def _learn(name: str, paths, allow_missing: bool = False) -> tuple[dict, float]:
    from vision.decks.learn import DeckLearnError, learn

    t0 = time.perf_counter()
    try:
        report = learn(name, paths, replace=True, allow_missing=allow_missing)
        problems = []
    except DeckLearnError as exc:
        report, problems = exc.report, [str(exc)]
        if report is None:
            raise
    return report.to_json() | {"problems": problems}, time.perf_counter() - t0


def run_render(look: DeckLook, photos: int, test_sets: int, fit_settings=None, shared: bool = True,
               progress: bool = False) -> dict:
    from vision.decks.fit import fit

    name = f"proof-{str(look).replace('+', '_').replace('@', '_').replace('~', 'h')}-s{look.seed}"
    out = Path(store.decks_root()).parent / "deck-proof" / name
    cards = deck_cards(look, 400)
    enrol = layout_photos(cards, photos=photos, seed=100 + look.seed, cast=look.cast)
    paths, truth = _write_photos(enrol, out, "enrol-")
    photo_names = [p.name for p in paths]
    learnt, learn_s = _learn(name, paths)
    result = {"deck": name, "look": str(look), "enrol_photos": len(paths), "learn_seconds": round(learn_s, 1),
              "learn": {k: learnt[k] for k in ("cards", "faces", "missing", "backs", "leftovers", "problems")}}
    if store.deck_dir(name, must_exist=False).joinpath(store.CARDS_FILE).is_file():
        result["naming"] = naming_figures(name, truth, photo_names)
        result["naming"]["classifier_alone_right"] = _alone_right(name, truth, photo_names)
        result["host_corrections"] = correct_from_truth(name, truth, photo_names)
        t0 = time.perf_counter()
        profile = fit(name, fit_settings, progress=progress)
        result["fit_seconds"] = round(time.perf_counter() - t0, 1)
        result["fit_cpu_seconds"] = profile["fit_cpu_seconds"]
        result["fit_held_back"] = profile["figures"]["held_back"]
    # new photos of the same deck: other layouts, angles, focus and distance
    tests, ttruth = [], []
    for k in range(test_sets):
        shots = layout_photos(cards, photos=4 + k % 2, size=(1600 + 320 * (k % 2), 1200 + 240 * (k % 2)),
                              seed=500 + 17 * k + look.seed, cast=look.cast, blur=0.6 + 0.3 * (k % 3), jpeg=80)
        p, t = _write_photos(shots, out, f"test{k + 1}-")
        tests += p
        ttruth += t
    result["test_photos"] = len(tests)
    result["generic_on_new_photos"] = score_photos(_detector(None), tests, ttruth)
    if "fit_seconds" in result:
        result["deck_on_new_photos"] = score_photos(_detector(name), tests, ttruth)
        if shared:
            result["shared_sets"] = {"generic": shared_sets(None), "deck": shared_sets(name)}
    return result


def _alone_right(name: str, truth, photo_names) -> int:
    """Cards whose generic top-1 (before the assignment) was their true face."""
    from vision.crops import CLASSES, crop_from_quad
    from vision.decks.learn import probabilities, session

    folder = store.deck_dir(name)
    cards = store.read_cards(folder)
    sess = session(store.generic_classifier_path())
    imgs: dict[str, np.ndarray] = {}
    crops, names = [], []
    for c in cards:
        img = imgs.setdefault(c.image, cv2.imread(str(folder / c.image)))
        crops.append(crop_from_quad(img, c.quad))
        image = photo_names[int(Path(c.image).name.split("-")[0]) - 1]
        names.append(_nearest(truth, image, c.quad))
    p = probabilities(sess, crops)
    return int(sum(CLASSES[int(i)] == n for i, n in zip(p.argmax(axis=1), names, strict=True)))


# ------------------------------------------------------------------------ mit2
def _enrol_from(name: str, cards, out: Path, seed: int, fit_settings, progress: bool) -> dict:
    """Learn (allow missing) + correct + fit a deck from card images laid out on a table."""
    from vision.decks.fit import fit

    shots = layout_photos([(c, art) for _, c, art in cards], photos=2, seed=seed, blur=0.8)
    paths, truth = _write_photos(shots, out, "enrol-")
    learnt, _ = _learn(name, paths, allow_missing=True)
    res = {"enrolled_faces": len(cards), "learn": {k: learnt[k] for k in ("cards", "faces", "problems")}}
    if store.deck_dir(name, must_exist=False).joinpath(store.CARDS_FILE).is_file():
        names = [p.name for p in paths]
        res["naming_assignment_right"] = naming_figures(name, truth, names)["assignment_right"]
        res["naming_classifier_alone_right"] = _alone_right(name, truth, names)
        res["host_corrections"] = correct_from_truth(name, truth, names)
        profile = fit(name, fit_settings, allow_missing=True, progress=progress)
        res["fit_seconds"] = profile["fit_seconds"]
        res["fit_held_back"] = profile["figures"]["held_back"]
    return res


def _photo_top1(deck: str | None, photos, classifier: Path | None = None) -> tuple[int, list]:
    if classifier is not None:
        from vision.detectors import make_detector

        det = make_detector(_photo_config(classifier_path=classifier))
    else:
        det = _detector(deck)
    right, wrong = 0, []
    for path, card in photos:
        dets = det.detect(cv2.imread(str(path)))
        best = max(dets, key=lambda d: d.confidence).card if dets else None
        right += best == card
        if best != card:
            wrong.append([card, best])
    return right, wrong


def colour_only(name: str) -> Path:
    """Deck NAME's colour map in front of the generic classifier, without its head."""
    from vision.decks import onnxgraph

    profile = store.read_json(store.deck_dir(name) / store.PROFILE_FILE)
    generic = store.generic_classifier_path()
    layer = onnxgraph.last_linear(onnxgraph.load(generic))
    k, d = layer.weight.shape
    out = store.deck_dir(name) / "colour_only.onnx"
    onnxgraph.deck_model(generic, out, np.zeros((2 * k, d), np.float32), np.zeros(2 * k, np.float32), 2, 1.0,
                         np.float32(profile["colours"]["map_rgb"]), {"deck": name + " (colours only)"})
    return out


def _set_cards(set_name: str, files: list[str] | None = None):
    """(file, card, straightened card image with alpha) of a shared set's photos."""
    from vision.decks.learn import straighten
    from vision.recognizer import CardRecognizer

    folder = shared_data() / set_name
    rec = CardRecognizer.default()
    rows = list(csv.DictReader((folder / "labels.csv").open()))
    out = []
    for r in rows:
        if files is not None and r["file"] not in files:
            continue
        img = cv2.imread(str(folder / r["file"]))
        found = rec.detect(img)
        if not found:
            continue
        q = max(found, key=lambda t: t[1])[0]
        card = straighten(img, q, 400, int(round(400 * 56 / 87)))
        out.append((folder / r["file"], r["card"], np.dstack([card, np.full(card.shape[:2], 255, np.uint8)])))
    return folder, out


def run_set(set_name: str, fit_settings=None, progress: bool = False) -> dict:
    """A shared set with several photos of some faces: the first photo of each face enrolled
    (re-photographed in two layout photos), every other photo tested (never enrolled)."""
    folder = shared_data() / set_name
    rows = list(csv.DictReader((folder / "labels.csv").open()))
    first: dict[str, str] = {}
    for r in rows:
        first.setdefault(r["card"], r["file"])
    _, cards = _set_cards(set_name, list(first.values()))
    held = [(folder / r["file"], r["card"]) for r in rows if first[r["card"]] != r["file"]]
    name = f"proof-{set_name}"
    res = {"set": set_name, "photos": len(rows), "enrolled_photos": len(cards), "held_out_photos": len(held)}
    res |= _enrol_from(name, cards, Path(store.decks_root()).parent / "deck-proof" / set_name, 320,
                       fit_settings, progress)
    g, g_wrong = _photo_top1(None, held)
    d, d_wrong = _photo_top1(name, held)
    res |= {"held_out": {"generic": g, "deck": d, "generic_wrong": g_wrong, "deck_wrong": d_wrong}}
    res["all_photos"] = {"generic": shared_sets(None, (set_name,))[set_name], "deck": shared_sets(name, (set_name,))[set_name]}
    return res


def run_mit2(fit_settings=None, progress: bool = False) -> dict:
    folder, cards = _set_cards("real-cards-2010s-mit2")
    out = Path(store.decks_root()).parent / "deck-proof" / "mit2"
    photos = [(p, c) for p, c, _ in cards]
    g_right, g_wrong = _photo_top1(None, photos)
    result = {"photos": len(photos), "generic": {"right": g_right, "wrong": g_wrong}, "folds": []}
    # A. by face: alternate ranks of each colour
    ranks = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "skip", "reverse", "draw2"]
    total = 0
    for fold in (0, 1):
        enrol = [c for c in cards if (ranks.index(c[1].split("-", 1)[1]) + "rygb".index(c[1][0])) % 2 == fold]
        test = [(p, c) for p, c, _ in cards if (p, c) not in {(e[0], e[1]) for e in enrol}]
        name = f"proof-mit2-fold{fold + 1}"
        res = _enrol_from(name, enrol, out / f"fold{fold + 1}", 300 + fold, fit_settings, progress)
        right, wrong = _photo_top1(name, test)
        g, _ = _photo_top1(None, test)
        c, c_wrong = _photo_top1(None, test, classifier=colour_only(name))
        res |= {"test_photos": len(test), "generic_right": g, "deck_right": right, "deck_wrong": wrong,
                "colours_only_right": c, "colours_only_wrong": c_wrong}
        total += right
        result["folds"].append(res)
    result["folds_deck_right"] = f"{total}/{len(photos)}"
    # B. all 52 from synthetic re-photographs, tested on the original photos (not a hold-out)
    name = "proof-mit2-all"
    res = _enrol_from(name, cards, out / "all", 310, fit_settings, progress)
    right, wrong = _photo_top1(name, photos)
    res |= {"deck_right": right, "deck_wrong": wrong}
    result["all_rephotographed"] = res
    result["shared_sets"] = {"generic": shared_sets(None), "deck_all": shared_sets(name),
                             "deck_fold1": shared_sets("proof-mit2-fold1")}
    return result


def run_true_boxes(name: str) -> dict:
    """Top-1 of the generic and the deck's classifier on the new photos of `render` (their
    truth files), each card cut at its true outline: the classifier without the detector."""
    from vision.crops import CLASSES, crop_from_quad, order_portrait
    from vision.decks.learn import classifier_feed, session

    folder = Path(store.decks_root()).parent / "deck-proof" / name
    crops, labels = [], []
    for truth in sorted(folder.glob("test*-truth.csv")):
        images: dict[str, np.ndarray] = {}
        for r in csv.DictReader(truth.open()):
            img = images.setdefault(r["image"], cv2.imread(str(folder / r["image"])))
            quad = np.float32([float(v) for v in r["quad"].split()]).reshape(4, 2)
            crops.append(crop_from_quad(img, order_portrait(quad)))
            labels.append(r["card"])
    if not crops:
        raise SystemExit(f"no new photos in {folder}: run `python -m models.deck_proof render` first")
    out = {"deck": name, "cards": len(crops)}
    for key, path in (("generic", store.generic_classifier_path()), ("fitted", store.deck_classifier(name))):
        sess = session(path)
        z = sess.run(None, classifier_feed(crops, sess))[0]
        names = [CLASSES[int(i)] for i in z.argmax(axis=1)]
        wrong = [f"{t}->{p}" for t, p in zip(labels, names, strict=True) if t != p]
        out[key] = {"right": len(crops) - len(wrong), "top1": round(1 - len(wrong) / len(crops), 4),
                    "wrong": wrong[:20]}
    return out


def run_fit_stages(name: str, fit_settings=None) -> dict:
    """Fit deck NAME again (the same settings give the same classifier) and time each stage:
    wall and CPU seconds (for scaling the fit to a Raspberry Pi)."""
    from vision.decks.fit import fit

    marks: list[tuple[str, float, float]] = []

    def stage(text, done, total):
        if not marks or marks[-1][0] != text:
            marks.append((text, time.perf_counter(), time.process_time()))

    t0 = time.perf_counter()
    profile = fit(name, fit_settings, progress=False, callback=stage)
    marks.append(("", time.perf_counter(), time.process_time()))
    stages = {a[0]: {"wall_s": round(b[1] - a[1], 1), "cpu_s": round(b[2] - a[2], 1)}
              for a, b in zip(marks[:-1], marks[1:], strict=True)}
    return {"deck": name, "fit_seconds": profile["fit_seconds"], "fit_cpu_seconds": profile["fit_cpu_seconds"],
            "before_the_first_stage_s": round(marks[0][1] - t0, 1), "stages": stages,
            "note": "the last stage (fit) includes writing and checking the deck's ONNX"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m models deck-proof", description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    r = sub.add_parser("render", help="a rendered deck: learn, fit, test on new photos")
    r.add_argument("--look", default="party", help="DESIGN[+wear][@CAST], e.g. party, 2010s+wear@tungsten")
    r.add_argument("--seed", type=int, default=1, help="the deck's printing and its photos")
    r.add_argument("--photos", type=int, default=2, help="enrolment photos (1-6)")
    r.add_argument("--test-sets", type=int, default=4, help="new layouts of the 54 faces to test on")
    r.add_argument("--no-shared", action="store_true", help="skip the shared real photo sets")
    m = sub.add_parser("mit2", help="real-cards-2010s-mit2: two folds by face, and all re-photographed")
    t = sub.add_parser("set", help="a shared set with several photos of some faces: enrol one, test the others")
    t.add_argument("set_name", metavar="SET", help="real-cards-mit or real-cards-classic-apache")
    b = sub.add_parser("true-boxes", help="the classifier alone on a render run's new photos, cut at the true outlines")
    b.add_argument("deck", help="a deck written by `render`, e.g. proof-party-s1")
    b.add_argument("--json", action="store_true")
    f = sub.add_parser("fit-stages", help="fit a deck again, timing each stage")
    f.add_argument("deck", help="a learnt deck, e.g. proof-party-s1")
    for p in (r, m, t, f):
        p.add_argument("--fast", action="store_true", help="a quick fit (tests)")
        p.add_argument("--per-card", type=int, help="training augmentations per card (default: deck fit's)")
        p.add_argument("--scenes", type=int, help="detector scenes per card (default: deck fit's)")
        p.add_argument("--held-back", type=int, help="held-back augmentations per card (default: deck fit's)")
        p.add_argument("--progress", action="store_true", help="the fit's progress bar")
        p.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    if args.what == "true-boxes":
        result = run_true_boxes(args.deck)
        print(json.dumps(result) if args.json else json.dumps(result, indent=1))
        return 0
    from vision.decks.fit import FitSettings

    settings = FitSettings.fast() if args.fast else FitSettings()
    for k in ("per_card", "scenes", "held_back"):
        if getattr(args, k) is not None:
            setattr(settings, k, getattr(args, k))
    if args.what == "fit-stages":
        result = run_fit_stages(args.deck, settings)
    elif args.what == "render":
        result = run_render(DeckLook.parse(args.look, seed=args.seed), args.photos, args.test_sets, settings,
                            shared=not args.no_shared, progress=args.progress)
    elif args.what == "set":
        result = run_set(args.set_name, settings, progress=args.progress)
    else:
        result = run_mit2(settings, progress=args.progress)
    print(json.dumps(result) if args.json else json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["colour_only", "run_mit2", "run_render", "run_fit_stages", "run_set", "run_true_boxes"]
