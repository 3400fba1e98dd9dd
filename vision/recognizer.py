"""Find and name UNO cards in an image with the shipped ONNX models (ONNX Runtime + OpenCV).

Two stages, and a second look when they disagree (models/README.md says why):
1. the detector (YOLO, oriented boxes) finds every card, face up or down, at any angle, on
   a letterboxed copy of the frame (320 px by default);
2. each card's box is straightened from the full-resolution frame into a 96x64 portrait
   crop, and the classifier names it (54 faces + back). A card turned 180 degrees gives the
   same box, so the classifier learnt both turns (`both_turns=True` also averages them);
3. a box the detector is sure of but the classifier cannot name (most often a card near 45
   degrees boxed askew on a busy pile) is read again from the image turned 45 degrees.

    rec = CardRecognizer.default()
    for d in rec.recognize(cv2.imread("table.jpg")):
        print(d.card, d.confidence, d.box)
    rec.last_timings  # {"preprocess": ms, "detect": ms, "classify": ms, "total": ms}

No torch or ultralytics here: a Pi needs only onnxruntime, numpy and OpenCV.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np

from table.errors import UnoTableError
from vision.crops import COLOUR_WHITE_REF, WHITE_INPUT
from vision.types import CardDetection, box_quad

DETECTOR_FILE = "card_detector.onnx"
# The detector for still photos (`uno-table detect`: a card held up to a webcam, cut by the
# frame's edge or filling it, cards half under others on a white sheet). It boxes covered
# cards, which on the table's messy discard pile are read as the top card or as a wild
# (models/README.md, issue 13, sixth session), so the live table keeps DETECTOR_FILE.
PHOTO_DETECTOR_FILE = "card_detector_photos.onnx"
CLASSIFIER_FILE = "card_classifier.onnx"
# The corner reader (models/train_corner.py): a card named from its corner index alone, for
# a card half under another or in a fan, where the whole-card classifier is unsure. A card
# the classifier names less surely than CORNER_BELOW is named by both readings together: the
# face likeliest by the classifier's and the surer corner's probabilities averaged, when the
# corner reader gives it at least CORNER_SURE (`CardRecognizer._read_corners`). Chosen on
# rendered overlaps of another seed than the model card's (models/README.md, eleventh
# session): a corner alone, even sure, named fewer than both together.
CORNER_FILE = "card_corner.onnx"
CORNER_BELOW = 0.7
CORNER_SURE = 0.3
# An unsure box is most often the uncovered end of a card half under another: its corners
# are not the card's, so its index is read at the wrong place, turned and squeezed. So the
# corners are also read on the whole cards it may be the end of (`_covered_card_shapes`),
# those of them that lie in the box: the uncovered index at its own place and scale (the
# tuning seeds 777 and 778: 50%-covered cards named 96 -> 106, 70% 9 -> 29, none named worse;
# models/README.md, twelfth session).
PACKAGE_MODELS = Path(__file__).resolve().parent.parent / "models"
_CARD_ASPECT = 56.0 / 87.0  # width / height of a UNO card
# A second look (CardRecognizer._second_look) at boxes the detector scores this high but the
# classifier names below SECOND_LOOK_BELOW (the tracker's median threshold, too).
SECOND_LOOK_SCORE = 0.5
SECOND_LOOK_BELOW = 0.5
# The turns tried, in order, until every unsure card is named: 45 degrees first (the
# detector's weakest angle), then 20 either way (a card on a busy pile tilted about 30
# degrees is boxed square at 0 and at 45, upright at -20 or 20).
SECOND_LOOK_TURNS = (45.0, -20.0, 20.0)
# A card-shaped box named unsurely with at least COVERED_SHARE of it under a card-shaped box
# named at least COVERED_BY surely, and boxed more surely by the detector, is a card half
# under the one read (a busy pile's card beneath the top one): turning the image shows no
# more of it, so it gets no second look (30 ms on the warm print's busy bench frame once a
# deck's detector boxed that card surely); its corner index still names it (`_read_corners`).
# A box squarer than a card keeps its second look and card search: the first card of a
# two-card play, under the second, boxed by the part that shows, was read 0.45 and lost
# without them, 0.96 with them (generic game seed 5, play 110; models/README.md, seventeenth
# session).
COVERED_SHARE = 0.25
COVERED_BY = 0.9
# A box far squarer than a card (short side over long above PAIR_ASPECT; a card is 0.64) is
# most often two cards laid parallel, one half over the other, as a multi-play is laid: the
# detector boxes the pair as one and the crop reads as neither. Its two halves, each a
# card's shape at one end of the box, are read instead when both are named, as two faces, at
# least SECOND_LOOK_BELOW surely and surer than the whole box (`CardRecognizer._split_pairs`).
PAIR_ASPECT = 0.8
# A box squarer than SQUARE_ASPECT but not split as a pair is most often a card on a busy pile
# boxed some 20 degrees off, its crop taking in the card beneath: the classifier can be sure of
# the wrong face there (the warm print's `red-skip` over a red 6 read `red-0` at 0.95,
# models/README.md, tenth session). It gets the second look whatever its reading, and takes a
# card-shaped box the turned image gives near it (a card's own boxes run 0.60-0.68).
SQUARE_ASPECT = 0.72
# A card-shaped box named at least SECOND_LOOK_BELOW but less than TURN_BELOW surely is most
# often the top card of a busy pile boxed 20-30 degrees off, its crop taking in the card
# beneath: the warm print's `green-7` boxed 25 degrees off, a `green-1` beneath, read
# `green-1` at 0.68 and `green-7` at 1.0 turned 20 degrees (its games of seeds 3 and 4,
# models/README.md, nineteenth session). Its box turned by each of TURN_TRIES degrees about
# its centre is read, and the surest reading taken when it is at least TURN_BELOW. The box
# itself stays: the tracker follows a card by its box, and the best turn varies frame to
# frame. The table only, as the card search; only boxes as long as the card search's.
# On still photos it named three covered real cards worse and helped only the rendered table
# scenes (models/README.md, twentieth session): `turn_search` follows `card_search`.
# The turns are read in rounds, the next only for boxes no turn yet read TURN_BELOW surely:
# each turned crop costs about 1.5 ms on these 2 cores (its warp, its white, a classifier
# pass), and 20 degrees is the traced askew card's turn (the warm print's `green-7`, 1.00), so
# a box named there costs two crops, not six. The second round reads all four other turns,
# not only those on the side whose 20-degree turn read surer: a card boxed right and read
# 0.77, `blue-7`, reads `blue-1` 0.87 turned -20 degrees and 0.92 turned -10, and only 10
# degrees the other way names it, 0.95 (`test_crops_read_side_by_side...`; models/README.md,
# twenty-fourth session).
TURN_BELOW = 0.9
TURN_TRIES = ((-20.0, 20.0), (-30.0, -10.0, 10.0, 30.0))
# A card the second look leaves unsure (no turn of the image gave a card-shaped box near it,
# read surely) is most often the top card of a busy pile boxed tens of degrees off, every box
# of it square (the warm print's `red-skip` read `red-0` at 0.52, models/README.md,
# fourteenth session): card-shaped boxes around its centre, a card long as the box's long side
# times each CARD_SEARCH_SIZES, at every CARD_SEARCH_STEP degrees, are read, and the surest
# taken when read at least SECOND_LOOK_BELOW and surer than the box. Only a box about as
# long as the image's longest one (CARD_SEARCH_LONG of it): a smaller box on a pile is the
# uncovered part of a card beneath, and grown to a whole card it reads what is not there.
# The table only (`card_search`): in still photos an unsure box is most often a card in a fan
# or half under another, and the search made cards up there (table scenes F1 0.952 -> 0.937,
# the real sets' fans' precision 0.97 -> 0.93).
# The angles are searched coarse to fine: every 2 * CARD_SEARCH_STEP degrees, then the steps
# either side of the surest (16 crops, not 24, at about 1.7 ms a crop).
CARD_SEARCH_SIZES = (0.95, 1.1)
CARD_SEARCH_STEP = 15
CARD_SEARCH_LONG = 0.8
# A box cut by the image's edge (a card held up to a webcam, cut by the frame or overfilling
# it) is read as the whole card it is part of: its crop grown past the edge to a card's
# shape, the missing part filled from the edge, instead of the visible part stretched to a
# card (`CardRecognizer._complete_cut`). A side within CUT_EDGE of the image's size from the
# edge lies on it. Still photos only: the table reads zone crops, whose edges cut the
# neighbouring zone's cards, and a card cut there is not this zone's (a spurious play in the
# rendered games, models/README.md).
CUT_EDGE = 0.02
# A grown card hides at most CUT_HIDDEN_MOST of the visible part's length past the edge. A
# card-shaped close-up touching both sides of the frame was grown across them to a card 2.4
# times the frame's width, 58% of its crop fill: the generic model read that crop unsurely,
# but a deck's tuned network read it surely, and a classic skip became a 6 (the party deck's
# classic set 81/83, models/README.md, seventeenth session).
CUT_HIDDEN_MOST = 1.0
# A card nearer than the frame can be cut on three or four sides: then neither its width nor
# its height shows, and growing the box to a card's shape from one visible side read it as a
# stretched part (a close-up 6 as a skip, a 3 as a 1). Such a card is tried at CUT_SIZES
# times the least card that covers the box; along a dimension cut at both ends, centred or
# slid CUT_SLIDE of its hidden length toward either end. Along a dimension whose both sides
# lie in the image, the card's extent is the box's, within CUT_FIT of it.
CUT_SIZES = (1.0, 1.3, 1.7)
CUT_SLIDE = 0.25
CUT_FIT = 0.12
# A hand fanned out shows each card under the top one only as a strip with its corner index,
# too little for the detector to box. People read a fan by those indices, and so does
# `CardRecognizer._read_fans`: from each card read surely, the cards a fan would lay beside it
# (the same card shifted across or along itself by FAN_STEPS of its width or length, turned by
# FAN_TURNS degrees, as a hand fans, the best of them nudged by FAN_NUDGE of the card) are read
# by the corner reader at their one index corner that shows; a face read at least FAN_SURE
# surely is a card, and the walk goes on from it, at most FAN_MAX cards a way. Still photos
# only: on the table it would read the buried cards of the discard pile.
FAN_STEPS = (0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6)
FAN_TURNS = (0.0, -4.0, 4.0, -8.0, 8.0)
FAN_NUDGE = 0.05
# A patterned table can read as an index (a dotted green cloth as `green-draw2`), but has no
# card's white border: a walked corner shows that border along its outer edges (the outer
# FAN_BAND of its patch) on at least FAN_BORDER of them, or is no card. And that border is a
# straight edge: white dots on a blue cloth pass the share (11-13%) and were walked across as
# six `blue-draw2` (models/README.md, twentieth session), but their longest white run along
# a row of the band is a dot (10-13% of the patch); a card's border runs at least FAN_EDGE of
# it (walked cards of the tuning seeds' fans and overlaps: at least 20%, 95% of them over 75%;
# at 0.2 one card of a real fan was lost, at 0.15 none, and the dots read no card).
FAN_BAND = 0.2
FAN_BORDER = 0.05
FAN_EDGE = 0.15
FAN_SURE = 0.7
FAN_MAX = 10
# When the detector finds nothing, the whole image is read as one card (a close-up cut to the
# card), and as a card held upright filling the frame's height (WHOLE_IMAGE_FILL of it, its
# centre moved across the frame by WHOLE_IMAGE_SHIFT of the frame's width): a card held up
# to a landscape webcam is a portrait card in a landscape frame, and read as the whole frame
# it is squeezed sideways. The surest face is kept only if the classifier is at least
# WHOLE_IMAGE_MIN sure of it.
# A plain table (a red cloth, a blue laminate) can read as a face wherever it is cut: a face
# also read at least WHOLE_IMAGE_ELSEWHERE in a part of the frame away from the card (or at
# the frame's two ends) is the surface, not a card.
WHOLE_IMAGE_MIN = 0.9
WHOLE_IMAGE_FILL = (1.0, 0.85)
WHOLE_IMAGE_SHIFT = (0.0, -0.2, 0.2)
WHOLE_IMAGE_ELSEWHERE = 0.5
# No light is purple: a white (`white_reference`) tinted green or magenta by more than
# WHOLE_IMAGE_TINT (|log(sqrt(B*R)/G)|) is no card's white, and the whole image is no card. The
# shared real photos' whites lie within 0.04, the training crops' lights mostly within 0.3; a
# purple and black striped cloth (procedural table seed 235) read `wild` 0.91 with its purple
# taken for white: 0.77.
WHOLE_IMAGE_TINT = 0.4
# A card under this many pixels long at the detector's input (a whole photo of a laid-out
# deck shrunk to 320 px: 30-60 px a card) is boxed a few pixels off, a tenth of the card in
# the photo; its outline in the full-size image is sharp, so the box is snapped to it.
# Zone crops of the table show cards 2-3x larger and keep the detector's box.
REFINE_BELOW = 72
# `detect_tiled` reads a photo again in tiles when its cards are under this many pixels long
# at the detector's input
TILE_BELOW = 70
# A photo in which nothing is found may hold one card too small at the detector's input: a
# card lying on a table in a phone's 4032x3024 photo, 6% of its height, is 19 px there and
# was found in half the photos (models/README.md, twenty-first session). `detect_tiled` then
# reads it in tiles of a half, then a quarter, of its long side (overlapping by
# FIND_TILES_OVERLAP of a tile), each at least FIND_TILES_ZOOM times the detector's input
# size, the first to find a card kept. Smaller tiles (a 640x480 webcam frame's halves) made
# a face up in a room (`green-1` 0.33; one of 68 frames with no card at 640x480).
FIND_TILES = (2, 4)
FIND_TILES_OVERLAP = 0.25
FIND_TILES_ZOOM = 1.5
# A laptop's camera app and a video call show and often save the picture mirrored (a
# selfie view): a card held up to it has its digits backwards. A classifier that never saw
# that read them unsurely and often wrong (the model card's held-up photos mirrored: 159
# of 367 named; models/README.md, twenty-second session); the shipped one is trained on
# mirrored crops named as printed (twenty-fifth session) and names most directly. Where
# the faces found in a still photo are all read under MIRROR_BELOW, the photo is read
# again mirrored, and that reading kept if its surest face is MIRROR_MARGIN surer: a
# mirrored card's own reading is about 0.97, a plain card's mirror image about 0.5. At a
# margin of 0.2 five photos of the real classic print, cut by the frame's edge and read
# unsurely, read 0.2-0.3 surer mirrored and wrong (a 9 as an 8); at 0.3 none did, and 337
# of those 367 were named (365 since the classifier saw mirrored crops).
MIRROR_BELOW = 0.9
MIRROR_MARGIN = 0.3
# A still photo's card read under OUTLINE_BELOW is read again in its own outline
# (`_outline_unsure`), where no other box covers more than OUTLINE_APART of it (`_apart`)
OUTLINE_BELOW = 0.9
OUTLINE_APART = 0.05
# and that reading kept only where it is at least this sure: the outline found in a fanned
# hand whose other cards the detector did not box read `green-1` 0.53, a face made up
OUTLINE_SURE = 0.8
# A card leaning far back can look wider than long, so its region's outline is read both
# ways round. But a card lying sideways, read turned a quarter, can read surely as another
# face (its oval upright: a skip or a 5 as a 0, 0.8-0.92). The index corners tell the way
# round: read the turned way, a card's corners show its index (the corner reader names the
# face 0.8-0.99 in `tilthard` photos), a card turned wrong shows none there (`none` 0.9 and
# more). So the turned way is taken only where a corner names its face at least TURNED_INDEX
# (models/README.md, thirty-third session).
TURNED_INDEX = 0.5
# A still photo taken in a dim room with its exposure held (a webcam at its longest
# exposure, a phone locked on a lamp) is dark all over, and the detector, which learnt
# exposures of some 0.6-1.4, boxed no card in 30 of 367 held-up cards at a fifth to under
# half the light (`tools/held_stress.py dark`). A camera's own answer is gain: where the
# brightest EXPOSE_SHARE of a photo (its card's white, in a dim room) lies under
# EXPOSE_BELOW, the photo is lifted so that it lies at EXPOSE_TO, by at most EXPOSE_MOST:
# lifted further, its noise and JPEG blocks were boxed as corners and read wrong
# (models/eval/issue13/s28/lift_cap.py). One under EXPOSE_BLACK is black: nothing to lift
# but noise.
EXPOSE_BELOW = 128
EXPOSE_TO = 220
EXPOSE_MOST = 3.0
EXPOSE_BLACK = 16
EXPOSE_SHARE = 0.01


# A still photo under a bulb that the camera's white balance left warm (blue at half of red)
# is orange all over, and the detector boxed no card in 17 of 367 held-up cards so
# (`tools/held_stress.py warm`). A camera's answer is white balance: the photo's white
# (`vision.crops.white_reference`: its bright, least coloured pixels, a card's border, a lit
# wall) made neutral, each channel lifted by at most BALANCE_MOST, where its channels differ
# by BALANCE_FROM or more and its tint is a light's (WHOLE_IMAGE_TINT: a purple cloth is no
# light's white).
BALANCE_FROM = 1.3
BALANCE_MOST = 2.5
# A photo's white can hide its light: a lamp's glare burnt to white across the card, or a
# white wall, is neutral under any cast, and an orange photo measured so is not balanced.
# Its mean colour is a second guess at the light (grey world: a scene's colours average to
# grey), wrong before a coloured wall, so it is a third reading, tried where it differs from
# the white's balance by GREY_APART in some channel, and kept as the others are. Held-up
# cards under a bulb and a glare at once (`tools/held_stress.py mix`) were boxed not at all
# with the white's balance alone (models/README.md, thirtieth session).
GREY_WORLD = True
GREY_APART = 1.15
# Both are a second reading, not the first: a photo's brightest pixels are often a coloured
# wall, not a white (173 of 367 held-up photos with a card at arm's length and no cast
# measured a cast of 1.3 or more, and balanced every time, three green cards read blue), and
# a dim photo the webcam already gained is noisy (lifted every time, two of its cards read
# wrong that were read right). So a photo is read relit only where its faces are all read
# under RELIGHT_BELOW as it is, and that reading kept where its surest face is
# RELIGHT_MARGIN surer (as `mirror` does).
RELIGHT_BELOW = 0.9
RELIGHT_MARGIN = 0.3
# A webcam in a dim room gains its picture back up, noise and all, and the detector gave no
# box to 4 of 367 held-up cards so, and misnamed 2 (`tools/held_stress.py dim`). A camera's
# answer is noise reduction: a photo still read under RELIGHT_BELOW (relit or not) is read
# again softened, a Gaussian blur of SOFTEN_SIGMA of its longer side (1.5 px on a 640x480
# webcam frame), and that reading kept where its surest face is RELIGHT_MARGIN surer. Chosen
# on `dim` (models/README.md, twenty-ninth session): a blur took 1 ms and named as many as a
# bilateral filter (18 ms) or non-local means (690 ms) did, on the same busy machine.
SOFTEN_SIGMA = 1.5 / 640
# Each crop of a still photo read both ways round, the classifier's probabilities averaged
# (`both_turns`): a card leaning back hard, or crossed by a lamp's glare, reads differently
# upside down. Held-up cards leaning back hard named 313 -> 320 of 367 with it (softened
# too), dark photos 367 -> 365 (`tools/held_stress.py`; models/README.md, twenty-ninth
# session). The table's frames are read once a crop: their frame budget.
BOTH_TURNS_PHOTOS = True


def _sample(image: np.ndarray) -> np.ndarray:
    """`image` sampled on a grid some 320 points across: a 12-megapixel photo's light is
    measured at what a webcam frame's costs."""
    step = max(1, max(image.shape[:2]) // 320)
    return image[::step, ::step]


def exposure_gain(image: np.ndarray) -> float:
    """How much a dark still photo is lifted before it is read (1.0: not at all): its bright
    level is the EXPOSE_SHARE-brightest value of its brightest channel (`_sample`)."""
    bright = _sample(image).max(axis=2).ravel()
    above = np.cumsum(np.bincount(bright, minlength=256)[::-1])  # pixels at each level or over
    level = 255 - int(np.searchsorted(above, EXPOSE_SHARE * bright.size))
    if level >= EXPOSE_BELOW or level < EXPOSE_BLACK:
        return 1.0
    return min(EXPOSE_MOST, EXPOSE_TO / level)


def white_balance(image: np.ndarray) -> np.ndarray:
    """The gains (B, G, R; float32, each at least 1) that make a still photo's white neutral,
    or ones where its cast is slight or not a light's (BALANCE_FROM, WHOLE_IMAGE_TINT)."""
    from vision.crops import white_reference, white_tint

    white = np.maximum(white_reference(_sample(image)), 1.0)
    if white.max() / white.min() < BALANCE_FROM or abs(white_tint(white)) > WHOLE_IMAGE_TINT:
        return np.ones(3, np.float32)
    return np.minimum(white.max() / white, BALANCE_MOST).astype(np.float32)


def grey_world(image: np.ndarray) -> np.ndarray:
    """The gains (B, G, R; float32, each at least 1) that make a still photo's mean colour
    grey (`_sample`), or ones where its cast is slight or not a light's (as `white_balance`)."""
    from vision.crops import white_tint

    mean = np.maximum(_sample(image).reshape(-1, 3).mean(axis=0), 1.0)
    if mean.max() / mean.min() < BALANCE_FROM or abs(white_tint(mean)) > WHOLE_IMAGE_TINT:
        return np.ones(3, np.float32)
    return np.minimum(mean.max() / mean, BALANCE_MOST).astype(np.float32)


def _relights(image: np.ndarray, balance: bool) -> list[np.ndarray]:
    """The gains a photo read unsurely is read again under, each differing from none: lifted
    (`exposure_gain`) and, with `balance`, balanced by its white (`white_balance`), and by its
    mean (`grey_world`) where that differs from the first by GREY_APART."""
    lift = np.full(3, exposure_gain(image), np.float32)
    tried = [lift * white_balance(image)] if balance else [lift]
    if balance and GREY_WORLD:
        grey = lift * grey_world(image)
        if np.abs(np.log(grey / tried[0])).max() > np.log(GREY_APART):
            tried.append(grey)
    return [g for g in tried if (g > 1.0).any()]


def _spent(timings: dict[str, float], stage: str, t0: float) -> None:
    """A second reading's ms since `t0`, as `timings[stage]` and added to its total."""
    timings[stage] = (time.perf_counter() - t0) * 1e3
    timings["total"] = timings.get("total", 0.0) + timings[stage]


def _surest_face(found: list[CardDetection]) -> float:
    """The highest confidence of a face (not a back) among `found`; 0 where there is none."""
    return max((d.confidence for d in found if d.card != "back"), default=0.0)


def _unmirrored(d: CardDetection, w: int) -> CardDetection:
    """`d`, found in an image mirrored left to right (`w` wide), placed in the image itself;
    `mirrored` says the card was read so."""
    x1, y1, x2, y2 = d.box
    quad = None if d.quad is None else tuple((w - x, y) for x, y in reversed(d.quad))
    return replace(d, box=(w - x2, y1, w - x1, y2), quad=quad, mirrored=True)


class ModelFileMissingError(UnoTableError, FileNotFoundError):
    """A model file the recognizer needs does not exist."""


class ModelFileCorruptError(UnoTableError, ValueError):
    """A model file exists but cannot be loaded as the expected ONNX model."""


def _session(path: Path, threads: int):
    import onnxruntime as ort

    path = Path(path)
    if not path.is_file():
        raise ModelFileMissingError(f"model file not found: {path}")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    # Two sessions (detector, classifier) take turns on few cores: threads that spin-wait
    # after their work steal the cores from the other session's turn.
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    opts.log_severity_level = 3
    try:
        return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime raises its own exception types
        raise ModelFileCorruptError(f"model file {path} cannot be loaded: {exc}") from exc


def _detector_input(path: Path, sess) -> tuple[int, int | None]:
    """The detector's input size (its long side) and, for one exported with any input size,
    the stride its sides must be a multiple of (None: a fixed square)."""
    shape = sess.get_inputs()[0].shape
    if len(shape) == 4 and isinstance(shape[2], int) and shape[2] == shape[3]:
        return int(shape[2]), None
    meta = sess.get_modelmeta().custom_metadata_map
    try:
        size = max(int(v) for v in meta["imgsz"].strip("[]").split(","))
        stride = int(meta.get("stride", 32))
    except (KeyError, ValueError) as exc:
        raise ModelFileCorruptError(
            f"{path}: expected a square fixed-size detector input, or one of any size with its"
            f" `imgsz` and `stride` in its metadata; got input {shape}, metadata {dict(meta)}"
        ) from exc
    if len(shape) != 4 or size < stride or size % stride:
        raise ModelFileCorruptError(f"{path}: detector input {shape}, imgsz {size}, stride {stride} do not fit")
    return size, stride


def letterbox(image: np.ndarray, size: int, stride: int | None = None) -> tuple[np.ndarray, float, int, int]:
    """The detector's input: `image` (BGR) shrunk so its long side is `size`, padded with 114
    into a size x size square, or with `stride` (a detector that takes any input size) only
    up to the next multiple of `stride` on each side, as a 1x3xHxW RGB 0..1 blob; with the
    scale and the left and top padding. A long thin zone (the hands' strip along the mat)
    then costs the detector a third of a square's pixels."""
    h, w = image.shape[:2]
    s = size / max(h, w)
    nw, nh = max(1, round(w * s)), max(1, round(h * s))
    if stride:
        out_w, out_h = -(-nw // stride) * stride, -(-nh // stride) * stride
    else:
        out_w = out_h = size
    resized = cv2.resize(image, (nw, nh), interpolation=cv2.INTER_AREA)
    px, py = (out_w - nw) / 2, (out_h - nh) / 2
    top, left = int(round(py - 0.1)), int(round(px - 0.1))
    canvas = cv2.copyMakeBorder(
        resized, top, out_h - nh - top, left, out_w - nw - left,
        cv2.BORDER_CONSTANT, value=(114, 114, 114),
    )
    # one C++ pass for BGR->RGB, HWC->NCHW and the 1/255 scale: the numpy chain of views
    # and casts cost as much as the resize on a busy frame
    return cv2.dnn.blobFromImage(canvas, 1 / 255.0, swapRB=True), s, left, top


def refine_quad(image, quad, max_side=192):
    """Snap a detector box to the card's own outline when one is clearly visible.

    The detector's angle can be off by tens of degrees on a lone tilted card; the printed
    card has crisp straight edges (white border on the table, coloured field in the border),
    so the best card-shaped rectangle among the edge contours near the box replaces it.
    Without one (a busy pile, a blurred frame) the detector's box stays."""
    q = np.asarray(quad, np.float32)
    (cx, cy), (bw, bh), _ = cv2.minAreaRect(q)
    ih, iw = image.shape[:2]
    r = 0.65 * max(bw, bh) * 1.25
    x0, y0 = int(max(0, cx - r)), int(max(0, cy - r))
    x1, y1 = int(min(iw, cx + r)), int(min(ih, cy + r))
    if x1 - x0 < 16 or y1 - y0 < 16:
        return q
    roi = image[y0:y1, x0:x1]
    f = min(1.0, max_side / max(roi.shape[:2]))
    if f < 1.0:
        roi = cv2.resize(roi, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    hsv = cv2.cvtColor(roi, cv2.COLOR_BGR2HSV)
    edges = np.zeros(roi.shape[:2], np.uint8)
    for ch in (hsv[..., 1], hsv[..., 2]):
        ch = cv2.GaussianBlur(ch, (3, 3), 0)
        edges |= cv2.Canny(ch, 40, 120)
    edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    card_area = bw * bh * f * f
    c_roi = np.array([(cx - x0) * f, (cy - y0) * f])
    best, best_area = None, 0.0
    for c in contours:
        if len(c) < 4:
            continue
        rect = cv2.minAreaRect(c)
        (rx, ry), (rw, rh), ra = rect
        if rw < 4 or rh < 4:
            continue
        aspect = min(rw, rh) / max(rw, rh)
        area = rw * rh
        if not 0.5 < aspect < 0.78:
            continue
        if not 0.3 * card_area < area < 1.3 * card_area:
            continue
        if np.hypot(rx - c_roi[0], ry - c_roi[1]) > 0.25 * max(rw, rh):
            continue
        # the contour must fill its rectangle (a card, not a curve)
        if cv2.contourArea(cv2.convexHull(c)) < 0.85 * area:
            continue
        if area > best_area:
            best, best_area = rect, area
    if best is None:
        return q
    (rx, ry), (rw, rh), ra = best
    aspect = min(rw, rh) / max(rw, rh)
    # the inner coloured field (aspect ~0.6) sits inside the white border: grow to the card
    if aspect < _CARD_ASPECT - 0.02:
        long_, short = max(rw, rh), min(rw, rh)
        border = (long_ * _CARD_ASPECT - short) / (2 * (1 - _CARD_ASPECT))
        border = max(0.0, border)
        rw, rh = (rw + 2 * border, rh + 2 * border)
    pts = cv2.boxPoints(((rx, ry), (rw, rh), ra)) / f + [x0, y0]
    return pts.astype(np.float32)


def model_path(name: str, photos: bool = False, folder: Path | None = None) -> Path:
    """Where model file `name` is: <data dir>/models/ first, then the shipped `models/` (or
    only `folder`). photos (the detector): in each place PHOTO_DETECTOR_FILE where there is
    one, else DETECTOR_FILE."""
    from table.paths import data_dir

    names = [PHOTO_DETECTOR_FILE, name] if photos and name == DETECTOR_FILE else [name]
    places = [folder] if folder is not None else [data_dir() / "models", PACKAGE_MODELS]
    for place in places:  # a detector of the user's own in the data dir wins over both shipped
        for n in names:
            if (place / n).is_file():
                return place / n
    return places[-1] / name


def _long_side(quad: np.ndarray) -> float:
    (_, _), (w, h), _ = cv2.minAreaRect(np.asarray(quad, np.float32))
    return float(max(w, h))


def _too_square(quad: np.ndarray) -> bool:
    """Is the box squarer than one card lying in it straight (SQUARE_ASPECT)?"""
    (_, _), (w, h), _ = cv2.minAreaRect(np.asarray(quad, np.float32))
    return bool(min(w, h) >= SQUARE_ASPECT * max(w, h))


def _intersection(a: tuple, b: tuple) -> float:
    """The area two rotated rects share."""
    inter_type, pts = cv2.rotatedRectangleIntersection(a, b)
    if inter_type == cv2.INTERSECT_NONE or pts is None:
        return 0.0
    return float(cv2.contourArea(cv2.convexHull(pts)))


def _rotated_overlap(a: tuple, b: tuple) -> tuple[float, float]:
    """(IoU, share of the smaller box inside the other) of two rotated rects."""
    inter = _intersection(a, b)
    area_a, area_b = a[1][0] * a[1][1], b[1][0] * b[1][1]
    union = area_a + area_b - inter
    smaller = min(area_a, area_b)
    return (float(inter / union) if union > 0 else 0.0, float(inter / smaller) if smaller else 0.0)


def _under_a_card_read(i: int, quads: list[np.ndarray], names: list, scores: list[float]) -> bool:
    """Is box i a card half under another (COVERED_SHARE, COVERED_BY): both card-shaped, box i
    named unsurely, the other named surely and boxed more surely by the detector?"""
    if names[i][0][1] >= SECOND_LOOK_BELOW or _too_square(quads[i]):
        return False
    mine = cv2.minAreaRect(np.asarray(quads[i], np.float32))
    area = mine[1][0] * mine[1][1]
    return area > 0 and any(
        j != i and names[j][0][1] >= COVERED_BY and names[j][0][0] != "back" and scores[j] > scores[i]
        and not _too_square(q) and _intersection(mine, cv2.minAreaRect(np.asarray(q, np.float32))) >= COVERED_SHARE * area
        for j, q in enumerate(quads)
    )


def _apart(i: int, rects: list) -> bool:
    """Does no other box (rotated rects) share more than OUTLINE_APART of box i's area? A
    card half under another has the edges of the card over it inside its box: its own
    outline is not there to find (the covered cards of rendered and real overlaps were read
    surer and wrong so, models/README.md, twenty-seventh session)."""
    area = rects[i][1][0] * rects[i][1][1]
    return area > 0 and all(
        j == i or _intersection(rects[i], r) <= OUTLINE_APART * area for j, r in enumerate(rects)
    )


def _turned(quad: np.ndarray, degrees: float) -> np.ndarray:
    """The box turned by `degrees` about its centre, its corners in portrait order."""
    from vision.crops import order_portrait

    q = np.asarray(quad)
    q = q.astype(np.result_type(q.dtype, np.float32))  # float64 corners stay float64
    m = cv2.getRotationMatrix2D(tuple(map(float, q.mean(axis=0))), degrees, 1.0)
    return order_portrait(cv2.transform(q[None], m)[0])


def _whole_in(image: np.ndarray, quad) -> bool:
    """Does the box lie whole inside the image (not cut by its edge)?"""
    ih, iw = image.shape[:2]
    q = np.asarray(quad)
    return bool(q.min() > 0.5 and q[:, 0].max() < iw - 0.5 and q[:, 1].max() < ih - 0.5)


def beside_own(quad, own: tuple[float, float, float, float], width: int, height: int) -> bool:
    """Is the box a strip of a card beside `own` (the part of a crop whose cards the reading
    is for: a zone, in the crop's pixels)? Its centre lies outside `own`, and it is cut by an
    edge of the crop that `own` does not reach: the card goes on past the crop, into a
    neighbour's area, whose own crop sees it whole."""
    q = np.asarray(quad)
    x0, y0, x1, y1 = own
    cx, cy = q.mean(axis=0)
    if x0 <= cx <= x1 and y0 <= cy <= y1:
        return False
    lo, hi = q.min(axis=0), q.max(axis=0)
    return bool((lo[0] <= 1 and x0 > 1) or (lo[1] <= 1 and y0 > 1)
                or (hi[0] >= width - 1 and x1 < width - 1) or (hi[1] >= height - 1 and y1 < height - 1))


def _rect_axes(quad: np.ndarray):
    """A box as its rotated rect ((cx, cy), (w, h), angle) and the unit vectors along its w and
    its h sides in the image."""
    (cx, cy), (w, h), angle = cv2.minAreaRect(np.asarray(quad, np.float32))
    a = np.radians(angle)
    return (cx, cy), (w, h), angle, np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])


def _centre_in(box: np.ndarray, quad: np.ndarray) -> bool:
    """Does the centre of `quad` (a corner patch's) lie in `box` (its edge counts as in)?"""
    return cv2.pointPolygonTest(np.float32(box).reshape(-1, 1, 2), tuple(map(float, np.mean(quad, axis=0))), False) >= 0


def _pair_halves(quad: np.ndarray) -> list[list[np.ndarray]] | None:
    """Two cards a too-square box may hold (PAIR_ASPECT): for each way a card can lie in it
    (its long side along the box's one side or the other), a card-shaped box at each end.
    None for a box of a card's shape."""
    (cx, cy), (w, h), angle, along_w, along_h = _rect_axes(quad)
    if min(w, h) < PAIR_ASPECT * max(w, h):
        return None
    out = []
    for size, spare, step in (((w, _CARD_ASPECT * w), h - _CARD_ASPECT * w, along_h),
                              ((_CARD_ASPECT * h, h), w - _CARD_ASPECT * h, along_w)):
        off = spare / 2 * step  # from the box's centre to each card's, across the cards
        out.append([cv2.boxPoints(((cx + sg * off[0], cy + sg * off[1]), size, angle)) for sg in (-1, 1)])
    return out


def _cut_card_shapes(image: np.ndarray, quad: np.ndarray) -> list[np.ndarray]:
    """The whole cards a box cut by the image's edge may be the visible part of, each way up
    (its height along the box's or across it): along each of the box's dimensions, the card
    is as long as the box where neither end is cut (within CUT_FIT), grown past the cut end
    where one is, and grown both ways where both are (centred, or slid CUT_SLIDE of the
    hidden length toward either end); where both dimensions are cut, at each of CUT_SIZES
    (a box of a card's shape: as it is). A dimension hides at most CUT_HIDDEN_MOST of its
    visible length. Empty for a box of a card's shape that spans the frame one way, or one
    clear of the edge."""
    ih, iw = image.shape[:2]
    m = max(3.0, CUT_EDGE * max(ih, iw))  # a detector's box stops a few pixels short of the edge
    q = np.asarray(quad, np.float64)

    def on_edge(a, b) -> bool:
        return bool((a[0] <= m and b[0] <= m) or (a[0] >= iw - 1 - m and b[0] >= iw - 1 - m)
                    or (a[1] <= m and b[1] <= m) or (a[1] >= ih - 1 - m and b[1] >= ih - 1 - m))

    top, right, bottom, left = (on_edge(q[i], q[(i + 1) % 4]) for i in range(4))
    if not (top or right or bottom or left):
        return []
    u = (q[1] - q[0] + q[2] - q[3]) / 2  # across the box, left to right
    v = (q[3] - q[0] + q[2] - q[1]) / 2  # along it, top to bottom
    seen = (float(np.linalg.norm(u)), float(np.linalg.norm(v)))
    units = (u / max(seen[0], 1e-6), v / max(seen[1], 1e-6))
    cuts = ((left, right), (top, bottom))  # each dimension's (low end, high end)
    # a box of a card's shape that spans the frame one way (cut at both ends of a dimension)
    # is most often a close-up of the whole card: its size is taken as it is. One in the
    # frame's corner (cut at one end of each) spans neither, and may be a corner of a card
    # nearer than the frame (`close` 343 -> 345, models/README.md, thirty-fifth session)
    shaped = (abs(min(seen) / max(max(seen), 1e-6) - _CARD_ASPECT) <= CUT_FIT * _CARD_ASPECT
              and any(lo and hi for lo, hi in cuts))
    both_cut = all(lo or hi for lo, hi in cuts) and not shaped
    out = []
    for across in (_CARD_ASPECT, 1 / _CARD_ASPECT):  # the card's extent across / along the box
        least = max(seen[0], seen[1] * across)
        for size in CUT_SIZES if both_cut else (1.0,):
            extent = (least * size, least * size / across)
            places = [_cut_places(e, n, lo, hi) for e, n, (lo, hi) in zip(extent, seen, cuts, strict=True)]
            if any(p is None for p in places) or all(abs(e - n) <= 0.05 * n for e, n in zip(extent, seen, strict=True)):
                continue  # the card does not fit the box, or it is the box
            # the box's own corners moved out along its sides, so that its slant is kept
            for (lo_u, hi_u) in places[0]:
                for (lo_v, hi_v) in places[1]:
                    g = q.copy()
                    g[[0, 3]] -= units[0] * lo_u
                    g[[1, 2]] += units[0] * hi_u
                    g[[0, 1]] -= units[1] * lo_v
                    g[[3, 2]] += units[1] * hi_v
                    out.append(g.astype(np.float32))
    return out


def _cut_places(extent: float, seen: float, low: bool, high: bool) -> list[tuple[float, float]] | None:
    """Where a card `extent` long lies along a box dimension `seen` long, cut at its `low`
    and `high` ends: how far it reaches past the box's low end and past its high end, for
    each place it may lie (None: it cannot lie there)."""
    hidden = extent - seen  # never below 0: the card covers the box
    if hidden > CUT_HIDDEN_MOST * seen + 1e-6:
        return None
    if not (low or high):
        return [(0.0, 0.0)] if hidden <= CUT_FIT * seen else None
    if low and high:
        slides = (0.0,) if hidden < 0.1 * seen else (-CUT_SLIDE, 0.0, CUT_SLIDE)
        return [((0.5 + k) * hidden, (0.5 - k) * hidden) for k in slides]
    return [(hidden, 0.0)] if low else [(0.0, hidden)]


def _white(patch: np.ndarray) -> np.ndarray:
    """Where a colour-normalised patch (`normalize_colour`) is a card's white."""
    from vision.crops import WHITE_LEVEL

    px = patch.astype(np.int16)
    hi, lo = px.max(axis=2), px.min(axis=2)
    return (lo >= 0.7 * WHITE_LEVEL) & (hi - lo <= 45)


def _border_share(patch: np.ndarray) -> float:
    """The share of a corner patch's outer band (its top and left FAN_BAND, where a card's
    border runs) that is white; the patch colour-normalised (`normalize_colour`)."""
    band = max(1, int(round(FAN_BAND * patch.shape[0])))
    white = _white(patch)
    return float(np.concatenate([white[:band].ravel(), white[band:, :band].ravel()]).mean())


def _border_edge(patch: np.ndarray) -> float:
    """The longest straight white run in a corner patch's outer band, along a row of its top
    band or a column of its left one, as a share of the patch's side (see FAN_EDGE)."""
    band = max(1, int(round(FAN_BAND * patch.shape[0])))
    white = _white(patch)
    lines = np.concatenate([white[:band], white[:, :band].T]).astype(np.int8)
    steps = np.diff(np.pad(lines, ((0, 0), (1, 1))), axis=1)
    # a run starts where a row steps up and ends where it steps down, in order along each row
    starts, ends = np.nonzero(steps == 1)[1], np.nonzero(steps == -1)[1]
    return float((ends - starts).max(initial=0)) / patch.shape[1]


def _covered_card_shapes(quad: np.ndarray) -> list[np.ndarray]:
    """The whole cards a box may be the uncovered end of: each of its sides taken as a card's
    width or length, the box grown across that side to a card's shape, away from one end or
    the other (a box of a card's shape: only the card lying across it)."""
    (cx, cy), (w, h), angle, along_w, along_h = _rect_axes(quad)
    if min(w, h) <= 0:
        return []
    out = []
    for full, grown, axis, sized in ((w, h, along_h, lambda t: (w, t)), (h, w, along_w, lambda t: (t, h))):
        for target in (full / _CARD_ASPECT, full * _CARD_ASPECT):
            extra = target - grown
            if extra <= 0.05 * grown:
                continue
            for sign in (-1, 1):
                centre = (cx + sign * axis[0] * extra / 2, cy + sign * axis[1] * extra / 2)
                out.append(cv2.boxPoints((centre, sized(target), angle)))
    return out


def _exposed_corners(image: np.ndarray, card: np.ndarray, beside: list[np.ndarray]) -> list[np.ndarray | None]:
    """For each card in `beside` (shifted copies of `card`), the first of its index corners
    (`corner_quads`) that lies outside `card` and whole in the image; None where none does."""
    from vision.crops import corner_quads

    ih, iw = image.shape[:2]
    out = []
    for b in beside:
        shown = [c for c in corner_quads(b) if not _centre_in(card, c)
                 and c.min() >= 0 and c[:, 0].max() < iw and c[:, 1].max() < ih]
        out.append(shown[0] if shown else None)
    return out


# Two boxes read as the same face, overlapping this much (IoU) and turned alike within
# SAME_CARD_TURN degrees, are one card boxed twice: a detector that learnt to box covered
# cards may box the card under the top one, and that crop is read as the top card (its face
# fills the crop). Two copies of a face fanned in a hand lie turned further apart.
SAME_CARD_IOU = 0.4
SAME_CARD_TURN = 6.0


def _boxed_twice(quads: list, faces: list[str], scores: list[float]) -> set[int]:
    """The weaker box (by detector score) of each card boxed twice (see SAME_CARD_IOU)."""
    if len(set(faces)) == len(faces):  # no face read twice: nothing to compare
        return set()
    rects = [cv2.minAreaRect(np.asarray(q, np.float32)) for q in quads]
    drop: set[int] = set()
    order = sorted(range(len(faces)), key=lambda i: -(scores[i] or 0.0))
    for a_i, i in enumerate(order):
        if i in drop:
            continue
        for j in order[a_i + 1:]:
            if j in drop or faces[j] != faces[i]:
                continue
            turn = abs((rects[i][2] - rects[j][2] + 45.0) % 90.0 - 45.0)  # minAreaRect angles: mod 90
            if turn <= SAME_CARD_TURN and _rotated_overlap(rects[i], rects[j])[0] > SAME_CARD_IOU:
                drop.add(j)
    return drop


def _one_card_once(found: list[CardDetection]) -> list[CardDetection]:
    """`found` without the weaker box of each card boxed twice (see SAME_CARD_IOU)."""
    drop = _boxed_twice([d.quad or box_quad(d.box) for d in found], [d.card for d in found],
                        [d.detector_confidence for d in found])
    return [d for k, d in enumerate(found) if k not in drop]


class CardRecognizer:
    """Detector + classifier. Thread-safe for reading; one instance per camera is enough.

    conf: minimum detector score for a card; iou: overlap above which two boxes are one
    card; threads: ONNX Runtime threads per model; refine: snap each box to the card's
    outline when one is visible (see `refine_quad`; off by default: measured no better
    with the shipped detector, and 8 ms slower on a table frame, models/README.md);
    refine_below: snap only boxes shorter than this at the detector's input (small cards
    in a big photo, see REFINE_BELOW; 0: never); tiles: find the cards with `detect_tiled`
    (still photos: `uno-table detect`; off for the live camera, one detector run a tile);
    both_turns: also classify each crop's half-turn and average (off by default: no better
    on the real photos and rendered frames when measured, at twice the classifier's time;
    on for still photos, where the hardest read better: BOTH_TURNS_PHOTOS);
    second_look: when the detector is sure of a card the classifier cannot name, read the
    image again turned by 45 degrees (see `_second_look`); whole_image: when the detector
    finds nothing, read the whole image as one card filling it (see `_whole_image`);
    corner_path: the corner reader (CORNER_FILE), which names a card the classifier is unsure
    of by its corner index (see `_read_corners`; None: none); fans: the cards of a fanned hand
    that show only their corner index found from the cards read surely (`_read_fans`, needs
    the corner reader); card_search: a box the second look leaves unsure read as the surest
    of the card-shaped boxes around it (`_card_search`; the table, not still photos);
    turn_search: a card-shaped box named half surely read again in its box turned
    (`_turn_unsure`; None: as card_search); mirror: a photo whose faces are all read
    unsurely read again mirrored, as a selfie view saves it (MIRROR_BELOW); outline: a box
    read unsurely read again along the card's own four corners (`_outline_unsure`: a card
    seen at a slant is a trapezoid its rectangle squeezes); relight: a photo whose faces are
    all read unsurely read again lifted where it is dark (`exposure_gain`) and white balanced
    where its light is tinted (`white_balance`), as a camera's gain and white balance would
    (RELIGHT_BELOW); soften: a photo still read unsurely then read again softened, as a
    camera's noise reduction would (SOFTEN_SIGMA); deglare: a photo still read unsurely
    then read again as given with a lamp's glare taken off as haze (`vision.glare`); search:
    a photo in which no reading found any card searched for one through card-shaped windows,
    a face kept where the classifier and the corner reader agree on it (`vision.search`)."""

    def __init__(
        self,
        detector_path: str | os.PathLike,
        classifier_path: str | os.PathLike,
        *,
        conf: float = 0.35,
        iou: float = 0.5,
        threads: int = 2,
        refine: bool = False,
        refine_below: float = REFINE_BELOW,
        tiles: bool = False,
        both_turns: bool = False,
        second_look: bool = True,
        whole_image: bool = False,
        complete_cut: bool = False,
        corner_path: str | os.PathLike | None = None,
        fans: bool = False,
        card_search: bool = True,
        turn_search: bool | None = None,
        mirror: bool = False,
        outline: bool = False,
        relight: bool = False,
        soften: bool = False,
        deglare: bool = False,
        search: bool = False,
    ) -> None:
        if not 0.0 < conf < 1.0:
            raise ValueError(f"conf {conf}: must lie strictly between 0 and 1")
        if not 0.0 < iou <= 1.0:
            raise ValueError(f"iou {iou}: must lie in (0, 1]")
        self.detector_path = Path(detector_path)
        self.classifier_path = Path(classifier_path)
        self.conf, self.iou, self.refine, self.both_turns = conf, iou, refine, both_turns
        self.second_look = second_look
        self.refine_below = refine_below
        self.tiles = tiles
        self.whole_image = whole_image
        self.complete_cut = complete_cut
        self.fans = fans
        self.card_search = card_search
        self.turn_search = card_search if turn_search is None else turn_search
        self.mirror = mirror
        self.outline = outline
        self.relight = relight
        self.soften = soften
        self.deglare = deglare
        self.search = search
        self._det = _session(self.detector_path, threads)
        self._cls = _session(self.classifier_path, threads)
        det_in = self._det.get_inputs()[0]
        self.imgsz, self._stride = _detector_input(self.detector_path, self._det)
        self._det_input = det_in.name
        meta = self._cls.get_modelmeta().custom_metadata_map
        try:
            self.classes: tuple[str, ...] = tuple(json.loads(meta["names"]))
            self.crop_h, self.crop_w = json.loads(meta["crop"])
        except (KeyError, ValueError) as exc:
            raise ModelFileCorruptError(
                f"{self.classifier_path}: no class names / crop size in its metadata"
            ) from exc
        # how the classifier was trained to see its crops: "white-ref-v1" = each crop's
        # colour normalised by its own white (vision.crops.normalize_colour); absent: as is
        colour = meta.get("colour")
        if colour not in (None, COLOUR_WHITE_REF):
            raise ModelFileCorruptError(
                f"{self.classifier_path}: unknown colour normalisation {colour!r}"
            )
        self.normalize_colour = colour == COLOUR_WHITE_REF
        n_out = self._cls.get_outputs()[0].shape[-1]
        if n_out != len(self.classes):
            raise ModelFileCorruptError(
                f"{self.classifier_path}: {n_out} outputs but {len(self.classes)} class names"
            )
        self._cls_input = self._cls.get_inputs()[0].name
        # a deck's classifier also takes each crop's own white before normalisation (the
        # light it was lit by: vision.decks.fit, the gate)
        self._cls_white = WHITE_INPUT in [i.name for i in self._cls.get_inputs()[1:]]
        self.corner_path = None if corner_path is None else Path(corner_path)
        self._corner = None if corner_path is None else self._load_corner(self.corner_path, threads)
        self.last_timings: dict[str, float] = {}
        self._pool = None  # recognize_many's two threads, made on first use

    @staticmethod
    def _load_corner(path: Path, threads: int):
        """The corner reader's session, its metadata checked: (session, input name, classes)."""
        sess = _session(path, threads)
        meta = sess.get_modelmeta().custom_metadata_map
        try:
            names = tuple(json.loads(meta["names"]))
            size = json.loads(meta["patch"])
        except (KeyError, ValueError) as exc:
            raise ModelFileCorruptError(f"{path}: not a corner reader (no class names / patch size in its metadata)") from exc
        from vision.crops import CORNER_PX

        if names[-1:] != ("none",) or size != [CORNER_PX, CORNER_PX]:
            raise ModelFileCorruptError(f"{path}: not a corner reader for {CORNER_PX}px patches "
                                        f"(patch {size}, last class {names[-1:]})")
        if sess.get_outputs()[0].shape[-1] != len(names):
            raise ModelFileCorruptError(f"{path}: {sess.get_outputs()[0].shape[-1]} outputs but {len(names)} class names")
        return sess, sess.get_inputs()[0].name, names

    @classmethod
    def default(cls, photos: bool = False, *, folder: Path | None = None, detector_path=None,
                classifier_path=None, **kwargs) -> CardRecognizer:
        """The shipped models in `models/`, or overrides in <data dir>/models/ if present
        (only `folder`'s, if given; a path given overrides its file); photos: the still
        photos' detector (PHOTO_DETECTOR_FILE) where there is one, and boxes cut by the
        image's edge read as whole cards (`complete_cut`), fanned hands walked by their
        corner indices (`fans`) and, where no card is found, the photo read as one card
        filling it (`whole_image`), one read unsurely read again mirrored (`mirror`), a
        box read unsurely read again in the card's own outline (`outline`), and a photo
        read unsurely read again relit, lifted and white balanced (`relight`), then
        softened (`soften`), then with a lamp's glare taken off (`deglare`), one in which
        no reading found a card searched for one (`search`), and each crop
        read both ways round (`both_turns`,
        BOTH_TURNS_PHOTOS).
        The one place that ties them."""
        kwargs.setdefault("complete_cut", photos)
        kwargs.setdefault("fans", photos)
        # a card held up to a webcam that fills the frame or is cut by it is what the
        # detector most often gave no box in the held-out webcam photos (issue 13); read
        # whole only at WHOLE_IMAGE_MIN and not where the surface reads so too, it made up no
        # face on 460 frames without a card (`tools/whole_image_probe.py`)
        kwargs.setdefault("whole_image", photos)
        kwargs.setdefault("card_search", not photos)
        kwargs.setdefault("mirror", photos)
        kwargs.setdefault("outline", photos)
        kwargs.setdefault("relight", photos)
        kwargs.setdefault("soften", photos)
        kwargs.setdefault("deglare", photos)
        kwargs.setdefault("search", photos)
        # each crop read both ways round and averaged: BOTH_TURNS_PHOTOS
        kwargs.setdefault("both_turns", photos and BOTH_TURNS_PHOTOS)
        # a folder of models made before the corner reader: the shipped one beside them
        corner_home = folder if folder is None or (Path(folder) / CORNER_FILE).is_file() else PACKAGE_MODELS
        kwargs.setdefault("corner_path", model_path(CORNER_FILE, folder=corner_home))
        return cls(detector_path or model_path(DETECTOR_FILE, photos, folder),
                   classifier_path or model_path(CLASSIFIER_FILE, folder=folder), **kwargs)

    # ------------------------------------------------------------------ stages
    def _letterbox(self, image: np.ndarray) -> tuple[np.ndarray, float, float, float]:
        return letterbox(image, self.imgsz, self._stride)

    def detect(self, image: np.ndarray, timings: dict[str, float] | None = None) -> list[tuple[np.ndarray, float]]:
        """Card quads (4x2, original pixels) and detector scores, best first. Stage times go
        to `timings` (default: `last_timings`)."""
        t0 = time.perf_counter()
        x, s, left, top = self._letterbox(image)
        t1 = time.perf_counter()
        out = self._det.run(None, {self._det_input: x})[0][0]  # (4 + nc + 1, anchors)
        t2 = time.perf_counter()
        scores = out[4:-1].max(axis=0)
        keep = np.nonzero(scores >= self.conf)[0]
        keep = keep[np.argsort(-scores[keep])][:300]
        rects = [
            (
                (float(out[0, i]), float(out[1, i])),
                (float(out[2, i]), float(out[3, i])),
                float(np.degrees(out[-1, i])),
            )
            for i in keep
        ]
        chosen: list[int] = []
        for k, r in enumerate(rects):
            if all(_rotated_overlap(r, rects[j])[0] < self.iou for j in chosen):
                chosen.append(k)
        # A box mostly inside a bigger one is a part of that card (its ellipse, its glyph, a
        # corner index): two real cards are the same size, so one cannot sit inside another.
        # Only a bigger box at least about as sure counts: a faint box around a printed zone
        # of the play mat (a dark field in a white frame, card-like) must not hide the card
        # lying in it.
        area = {k: rects[k][1][0] * rects[k][1][1] for k in chosen}
        sure = {k: float(scores[keep[k]]) for k in chosen}
        chosen = [
            k
            for k in chosen
            if not any(
                area[j] > 1.3 * area[k] and sure[j] >= sure[k] - 0.15
                and _rotated_overlap(rects[k], rects[j])[1] > 0.7
                for j in chosen
            )
        ]
        h, w = image.shape[:2]
        found = []
        for k in chosen:
            pts = cv2.boxPoints(rects[k])
            pts[:, 0] = (pts[:, 0] - left) / s
            pts[:, 1] = (pts[:, 1] - top) / s
            pts[:, 0] = np.clip(pts[:, 0], 0, w)
            pts[:, 1] = np.clip(pts[:, 1], 0, h)
            found.append((pts.astype(np.float32), float(scores[keep[k]])))
        t3 = time.perf_counter()
        (self.last_timings if timings is None else timings).update(
            preprocess=(t1 - t0) * 1e3, detect=(t2 - t1) * 1e3, postprocess=(t3 - t2) * 1e3
        )
        return found

    def detect_tiled(self, image: np.ndarray, timings: dict[str, float] | None = None) -> list[tuple[np.ndarray, float]]:
        """`detect` for a still photo of many cards (a deck laid out, a table from above).

        The detector sees the photo shrunk to its input size (320 px); with many cards a
        card is then too small to be found or boxed tight (a yellow card on an orange table
        under a warm bulb is lost), so the photo is read again in overlapping tiles of about
        four card lengths, each card kept from a tile that holds it whole. A card is the
        size of the others: far smaller or larger boxes (a glyph, an oval, two cards) go.
        Where nothing is found at all, the photo is read in tiles of FIND_TILES of its long
        side (a lone card far off in a big photo). About one detector run per tile: for
        photos, not for the live camera."""
        h, w = image.shape[:2]
        found = list(self.detect(image, timings))
        if found:
            size = float(np.median([_long_side(q) for q, _ in found]))
            shrink = self.imgsz / max(h, w)
            if size * shrink < TILE_BELOW and max(h, w) > 4.2 * size:
                tile = int(min(max(h, w), 4 * size))
                found = self._tiles(image, tile, max(1, int(tile - 1.4 * size))) + found  # tiles first: tighter
        else:
            for parts in FIND_TILES:
                tile = int(np.ceil(max(h, w) / parts))
                if tile < FIND_TILES_ZOOM * self.imgsz:
                    break  # a tile little larger than the detector's input sees no smaller card
                found = self._tiles(image, tile, max(1, int(tile * (1 - FIND_TILES_OVERLAP))))
                if found:
                    break
        # one box per card: the first (tiles) / surest kept
        kept: list[tuple[np.ndarray, float]] = []
        for q, s in found:
            if all(_rotated_overlap(cv2.minAreaRect(q), cv2.minAreaRect(k))[1] < 0.4 for k, _ in kept):
                kept.append((q, s))
        if kept:
            size = float(np.median([_long_side(q) for q, _ in kept]))
            kept = [(q, s) for q, s in kept if 0.6 * size < _long_side(q) < 1.6 * size]
        return kept

    def _tiles(self, image: np.ndarray, tile: int, step: int) -> list[tuple[np.ndarray, float]]:
        """The cards found in square tiles of `tile` pixels every `step`, in the image's
        pixels; a card cut by a tile's edge is left to a tile that holds it whole."""
        h, w = image.shape[:2]
        out = []
        for y0 in range(0, max(1, h - tile + step), step):
            for x0 in range(0, max(1, w - tile + step), step):
                y0c, x0c = min(y0, max(0, h - tile)), min(x0, max(0, w - tile))
                sub = image[y0c:y0c + tile, x0c:x0c + tile]
                for q, s in self.detect(sub, {}):
                    q = q + np.float32([x0c, y0c])
                    lo, hi = q.min(axis=0), q.max(axis=0)
                    cut = ((lo[0] < x0c + 2 and x0c > 0) or (lo[1] < y0c + 2 and y0c > 0)
                           or (hi[0] > x0c + sub.shape[1] - 2 and x0c + sub.shape[1] < w)
                           or (hi[1] > y0c + sub.shape[0] - 2 and y0c + sub.shape[0] < h))
                    if not cut:
                        out.append((q, s))
        return out

    def classify(self, image: np.ndarray, quads: list[np.ndarray]) -> list[tuple[str, float]]:
        """Name each quad's card: (identifier, probability), both 180-degree turns averaged."""
        return [top[0] for top in self.classify_top(image, quads, 1)]

    def classify_top(
        self, image: np.ndarray, quads: list[np.ndarray], k: int = 3, timings: dict[str, float] | None = None,
        ordered: bool = False,
    ) -> list[list[tuple[str, float]]]:
        """Each quad's `k` likeliest cards, most likely first: [(identifier, probability)];
        `ordered`: each quad's corners already in its crop's order (`crop_from_quad`)."""
        from vision.crops import classifier_batch, crop_from_quad

        t0 = time.perf_counter()
        timings = self.last_timings if timings is None else timings
        if not quads:
            timings["classify"] = 0.0
            return []
        crops = []
        for q in quads:
            c = crop_from_quad(image, q, ordered=ordered)
            crops += [c, c[::-1, ::-1]] if self.both_turns else [c]
        x, whites = classifier_batch(crops, self.normalize_colour, self._cls_white)
        feed = {self._cls_input: x} | ({WHITE_INPUT: whites} if self._cls_white else {})
        logits = self._cls.run(None, feed)[0]
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        p = e / e.sum(axis=1, keepdims=True)
        if self.both_turns:
            p = (p[0::2] + p[1::2]) / 2
        top = np.argsort(-p, axis=1)[:, : max(1, k)]
        timings["classify"] = (time.perf_counter() - t0) * 1e3
        return [[(self.classes[i], float(p[n, i])) for i in row] for n, row in enumerate(top)]

    def _needs_second_look(self, image: np.ndarray, quad: np.ndarray, score: float, prob: float) -> bool:
        """A box the detector is sure of and the classifier is not, or one too square for a
        card (SQUARE_ASPECT), whole in the image (a box cut by the image's edge is most often
        a hand and the mat read as one)."""
        if score < SECOND_LOOK_SCORE or (prob >= SECOND_LOOK_BELOW and not _too_square(quad)):
            return False
        return _whole_in(image, quad)

    def _classify_more(self, image, quads, timings, ordered: bool = False):
        """`classify_top` of boxes tried beside the detector's, its time added to this call's
        "classify"."""
        scratch: dict[str, float] = {}
        read = self.classify_top(image, quads, timings=scratch, ordered=ordered)
        timings["classify"] = timings.get("classify", 0.0) + scratch.get("classify", 0.0)
        return read

    def _split_pairs(self, image, found, quads, names, timings):
        """Each too-square box the detector is sure of (PAIR_ASPECT), whole in the image,
        replaced by the two cards of the way of lying whose halves are read surest, when
        both are named at least SECOND_LOOK_BELOW surely, surer than the whole box (a
        single card boxed askew is read surer whole than in halves), and as two faces (the
        halves of one wild both read `wild`; a pair of twins laid so stays one box)."""
        tries = []  # (box index, [[half, half], [half, half]])
        for i, ((_, score), q) in enumerate(zip(found, quads, strict=True)):
            ways = _pair_halves(q) if score >= SECOND_LOOK_SCORE and _whole_in(image, q) else None
            if ways is not None:
                tries.append((i, ways))
        if not tries:
            return found, quads, names
        from vision.crops import order_portrait

        halves = [order_portrait(h) for _, ways in tries for way in ways for h in way]
        read = self._classify_more(image, halves, timings)
        split: dict[int, list[tuple[np.ndarray, list[tuple[str, float]]]]] = {}
        for k, (i, _) in enumerate(tries):
            ways = [(halves[j: j + 2], read[j: j + 2]) for j in (4 * k, 4 * k + 2)]
            qs, ns = max(ways, key=lambda t: min(n[0][1] for n in t[1]))
            sure = min(n[0][1] for n in ns)
            faces = {n[0][0] for n in ns}
            if sure >= SECOND_LOOK_BELOW and sure > names[i][0][1] and len(faces) == 2 and "back" not in faces:
                split[i] = list(zip(qs, ns, strict=True))
        if not split:
            return found, quads, names
        out_f, out_q, out_n = [], [], []
        for i, (f, q, n) in enumerate(zip(found, quads, names, strict=True)):
            for hq, hn in split.get(i, [(q, n)]):
                out_f.append((hq, f[1]))
                out_q.append(hq)
                out_n.append(hn)
        return out_f, out_q, out_n

    def _surest_each(self, image, tries, timings) -> dict[int, tuple[int, list[tuple[str, float]]]]:
        """For each (box index, shapes tried for it) in `tries`, all read in one classifier
        batch: the place in its list of the shape read surest, and that reading."""
        read = self._classify_more(image, [s for _, shapes in tries for s in shapes], timings)
        out, k = {}, 0
        for i, shapes in tries:
            best = max(range(len(shapes)), key=lambda j: read[k + j][0][1])
            out[i] = (best, read[k + best])
            k += len(shapes)
        return out

    def _surest_shapes(self, image, tries, names, timings) -> dict[int, tuple[np.ndarray, list[tuple[str, float]]]]:
        """For each (box index, shapes tried for it) in `tries` (`_surest_each`): the shape read
        surest and its reading, where that is read at least SECOND_LOOK_BELOW surely and surer
        than the box (`names`) is."""
        found = self._surest_each(image, tries, timings)
        return {
            i: (shapes[found[i][0]], found[i][1]) for i, shapes in tries
            if found[i][1][0][1] >= SECOND_LOOK_BELOW and found[i][1][0][1] > names[i][0][1]
        }

    def _complete_cut(self, image, quads, names, timings):
        """Each box cut by the image's edge (`_cut_card_shapes`) named as the whole card
        grown from it that is read surest, when that is read at least SECOND_LOOK_BELOW surely
        and surer than the box as it is (a bare table's edge stays as unsure as it was). The
        box itself stays: the card's visible part is what lies in the image."""
        tries = [(i, _cut_card_shapes(image, q)) for i, q in enumerate(quads)]
        tries = [(i, shapes) for i, shapes in tries if shapes]
        if not tries:
            return names
        names = list(names)
        for i, (_, top) in self._surest_shapes(image, tries, names, timings).items():
            names[i] = top
        return names

    def _outline_unsure(self, image, quads, names, timings):
        """Each box read under OUTLINE_BELOW, apart from every other box (`_apart`), named
        as the card's own outline reads it, when that is read at least OUTLINE_SURE surely
        and surer than the box: a card seen at a slant is a trapezoid its rectangle squeezes.
        The outline is the one its edges give (`vision.outline.outline_quad`), or the one of
        its region (`region_quad`, where the box lies too far off the card for its edges to
        be looked for), that read either way round: a card leaning far back can look wider
        than long. Returns (names, {box index: the outline read}): the box stays for the
        stages after this one, the outline is what the card is reported in."""
        from vision.outline import outline_quad, region_quad

        if all(top[0][1] >= OUTLINE_BELOW for top in names):
            return names, {}
        t0 = time.perf_counter()
        rects = [cv2.minAreaRect(np.asarray(q, np.float32)) for q in quads]
        tries = []  # (box index, shapes, the place of its region turned a quarter or None)
        for i, (q, top) in enumerate(zip(quads, names, strict=True)):
            if top[0][1] >= OUTLINE_BELOW or not _apart(i, rects):
                continue
            shapes = [] if (edges := outline_quad(image, q)) is None else [edges]
            turned = None
            if (region := region_quad(image, q)) is not None:
                turned = len(shapes) + 1 if self._corner is not None else None
                shapes += [region, np.roll(region, 1, axis=0)] if turned else [region]
            if shapes:
                tries.append((i, shapes, turned))
        timings["outline"] = (time.perf_counter() - t0) * 1e3
        if not tries:
            return names, {}
        read = self._classify_more(image, [s for _, shapes, _ in tries for s in shapes], timings, ordered=True)
        names, outlines, k = list(names), {}, 0
        for i, shapes, turned in tries:
            got = list(zip(shapes, read[k: k + len(shapes)], strict=True))
            k += len(shapes)
            if turned is not None and not self._index_shows(image, shapes[turned], got[turned][1][0][0]):
                got = got[:turned] + got[turned + 1:]
            shape, top = max(got, key=lambda t: t[1][0][1])
            if top[0][1] >= OUTLINE_SURE and top[0][1] > names[i][0][1]:
                names[i], outlines[i] = top, shape
        return names, outlines

    def _index_shows(self, image, quad, face: str) -> bool:
        """Does either index corner of `quad` (its corners in their crop's order) read `face`
        at least TURNED_INDEX surely?"""
        from vision.crops import corner_quads, crop_from_quad, white_reference

        if face not in self._corner[2]:
            return False
        white = white_reference(crop_from_quad(image, quad, ordered=True))
        p = self._read_patches(image, corner_quads(quad, ordered=True), [white, white])
        return bool(p[:, self._corner[2].index(face)].max() >= TURNED_INDEX)

    def corner_readings(self, image: np.ndarray, quads: list[np.ndarray],
                        whites: list[np.ndarray] | None = None) -> np.ndarray:
        """(N, 2, classes) the corner reader's probabilities for each box's two index corners
        (`vision.crops.corner_quads` order; classes: `self._corner[2]`, "none" last); whites:
        each box's white (`white_reference`), else measured on its own crop."""
        from vision.crops import corner_quads, crop_from_quad, white_reference

        if self._corner is None:
            raise ValueError("this recognizer has no corner reader (corner_path=None)")
        if not quads:
            return np.zeros((0, 2, len(self._corner[2])), np.float32)
        if whites is None:  # as in training: the white of the card's crop
            whites = [white_reference(crop_from_quad(image, q)) for q in quads]
        corners = [c for q in quads for c in corner_quads(q)]
        return self._read_patches(image, corners, [w for w in whites for _ in range(2)]).reshape(len(quads), 2, -1)

    def _read_patches(self, image: np.ndarray, corners: list[np.ndarray], whites: list[np.ndarray]) -> np.ndarray:
        """(N, classes) the corner reader's probabilities of corner quads (`corner_quads`'
        kind), each patch's colour normalised by its card's white."""
        return self._read_normalised(self._normalised_patches(image, corners, whites))

    @staticmethod
    def _normalised_patches(image: np.ndarray, corners: list[np.ndarray], whites: list[np.ndarray]) -> list[np.ndarray]:
        from vision.crops import corner_patch, normalize_colour

        return [normalize_colour(corner_patch(image, c), w) for c, w in zip(corners, whites, strict=True)]

    def _read_normalised(self, patches: list[np.ndarray]) -> np.ndarray:
        sess, input_name, _ = self._corner
        logits = sess.run(None, {input_name: cv2.dnn.blobFromImages(patches, 1 / 255.0, swapRB=True)})[0]
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def _corner_faces(self, image: np.ndarray, quads: list[np.ndarray]) -> list[np.ndarray]:
        """For each box, each face's probability in the corner that shows it best: the box's
        own two corners, and those of the whole cards it may be the uncovered end of
        (`_covered_card_shapes`) that lie in the box ("none" left out). One run of the corner
        reader for all of them."""
        from vision.crops import corner_quads, crop_from_quad, white_reference

        # only the corners that can count are read: a covered card's corner outside the box
        # is under the card that covers it (a fifth of the patches on a busy pile)
        corners, whites, owner = [], [], []
        for n, q in enumerate(quads):
            white = white_reference(crop_from_quad(image, q))
            shown = list(corner_quads(q)) + [
                c for g in _covered_card_shapes(q) for c in corner_quads(g) if _centre_in(q, c)
            ]
            corners += shown
            whites += [white] * len(shown)
            owner += [n] * len(shown)
        p = self._read_patches(image, corners, whites)[:, :-1]
        owner = np.asarray(owner)
        return [p[owner == n].max(axis=0) for n in range(len(quads))]

    def _read_corners(self, image, quads, names, timings):
        """Each card named less surely than CORNER_BELOW named anew from its corner index
        and the classifier together (CORNER_SURE), where the corner reader is loaded: its
        readings (`_corner_faces`) then the two averaged. Stage time: "corners"."""
        t0 = time.perf_counter()
        unsure = [i for i, top in enumerate(names) if top[0][1] < CORNER_BELOW]
        if self._corner is None or not unsure:
            timings["corners"] = 0.0
            return names
        names = list(names)
        faces = self._corner[2][:-1]  # "none" aside: a corner with no index says nothing of the face
        for i, corner in zip(unsure, self._corner_faces(image, [quads[i] for i in unsure]), strict=True):
            whole = dict(names[i])
            mixed = {f: (whole.get(f, 0.0) + float(corner[j])) / 2 for j, f in enumerate(faces)}
            best = max(mixed, key=mixed.get)
            if best != names[i][0][0] and corner[faces.index(best)] >= CORNER_SURE:
                names[i] = sorted(mixed.items(), key=lambda t: -t[1])[:len(names[i])]
        timings["corners"] = (time.perf_counter() - t0) * 1e3
        return names

    def _fan_neighbour(self, image, card, axis, white):
        """The card a fan would lay beside `card` towards `axis` (one of its sides, as a
        vector), of FAN_STEPS x FAN_TURNS the one whose shown index corner is read surest
        (nudged by FAN_NUDGE): (its quad, its corner, the corner reader's face
        probabilities), or None where that corner shows no card's border (FAN_BORDER, FAN_EDGE); where
        none of them does (the way off the cards) nothing is read."""

        def best_of(quads):
            corners = _exposed_corners(image, card, quads)
            shown = [k for k, c in enumerate(corners) if c is not None]
            patches = self._normalised_patches(image, [corners[k] for k in shown], [white] * len(shown))
            bordered = [_border_share(pt) >= FAN_BORDER and _border_edge(pt) >= FAN_EDGE for pt in patches]
            if not any(bordered):
                return None
            p = self._read_normalised(patches)[:, :-1]
            best = int(np.argmax(p.max(axis=1)))
            if not bordered[best]:
                return None  # read surest where no card's border shows: the table's pattern
            k = shown[best]
            return quads[k], corners[k], p[best]

        tries = []
        for step in FAN_STEPS:
            moved = card + axis * step
            for turn in FAN_TURNS:
                tries.append(_turned(moved, turn))
        got = best_of(tries)
        if got is None:
            return None
        # a hand fans about a point near its bottom, so a card lies a little off the shifted
        # and turned copy: the best one nudged by FAN_NUDGE of the card either way
        side, down = (card[1] - card[0]), (card[3] - card[0])
        quad = got[0]
        nudged = best_of([quad + (dx * side + dy * down) * FAN_NUDGE for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy])
        return nudged if nudged is not None and nudged[2].max() > got[2].max() else got

    def _read_fans(self, image, found, quads, names, timings):
        """The cards fanned under or beside each card read surely (`_fan_neighbour`,
        FAN_SURE, FAN_BORDER, FAN_EDGE), walked from card to card: added as found cards (their whole
        card's quad, the corner's reading, detector score 0: no box of the detector's), unless
        the corner lies in a box already read surely (that box reads it; the walk goes on
        through it when it names the same face). Stage time: "fans"."""
        from vision.crops import crop_from_quad, order_portrait, white_reference

        t0 = time.perf_counter()
        faces = self._corner[2][:-1]
        # a box on the card under another, read as the card on top (that face fills its
        # crop), is that card boxed twice (`_one_card_once` drops it): the walk neither
        # starts from it nor stops at it, and the card under it is read by its corner
        twins = _boxed_twice(quads, [top[0][0] for top in names], [score for _, score in found])
        surely = [i for i, top in enumerate(names) if top[0][1] >= SECOND_LOOK_BELOW and i not in twins]
        # a box read less surely than the walk reads its corners does not stop it (a detector
        # that boxes a fan's strips as whole cards reads them 0.5-0.7)
        blocking = [i for i in surely if names[i][0][1] >= FAN_SURE]
        added: list[tuple[np.ndarray, list[tuple[str, float]]]] = []
        twice: set[int] = set()
        for i in (i for i in surely if names[i][0][0] in faces):
            start = order_portrait(quads[i])
            white = white_reference(crop_from_quad(image, start))
            across, along = start[1] - start[0], start[3] - start[0]
            close = 0.1 * float(np.linalg.norm(across))  # nearer than this: a card walked to already
            for way in (-across, across, -along, along):  # the neighbours to the left, right, ...
                card = start
                for _ in range(FAN_MAX):
                    # this card's side facing the way the walk goes
                    sides = (card[1] - card[0], card[3] - card[0])
                    axis = max((sg * v for v in sides for sg in (1, -1)), key=lambda v: float(v @ way))
                    got = self._fan_neighbour(image, card, axis, white)
                    if got is None or got[2].max() < FAN_SURE:
                        break
                    nxt, corner, read = got
                    face, sure = faces[int(np.argmax(read))], float(read.max())
                    inside = [k for k in blocking if _centre_in(quads[k], corner)]
                    if inside and all(names[k][0][0] != face for k in inside):
                        break  # another card's box, read surely: that card is read there
                    if not inside and all(np.linalg.norm(q.mean(axis=0) - nxt.mean(axis=0)) > close for q, _ in added):
                        added.append((nxt, [(face, sure)]))
                        # a box over that corner read less surely naming the same face, or
                        # unsure of any: the same card (a strip boxed whole, misread)
                        twice |= {k for k, q in enumerate(quads) if _centre_in(q, corner) and (
                            names[k][0][1] < SECOND_LOOK_BELOW or (names[k][0][1] < FAN_SURE and names[k][0][0] == face))}
                    card = nxt
        timings["fans"] = (time.perf_counter() - t0) * 1e3
        if not added:
            return found, quads, names
        keep = [k for k in range(len(quads)) if k not in twice]
        return ([found[k] for k in keep] + [(q, 0.0) for q, _ in added],
                [quads[k] for k in keep] + [q for q, _ in added],
                [names[k] for k in keep] + [n for _, n in added])

    def _card_search(self, image, quads, names, unsure, timings):
        """The boxes the second look left unsure, each as the surest of the card-shaped boxes
        around its centre (CARD_SEARCH_SIZES, CARD_SEARCH_STEP, coarse to fine), when that one
        is read at least SECOND_LOOK_BELOW and surer; only boxes about as long as the image's
        longest (CARD_SEARCH_LONG)."""
        from vision.crops import order_portrait

        longest = max(_long_side(q) for q in quads)
        boxes = {}  # box index: (centre, length)
        for i in unsure:
            centre, (w, h), _ = cv2.minAreaRect(np.asarray(quads[i], np.float32))
            if max(w, h) >= CARD_SEARCH_LONG * longest:
                boxes[i] = (centre, max(w, h))
        if not boxes:
            return quads, names

        def shapes(i, angles):
            centre, length = boxes[i]
            return [
                (a, order_portrait(cv2.boxPoints((centre, (f * length * _CARD_ASPECT, f * length), float(a)))))
                for f in CARD_SEARCH_SIZES for a in angles
            ]

        def surest(tried):  # box index: ((angle, shape), reading) of the surest of `tried`
            found = self._surest_each(image, [(i, [q for _, q in t]) for i, t in tried.items()], timings)
            return {i: (tried[i][j], top) for i, (j, top) in found.items()}

        best = surest({i: shapes(i, range(0, 180, 2 * CARD_SEARCH_STEP)) for i in boxes})
        finer = surest({i: shapes(i, (a - CARD_SEARCH_STEP, a + CARD_SEARCH_STEP)) for i, ((a, _), _) in best.items()})
        quads, names = list(quads), list(names)
        for i, ((_, shape), top) in best.items():
            if finer[i][1][0][1] > top[0][1]:
                (_, shape), top = finer[i]
            if top[0][1] >= SECOND_LOOK_BELOW and top[0][1] > names[i][0][1]:
                quads[i], names[i] = shape, top
        return quads, names

    def _turn_unsure(self, image, quads, names, scores, timings):
        """Each card-shaped box named at least SECOND_LOOK_BELOW but less than TURN_BELOW
        surely, whole in the image and about as long as its longest box, named as its box
        turned reads surest, when that reading is at least TURN_BELOW: the turns of
        TURN_TRIES round by round, a box leaving once a round names it so."""

        longest = max((_long_side(q) for q in quads), default=0.0)
        left = [
            i for i, (q, top) in enumerate(zip(quads, names, strict=True))
            if SECOND_LOOK_BELOW <= top[0][1] < TURN_BELOW and scores[i] >= SECOND_LOOK_SCORE
            and not _too_square(q) and _whole_in(image, q) and _long_side(q) >= CARD_SEARCH_LONG * longest
        ]
        names = list(names)
        best = {i: names[i] for i in left}  # each box's surest reading so far
        for turns in TURN_TRIES:
            if not left:
                break
            tries = [(i, [_turned(quads[i], a) for a in turns]) for i in left]
            for i, (_, top) in self._surest_shapes(image, tries, best, timings).items():
                best[i] = top
            left = [i for i in left if best[i][0][1] < TURN_BELOW]
        for i, top in best.items():
            if top[0][1] >= TURN_BELOW:
                names[i] = top
        return names

    def _second_look(self, image: np.ndarray, turn: float = 45.0,
                     near: list[tuple[np.ndarray, float]] | None = None) -> list[tuple[np.ndarray, list[tuple[str, float]]]]:
        """Cards read in the image turned by `turn` degrees, their corners in this image's
        pixels. The detector's angle is least sure on a card turned near 45 degrees (its box
        then cuts across the card and the crop reads as nothing); turned, the same card lies
        near upright and is boxed tight. `near`: (centre, distance) pairs in this image's
        pixels; only the boxes whose centre lies that near one are read (the others would be
        read for nothing: on a busy pile most of the classifier's time here)."""
        from vision.crops import order_portrait

        h, w = image.shape[:2]
        m = cv2.getRotationMatrix2D((w / 2, h / 2), turn, 1.0)
        side = int(np.ceil((w + h) / np.sqrt(2)))
        m[0, 2] += side / 2 - w / 2
        m[1, 2] += side / 2 - h / 2
        turned = cv2.warpAffine(image, m, (side, side), borderValue=(114, 114, 114))
        scratch: dict[str, float] = {}  # the second look's stage times are not the frame's
        found = self.detect(turned, scratch)
        back = cv2.invertAffineTransform(m)
        mapped = [order_portrait(cv2.transform(q[None], back)[0]) for q, _ in found]
        keep = [
            k for k, q in enumerate(mapped)
            if near is None or any(np.linalg.norm(q.mean(axis=0) - c) <= d for c, d in near)
        ]
        names = self.classify_top(turned, [order_portrait(found[k][0]) for k in keep], timings=scratch)
        return [(mapped[k], name) for k, name in zip(keep, names, strict=True)]

    def _whole_image(self, image: np.ndarray, t0: float, timings: dict[str, float]) -> list[CardDetection]:
        """Nothing found: the image read as one card filling it, or filling its height
        (WHOLE_IMAGE_FILL, WHOLE_IMAGE_SHIFT), the surest face kept if the classifier is sure
        of it (a card back or an unsure reading gives nothing) and it is not read as well
        where the card is not (WHOLE_IMAGE_ELSEWHERE), nor its white tinted as no light is
        (WHOLE_IMAGE_TINT)."""
        from vision.crops import crop_from_quad, white_reference, white_tint

        h, w = image.shape[:2]

        def upright(fill: float, shift: float) -> np.ndarray:
            length = fill * h
            width = min(length * _CARD_ASPECT, w)
            cx = min(max(w / 2 + shift * w, width / 2), w - width / 2)
            x0, x1, y0, y1 = cx - width / 2, cx + width / 2, (h - length) / 2, (h + length) / 2
            return np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])

        quads = [np.float32([[0, 0], [w, 0], [w, h], [0, h]])]
        quads += [upright(fill, shift) for fill in WHOLE_IMAGE_FILL for shift in WHOLE_IMAGE_SHIFT]
        tried = len(quads)
        if WHOLE_IMAGE_FILL:
            quads += [upright(min(WHOLE_IMAGE_FILL), shift) for shift in (-0.5, 0.5)]  # the frame's two ends
        read = [top[0] for top in self.classify_top(image, quads, 1, timings)]
        timings["total"] = (time.perf_counter() - t0) * 1e3
        faces = [k for k in range(tried) if read[k][0] != "back"]
        if not faces:
            return []
        k = max(faces, key=lambda k: read[k][1])
        (card, prob), quad = read[k], quads[k]
        if prob < WHOLE_IMAGE_MIN:
            return []
        if any(read[j][0] == card and read[j][1] >= WHOLE_IMAGE_ELSEWHERE and _rotated_overlap(cv2.minAreaRect(quads[j]), cv2.minAreaRect(quad))[0] < 0.3
               for j in range(len(quads))):
            return []  # the surface itself reads as that face: a plain red table as `red-3`
        if abs(white_tint(white_reference(crop_from_quad(image, quad)))) > WHOLE_IMAGE_TINT:
            return []
        (x0, y0), (x1, y1) = quad.min(axis=0), quad.max(axis=0)
        return [CardDetection(card=card, confidence=prob, box=(float(x0), float(y0), float(x1), float(y1)),
                              quad=tuple((float(x), float(y)) for x, y in quad),
                              detector_confidence=0.0)]

    def _searched(self, image: np.ndarray) -> list[CardDetection]:
        """The card `vision.search.search` finds in a photo where no box was found, said
        `searched`; [] where the two readers agree on none."""
        from vision.crops import order_portrait
        from vision.search import SEARCH_LONG, rect_quad, search

        scratch: dict[str, float] = {}
        names = self._corner[2]
        given, shrink = image, min(1.0, SEARCH_LONG / max(image.shape[:2]))
        if shrink < 1.0:
            image = cv2.resize(image, None, fx=shrink, fy=shrink, interpolation=cv2.INTER_AREA)

        def quads(rects):
            return [order_portrait(rect_quad(r)) for r in rects]

        def read_top(rects):
            return [top[0] for top in self.classify_top(image, quads(rects), 1, scratch)]

        def read_face(rects, face):
            qs = quads(rects)
            faces = [dict(top).get(face, 0.0) for top in self.classify_top(image, qs, len(self.classes), scratch)]
            if face not in names:
                return [(p, 0.0) for p in faces]
            corner = self.corner_readings(image, qs)[:, :, names.index(face)].max(axis=1)
            return list(zip(faces, corner.tolist(), strict=True))

        hit = search(image.shape[0], image.shape[1], read_top, read_face, backs=("back",))
        if hit is None:
            return []
        face, prob, _, rect = hit
        (found,) = quads([rect])
        candidates = tuple(self.classify_top(image, [found], 3, scratch)[0])
        quad = found / shrink
        quad[:, 0] = np.clip(quad[:, 0], 0, given.shape[1])
        quad[:, 1] = np.clip(quad[:, 1], 0, given.shape[0])
        (x0, y0), (x1, y1) = quad.min(axis=0), quad.max(axis=0)
        return [CardDetection(card=face, confidence=prob, box=(float(x0), float(y0), float(x1), float(y1)),
                              quad=tuple((float(x), float(y)) for x, y in quad), detector_confidence=0.0,
                              candidates=candidates, searched=True)]

    def recognize(self, image: np.ndarray) -> list[CardDetection]:
        """Every card in a BGR image (any size), best detector score first. Its stage times:
        `last_timings`."""
        found, self.last_timings = self.recognize_timed(image)
        return found

    def recognize_many(self, images: list[np.ndarray], owns: list | None = None,
                       ) -> list[tuple[list[CardDetection], dict[str, float]]]:
        """`recognize_timed` of several images (a frame's zone crops; `owns`: each one's
        `own`), side by side: one detector run gains little from a second core, two runs on
        two cores take the time of one (docs/replay.md, the frame budget)."""
        owns = owns if owns is not None else [None] * len(images)
        if len(images) < 2:
            return [self.recognize_timed(im, own) for im, own in zip(images, owns, strict=True)]
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            self._pool = ThreadPoolExecutor(max_workers=2, thread_name_prefix="recognize")
        return list(self._pool.map(self.recognize_timed, images, owns))

    def close(self) -> None:
        """Let recognize_many's threads go (a recognizer replaced by another, e.g. a deck)."""
        if self._pool is not None:
            self._pool.shutdown(wait=False)
            self._pool = None

    def recognize_timed(self, image: np.ndarray, own: tuple[float, float, float, float] | None = None,
                        ) -> tuple[list[CardDetection], dict[str, float]]:
        """`recognize`, with this call's stage times (ms) returned beside its cards, not kept:
        safe to call from several threads at once. `own` (x0, y0, x1, y1): for a crop of a
        bigger frame, the part whose cards are wanted; a strip of a card beside it, cut by
        the crop's edge (`beside_own`), is not named (the table's zone crops: the pile's
        crop catches the top strip of the revealed row below it, whose crop reads it whole)."""
        if image is None or not hasattr(image, "ndim"):
            raise ValueError("recognize() needs a BGR image as a numpy array (got None?)")
        if image.ndim == 2:
            image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        elif image.ndim == 3 and image.shape[2] == 4:
            image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
        elif image.ndim != 3 or image.shape[2] != 3:
            raise ValueError(f"recognize() needs an HxWx3 BGR image, got shape {image.shape}")
        if image.dtype != np.uint8:
            raise ValueError(f"recognize() needs a uint8 image, got {image.dtype}")
        given = image
        found, timings = self._recognize_either_way(image, own)
        surest = _surest_face(found)
        said = None  # the gains of a relit reading kept
        if self.relight and surest < RELIGHT_BELOW:
            t0 = time.perf_counter()
            # a deck's classifier tells its enrolment light by each crop's white (`_cls_white`):
            # balanced away, that light would be lost; lifted, its colour stays
            readings = []
            for gains in _relights(image, balance=not self._cls_white):
                lit = cv2.transform(image, np.diag(gains))
                readings.append((self._recognize_either_way(lit, own)[0], lit, gains))
            seen, lit, gains = max(readings, key=lambda r: _surest_face(r[0]), default=([], image, None))
            if _surest_face(seen) >= surest + RELIGHT_MARGIN:
                said = tuple(round(float(g), 2) for g in gains)
                found, image, surest = [replace(d, relit=said) for d in seen], lit, _surest_face(seen)
            _spent(timings, "relight", t0)
        if self.soften and surest < RELIGHT_BELOW:
            sigma = SOFTEN_SIGMA * max(image.shape[:2])
            seen = self._read_again(lambda: cv2.GaussianBlur(image, (0, 0), sigma), own, surest, timings, "soften")
            if seen is not None:
                found = [replace(d, softened=True, relit=said) for d in seen]  # relit first: both said
        # no box in any reading: the photo searched for a card where the classifier and the
        # corner reader agree (`vision.search`; the held-out webcam photos' commonest miss)
        if self.search and not found and self._corner is not None:
            t0 = time.perf_counter()
            found = self._searched(given)
            _spent(timings, "search", t0)
        surest = _surest_face(found)
        # a lamp's glare on a glossy card washes its glyph toward white (a 9 read as a 1, a 3
        # as an 8, unsurely): `glare` 358 -> 362 of 367, `mix` 341 -> 346 read again with it
        # taken off (`vision.glare`). Only where a face was read: taken off a frame with no
        # card (a bare cloth, backs in a dim room), the stretch made faces up
        # (models/README.md, thirty-fifth session)
        if self.deglare and 0.0 < surest < RELIGHT_BELOW:
            from vision.glare import deglared

            seen = self._read_again(lambda: deglared(given), own, surest, timings, "deglare")
            if seen is not None:
                found = [replace(d, deglared=True) for d in seen]
        return found, timings

    def _read_again(self, make, own, surest: float, timings: dict[str, float], stage: str,
                    ) -> list[CardDetection] | None:
        """A photo read unsurely read again as `make()` gives it (softened, its glare taken
        off): its cards where their surest face is RELIGHT_MARGIN surer than `surest`, else
        None. The time, making included: `timings[stage]`."""
        t0 = time.perf_counter()
        seen, _ = self._recognize_either_way(make(), own)
        _spent(timings, stage, t0)
        return seen if _surest_face(seen) >= surest + RELIGHT_MARGIN else None

    def _recognize_either_way(self, image: np.ndarray, own) -> tuple[list[CardDetection], dict[str, float]]:
        """`_recognize_once`, and where `mirror` is on and its faces are read unsurely, again
        mirrored, that reading kept if it is MIRROR_MARGIN surer, or surer naming the same faces."""
        found, timings = self._recognize_once(image, own)
        if not self.mirror:
            return found, timings
        surest = _surest_face(found)
        # only faces read unsurely are read again (surest 0: no face): nothing found is
        # nothing mirrored either (the detector and the tiles see a card either way round),
        # and card backs read mirrored gave faces (4 of 5 photos of backs, 0.33)
        if surest == 0.0 or surest >= MIRROR_BELOW:
            return found, timings
        t0 = time.perf_counter()
        w = image.shape[1]
        seen, _ = self._recognize_once(np.ascontiguousarray(image[:, ::-1]),
                                       None if own is None else (w - own[2], own[1], w - own[0], own[3]))
        # the margin keeps a mirrored reading from changing a face; one that names the same
        # faces changes none, and is kept when surer at all (a slanted card of a selfie view
        # read 0.81 in its region's outline, 0.98 mirrored)
        same = sorted(d.card for d in seen) == sorted(d.card for d in found)
        if _surest_face(seen) >= surest + MIRROR_MARGIN or (same and _surest_face(seen) > surest):
            found = [_unmirrored(d, w) for d in seen]
        _spent(timings, "mirror", t0)
        return found, timings

    def _recognize_once(self, image: np.ndarray, own) -> tuple[list[CardDetection], dict[str, float]]:
        """`recognize_timed` as the image is, not mirrored."""
        t0 = time.perf_counter()
        timings: dict[str, float] = {}
        found = self.detect_tiled(image, timings) if self.tiles else self.detect(image, timings)
        if own is not None:
            found = [(q, s) for q, s in found if not beside_own(q, own, image.shape[1], image.shape[0])]
        from vision.crops import order_portrait

        if not found and self.whole_image:
            return self._whole_image(image, t0, timings), timings

        t1 = time.perf_counter()
        if self.refine or self.refine_below > 0:
            shrink = self.imgsz / max(image.shape[:2])
            found = [
                (refine_quad(image, q), s) if self.refine or _long_side(q) * shrink < self.refine_below else (q, s)
                for q, s in found
            ]
        timings["refine"] = (time.perf_counter() - t1) * 1e3
        quads = [order_portrait(q) for q, _ in found]
        names = self.classify_top(image, quads, timings=timings)
        found, quads, names = self._split_pairs(image, found, quads, names, timings)
        if self.complete_cut:
            names = self._complete_cut(image, quads, names, timings)
        drawn: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        if self.outline:
            names, outlines = self._outline_unsure(image, quads, names, timings)
            # the card is reported in its outline (the detector's box lay across it); the
            # stages after this one, tuned on boxes, go on from the box (the fans' walk
            # from an outline lost a covered card of mit's real fans). Kept by the box
            # itself: a second look that moves the box drops it.
            drawn = {id(quads[i]): (quads[i], order_portrait(shape)) for i, shape in outlines.items()}
        t2 = time.perf_counter()
        scores = [score for _, score in found]
        unsure = [
            i for i, (score, ((_, prob), *_)) in enumerate(zip(scores, names, strict=True))
            if self.second_look and self._needs_second_look(image, quads[i], score, prob)
            and not _under_a_card_read(i, quads, names, scores)
        ]
        # The same card: its centre within a quarter card of the first box's (a fanned
        # neighbour lies about twice as far).
        reach = {
            i: (quads[i].mean(axis=0),
                max(np.linalg.norm(quads[i][0] - quads[i][1]), np.linalg.norm(quads[i][1] - quads[i][2])) / 4)
            for i in unsure
        }
        for turn in SECOND_LOOK_TURNS if unsure else ():
            again = self._second_look(image, turn, near=[reach[i] for i in unsure])
            still = []
            for i in unsure:
                c, quarter = reach[i]
                # A box read surely is given up only for a card-shaped one.
                shaped = names[i][0][1] >= SECOND_LOOK_BELOW
                near = [
                    (q, name) for q, name in again
                    if np.linalg.norm(q.mean(axis=0) - c) <= quarter and name[0][1] >= SECOND_LOOK_BELOW
                    and not (shaped and _too_square(q))
                ]
                if near:
                    quads[i], names[i] = max(near, key=lambda t: t[1][0][1])
                else:
                    still.append(i)
            unsure = still
            if not unsure:
                break
        if unsure and self.card_search:
            quads, names = self._card_search(image, quads, names, unsure, timings)
        if self.turn_search:
            names = self._turn_unsure(image, quads, names, scores, timings)
        timings["second_look"] = (time.perf_counter() - t2) * 1e3
        names = self._read_corners(image, quads, names, timings)
        if self.fans and self._corner is not None:
            found, quads, names = self._read_fans(image, found, quads, names, timings)
        out = []
        h, w = image.shape[:2]
        for (_, score), quad, top in zip(found, quads, names, strict=True):
            box, outline = drawn.get(id(quad), (None, None))
            quad = outline if box is quad else quad
            card, prob = top[0]
            x1, y1 = np.asarray(quad).min(axis=0)  # a second look may have moved it
            x2, y2 = np.asarray(quad).max(axis=0)
            if self.complete_cut:
                # cut cards are read whole past the image's edge (their quad); the box says
                # the part in the image (the photos' detector boxes them past the edge too)
                x1, y1, x2, y2 = max(x1, 0.0), max(y1, 0.0), min(x2, float(w)), min(y2, float(h))
            out.append(
                CardDetection(
                    card=card,
                    confidence=prob,
                    box=(float(x1), float(y1), float(x2), float(y2)),
                    quad=tuple((float(x), float(y)) for x, y in quad),
                    detector_confidence=score,
                    candidates=tuple(top),
                )
            )
        out = _one_card_once(out)
        timings["total"] = (time.perf_counter() - t0) * 1e3
        return out, timings
