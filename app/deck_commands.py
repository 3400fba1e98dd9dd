"""`uno-table deck`: teach the table your deck, once per deck (issue 14).

    uno-table deck learn NAME IMAGE...   find and name the 54 faces laid out in 1-6 photos
    uno-table deck fit NAME              adapt the card classifier to this deck and light
    uno-table deck tune NAME             fine-tune the whole classifier on it (torch: a laptop)
    uno-table deck list | show NAME | remove NAME

Then `uno-table detect --deck NAME`, `uno-table run --deck NAME` or `vision: {deck: NAME}`
in uno-table.yaml. Everything runs start to end without a question.
"""

from __future__ import annotations

import argparse
import json
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "deck", help="teach the table your deck (learn, fit, tune, list, show, remove)",
        description="Lay one card of each of the 54 faces face up and apart, take 1 to 6 photos, then "
        "`deck learn NAME PHOTO...` and `deck fit NAME`; play with `run --deck NAME`.",
    )
    dsub = p.add_subparsers(dest="deck_command", metavar="ACTION")
    dsub.required = True

    q = dsub.add_parser("learn", help="find and name the deck's 54 faces in photos of them laid out",
                        description="Finds every card in the photos and names each (one of each face: "
                        "an assignment problem). Writes DATA/decks/NAME/cards.csv (edit `card` to correct a "
                        "name) and crops/. Writes nothing when something is wrong, and says what.")
    q.add_argument("name", metavar="NAME", help="the deck's name (letters, digits, - _ .)")
    q.add_argument("images", nargs="+", metavar="IMAGE", help="1 to 6 photos of the cards laid out face up, apart")
    q.add_argument("--replace", action="store_true", help="learn an existing deck again")
    q.add_argument("--allow-missing", action="store_true",
                   help="accept a deck with faces missing (lost cards): those are read by the generic model")
    q.add_argument("--json", action="store_true", help="print the report as one JSON object")
    q.set_defaults(func=cmd_learn)

    q = dsub.add_parser("fit", help="adapt the card classifier to the deck (a few minutes, offline)",
                        description="Learns this light's card colours and a new last layer of the classifier from "
                        "heavily augmented crops of the enrolled cards; writes DATA/decks/NAME/deck_classifier.onnx "
                        "and profile.json.")
    q.add_argument("name", metavar="NAME")
    q.add_argument("--per-card", type=int, default=None, help="training augmentations per card (default 100)")
    q.add_argument("--held-back", type=int, default=None, help="augmentations per card kept back to measure (default 20)")
    q.add_argument("--no-colour", action="store_true", help="do not learn the light's colours")
    q.add_argument("--no-gate", action="store_true",
                   help="read every card with the deck's classifier, also cards unlike the deck's "
                        "(default: those are read by the generic model)")
    q.add_argument("--fast", action="store_true", help="few augmentations (a quick check, lower accuracy)")
    q.add_argument("--allow-missing", action="store_true", help="fit a deck with faces missing from cards.csv")
    q.add_argument("--seed", type=int, default=0, help="seed of the augmentations")
    q.add_argument("--json", action="store_true", help="print the profile as one JSON object")
    q.add_argument("--quiet", action="store_true", help="no progress bar")
    q.set_defaults(func=cmd_fit)

    q = dsub.add_parser("tune", help="after fit: fine-tune the whole classifier on the deck (torch; minutes on a laptop)",
                        description="For a deck the fit still misreads (a design unlike the three the generic model "
                        "knows): trains every layer of a copy of the classifier on the fit's crops and writes it into "
                        "DATA/decks/NAME/deck_classifier.onnx as the deck's reading, behind the fit's gate. Needs the "
                        "training packages (pip install -e '.[train]'); the file it writes runs anywhere, a Pi too.")
    q.add_argument("name", metavar="NAME")
    q.add_argument("--epochs", type=int, default=4, help="passes over the deck's crops (default 4)")
    q.add_argument("--scenes", type=int, default=None,
                   help="small table scenes a card to learn from (default: python -m models deck-tune's)")
    q.add_argument("--freeze", type=int, default=None,
                   help="leading convolution blocks kept as the generic classifier's, not tuned "
                        "(default: python -m models deck-tune's)")
    q.add_argument("--quiet", action="store_true", help="no progress bar")
    q.set_defaults(func=cmd_tune)

    q = dsub.add_parser("detector", help="teach the table's card detector this deck (ultralytics; minutes on a laptop)",
                        description="For a deck whose cards the table boxes badly (two cards of a row as one, a "
                        "pile's top card turned): fine-tunes the table's detector on simulated tables and scenes "
                        "laid with the deck's enrolled cards and writes DATA/decks/NAME/deck_detector.onnx, which "
                        "the table then reads with. Run it before `deck tune`. Needs the training packages (pip "
                        "install -e '.[train]'); the file it writes runs anywhere, a Pi too.")
    q.add_argument("name", metavar="NAME")
    q.add_argument("--epochs", type=int, default=5, help="passes over the data (default 5)")
    q.add_argument("--tables", type=int, default=None, help="zone crops of simulated tables (default 600)")
    q.add_argument("--scenes", type=int, default=None, help="training scenes with the deck's cards (default 200)")
    q.add_argument("--quiet", action="store_true", help="no progress bars")
    q.set_defaults(func=cmd_detector)

    q = dsub.add_parser("list", help="the decks taught to this table")
    q.add_argument("--json", action="store_true")
    q.set_defaults(func=cmd_list)

    q = dsub.add_parser("show", help="a deck: faces enrolled, fit accuracy, whether it can be used")
    q.add_argument("name", metavar="NAME")
    q.add_argument("--json", action="store_true")
    q.set_defaults(func=cmd_show)

    q = dsub.add_parser("remove", help="forget a deck (its folder is deleted)")
    q.add_argument("name", metavar="NAME")
    q.set_defaults(func=cmd_remove)


def cmd_learn(args) -> int:
    from vision.decks.learn import DeckLearnError, learn

    try:
        report = learn(args.name, args.images, replace=args.replace, allow_missing=args.allow_missing)
    except DeckLearnError as exc:
        if args.json and exc.report is not None:
            print(json.dumps(exc.report.to_json() | {"ok": False, "error": str(exc)}))
            return 2
        raise
    from vision.decks import deck_dir

    folder = deck_dir(args.name)
    if args.json:
        print(json.dumps(report.to_json() | {"ok": True, "deck": args.name, "folder": str(folder)}))
        return 0
    for line in report.lines():
        print(line)
    print(f"wrote {folder / 'cards.csv'} and {len(report.cards)} crops in {folder / 'crops'}")
    print(f"check the names (the Setup page, or edit cards.csv), then: uno-table deck fit {args.name}")
    return 0


def cmd_fit(args) -> int:
    from vision.decks.fit import FitSettings, fit

    s = FitSettings.fast() if args.fast else FitSettings()
    if args.per_card is not None:
        s.per_card = args.per_card
    if args.held_back is not None:
        s.held_back = args.held_back
    s.colour = not args.no_colour
    s.gate = not args.no_gate
    s.seed = args.seed
    for k in ("per_card", "held_back"):
        if getattr(s, k) < 1:
            from vision.decks import DeckError

            raise DeckError(f"--{k.replace('_', '-')} must be at least 1")
    profile = fit(args.name, s, allow_missing=True if args.allow_missing else None,
                  progress=not (args.quiet or args.json))
    if args.json:
        print(json.dumps(profile))
        return 0
    f = profile["figures"]["held_back"]
    print(f"deck {args.name}: fitted in {profile['fit_seconds']:.0f} s "
          f"({profile['fit_cpu_seconds']:.0f} CPU s) on {profile['figures']['enrolled_cards']} cards")
    print(f"top-1 on {f['augmentations']} held-back augmentations: generic {_pct(f['generic_top1'])}, "
          f"colours learnt {_pct(f['colours_only_top1'])}, fitted {_pct(f['deck_top1'])}")
    gate = profile["figures"].get("gate")
    if gate:
        print(f"cards unlike this deck's go to the generic model; of this deck's own held-back crops "
              f"{_pct(gate.get('held_back_inside'))} stay with the deck")
    print(f"play with it: uno-table run --deck {args.name}  (or vision: {{deck: {args.name}}} in uno-table.yaml)")
    return 0


def cmd_tune(args) -> int:
    from models.deck_tune import main as tune_main  # says what to install when torch is missing

    return tune_main([args.name, "--epochs", str(args.epochs)] + (["--quiet"] if args.quiet else [])
                     + ([] if args.scenes is None else ["--scenes", str(args.scenes)])
                     + ([] if args.freeze is None else ["--freeze", str(args.freeze)]))


def _pct(v) -> str:
    return "-" if v is None else f"{100 * v:.1f}%"


def cmd_detector(args) -> int:
    from models.deck_detector import main as detector_main  # names what to install

    return detector_main([args.name, "--epochs", str(args.epochs)] + (["--quiet"] if args.quiet else [])
                         + ([] if args.tables is None else ["--tables", str(args.tables)])
                         + ([] if args.scenes is None else ["--scenes", str(args.scenes)]))


def cmd_list(args) -> int:
    from vision.decks import deck_names, decks_root, summary

    rows = [summary(n) for n in deck_names()]
    if args.json:
        print(json.dumps({"decks": [r.to_json() for r in rows], "folder": str(decks_root())}))
        return 0
    if not rows:
        print(f"no decks in {decks_root()}: uno-table deck learn NAME PHOTO...")
        return 0
    print(f"{'DECK':<20} {'FACES':>5}  {'FITTED':<20} {'HELD-BACK TOP-1':>15}  STATE")
    for r in rows:
        held = (r.figures.get("held_back") or {}).get("deck_top1")
        print(f"{r.name:<20} {r.faces:>5}  {r.fitted or '-':<20} {_pct(held):>15}  {_state(r)}")
    return 0


def _state(r) -> str:
    if r.compatible is None:
        return "ready" + (" (cards.csv changed since the fit: fit again)" if r.stale else "")
    return r.compatible


def cmd_show(args) -> int:
    from vision.decks import deck_dir, summary

    r = summary(args.name)
    if args.json:
        print(json.dumps(r.to_json() | {"folder": str(deck_dir(args.name))}))
        return 0
    print(f"deck {r.name} ({deck_dir(args.name)})")
    print(f"  cards enrolled: {r.cards}, faces: {r.faces} of 54")
    if r.missing:
        print(f"  missing: {', '.join(r.missing)}")
    if r.doubled:
        print("  named twice: " + ", ".join(f"{k} (rows {', '.join(map(str, v))})" for k, v in r.doubled.items()))
    print(f"  fitted: {r.fitted or 'not yet'}")
    held = r.figures.get("held_back") or {}
    if held:
        aside = held.get("deck_ungated_top1")
        print(f"  top-1 on {held.get('augmentations')} held-back augmentations: generic {_pct(held.get('generic_top1'))}, "
              f"fitted {_pct(held.get('deck_top1'))}"
              + (f" ({_pct(aside)} by the deck's own reading: the gate sends the most re-lit to the generic model)"
                 if aside is not None else ""))
        scenes = r.figures.get("held_back_scenes") or {}
        if scenes.get("crops"):
            print(f"  top-1 on {scenes['crops']} crops of held-back table scenes: generic "
                  f"{_pct(scenes.get('generic_top1'))}, fitted {_pct(scenes.get('deck_top1'))}")
        gate = r.figures.get("gate")
        print("  other decks' cards: " + (f"read by the generic model ({_pct(gate.get('held_back_inside'))} of the "
                                          "deck's own held-back crops kept for the deck)" if gate else
                                          "read by this deck's classifier too (fitted with --no-gate or before the gate)"))
    if r.tuned:
        t = r.tuned
        print(f"  tuned {t.get('tuned')} (python -m models deck-tune, {t.get('epochs')} epochs): the deck's reading is "
              f"its own network, held-back augmentations {_pct(t.get('held_back_top1_gated'))}"
              + (f", held-back scenes {_pct(t['held_back_scenes_top1'])}" if t.get("held_back_scenes_top1") is not None
                 else ""))
        if t.get("gate") == "tuned-features":
            print(f"  its gate, on the tuned network's features, keeps {_pct(t.get('held_back_scenes_inside'))} of the "
                  "held-back scene crops for the deck; the generic network reads the rest, and runs only on them")
    if r.detector:
        d = r.detector
        print(f"  table detector {d.get('trained')} (python -m models deck-detector, {d.get('epochs')} epochs on "
              f"{(d.get('data') or {}).get('table_crops')} table crops and {(d.get('data') or {}).get('scenes')} scenes "
              f"of the deck's cards): val recall {_pct((d.get('val') or {}).get('recall'))}")
    print(f"  state: {_state(r)}")
    return 0


def cmd_remove(args) -> int:
    from vision.decks import remove

    folder = remove(args.name)
    print(f"removed deck {args.name} ({folder})", file=sys.stderr)
    return 0
