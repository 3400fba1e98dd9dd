"""A card's own four corners, found from its edges near the detector's box.

The detector boxes a card with a rotated rectangle. A card seen at a slant (held up and
leaning back, or lying on a table photographed from a seat) is a trapezoid: its rectangle
takes in background at the far end and squeezes the face, and the classifier, trained on
upright crops with mild slants, misreads it (models/README.md, twenty-seventh session). Each
of the card's four sides is a straight edge, however slanted the card, so each side is
looked for on its own as the strongest straight edge near the box's side, and the corners
are where the sides meet. A side with no clear edge (a finger over it, a white card on a
white wall) keeps the box's side.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.crops import order_portrait

CARD_PX = 128  # the box's long side in the canvas the edges are looked for in
MARGIN = 0.2  # canvas margin beyond the box, a share of the box's side
OUTWARD, INWARD = 0.12, 0.4  # how far a side may lie beyond / within the box's side
STEPS = 25  # positions tried for each end of a side
SAMPLES = 48  # points sampled along a side
# A side is taken where its edge is at least this strong (the mean gradient along it, of
# the canvas's strongest gradients); a weaker one keeps the box's side.
MIN_EDGE = 0.3
REFIT = 0.06  # the second pass's band about the first pass's side
BORDER = 0.055  # the white border beyond the printed field, a share of the card's width
# Of the edges at least NEAR_BEST as strong as the strongest, the outermost is the card's
# own outline: the printed field's border runs parallel just inside it.
NEAR_BEST = 0.7


def _side_maps(canvas: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """For each side of the box (the canvas's axes), two edge maps in 0..1 (scaled by the
    canvas's strongest gradients): `outer`, an edge the card's white border can make with
    what lies beyond it, and `field`, the printed field's own edge (colour inside, white
    outside: saturation falls and brightness rises outwards)."""
    hsv = cv2.cvtColor(canvas, cv2.COLOR_BGR2HSV).astype(np.float32)
    sat = cv2.GaussianBlur(hsv[..., 1], (0, 0), 1.0)
    val = cv2.GaussianBlur(hsv[..., 2], (0, 0), 1.0)
    d = {ax: (cv2.Sobel(sat, cv2.CV_32F, *ax, ksize=3), cv2.Sobel(val, cv2.CV_32F, *ax, ksize=3))
         for ax in ((1, 0), (0, 1))}
    scale = max(float(np.percentile(np.maximum.reduce([np.abs(m) for pair in d.values() for m in pair]), 98)),
                1e-3)
    maps = {}
    for side, ax, sign in (("top", (0, 1), -1), ("bottom", (0, 1), 1), ("left", (1, 0), -1), ("right", (1, 0), 1)):
        ds, dv = (sign * m / scale for m in d[ax])  # outward derivatives
        strength = np.maximum(np.abs(ds), np.abs(dv))
        field = np.where(dv > -0.1, np.maximum(-ds, 0.0), 0.0)
        outer = np.where(-ds > 0.5 * strength, 0.0, strength)
        maps[side] = (np.minimum(outer, 1.0), np.minimum(field, 1.0))
    return maps


def _best_line(grad: np.ndarray, p0, p1, normal, offs: np.ndarray) -> tuple[float, float, float]:
    """Of the lines from p0 + a*normal to p1 + b*normal (a, b in `offs`), the outermost (along
    `normal`) of those at least NEAR_BEST as strong as the strongest on `grad` (its mean
    along the line): (a, b, its strength)."""
    a, b = np.meshgrid(offs, offs, indexing="ij")
    t = np.linspace(0.05, 0.95, SAMPLES)
    p0, p1, normal = (np.asarray(v, np.float64) for v in (p0, p1, normal))
    pts = (p0[:, None, None, None] * (1 - t) + p1[:, None, None, None] * t
           + normal[:, None, None, None] * (a[..., None] * (1 - t) + b[..., None] * t))
    h, w = grad.shape
    xs = np.clip(np.rint(pts[0]), 0, w - 1).astype(int)
    ys = np.clip(np.rint(pts[1]), 0, h - 1).astype(int)
    score = grad[ys, xs].mean(axis=-1)
    best = float(score.max())
    k = np.argmax(np.where(score >= NEAR_BEST * best, a + b, -np.inf))
    i, j = np.unravel_index(k, score.shape)
    return float(a[i, j]), float(b[i, j]), float(score[i, j])


def _meet(p1, p2, p3, p4) -> np.ndarray | None:
    """Where the line p1-p2 meets the line p3-p4, or None if they are parallel."""
    d1, d2 = np.subtract(p2, p1), np.subtract(p4, p3)
    den = d1[0] * d2[1] - d1[1] * d2[0]
    if abs(den) < 1e-6:
        return None
    s = ((p3[0] - p1[0]) * d2[1] - (p3[1] - p1[1]) * d2[0]) / den
    return np.asarray(p1, np.float64) + s * d1


def _corners(sides) -> np.ndarray | None:
    """The four corners (top-left clockwise) where the sides, each given by two points on it,
    meet, or None."""
    pairs = (("top", "left"), ("top", "right"), ("bottom", "right"), ("bottom", "left"))
    corners = [_meet(*sides[a][:2], *sides[b][:2]) for a, b in pairs]
    if any(c is None for c in corners):
        return None
    return np.float32(corners)


def outline_quad(image: np.ndarray, quad) -> np.ndarray | None:
    """The card's own corners (4x2, the image's pixels, portrait order as `order_portrait`)
    near the detector's box `quad`, or None where no side has a clear edge or the sides found
    make no card (not convex, or far smaller than the box)."""
    q = order_portrait(quad).astype(np.float32)
    bw = float(np.linalg.norm(q[1] - q[0]) + np.linalg.norm(q[2] - q[3])) / 2
    bh = float(np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1])) / 2
    if min(bw, bh) < 8:
        return None
    H = float(CARD_PX)
    W = H * bw / bh
    mx, my = MARGIN * W, MARGIN * H
    box = np.float32([[mx, my], [mx + W, my], [mx + W, my + H], [mx, my + H]])
    m = cv2.getPerspectiveTransform(q, box)
    size = (int(round(W + 2 * mx)), int(round(H + 2 * my)))
    canvas = cv2.warpPerspective(image, m, size, flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE)
    maps = _side_maps(canvas)
    x0, x1, y0, y1 = mx, mx + W, my, my + H
    border = BORDER * W
    # each side: its box corners in the canvas, its outward normal, the box's size across it
    sides = {
        "top": ((x0, y0), (x1, y0), (0, -1), H), "bottom": ((x0, y1), (x1, y1), (0, 1), H),
        "left": ((x0, y0), (x0, y1), (-1, 0), W), "right": ((x1, y0), (x1, y1), (1, 0), W),
    }
    for band in (np.linspace(-INWARD, OUTWARD, STEPS), np.linspace(-REFIT, REFIT, STEPS // 2)):
        lines, any_edge = {}, False
        for name, (p0, p1, n, span) in sides.items():
            outer, field = maps[name]
            offs = band * span
            oa, ob, os_ = _best_line(outer, p0, p1, n, offs)
            fa, fb, fs = _best_line(field, p0, p1, n, offs)
            n_ = np.float64(n)
            if os_ >= MIN_EDGE and (fs < MIN_EDGE or oa + ob >= fa + fb):
                a, b = oa, ob
            elif fs >= MIN_EDGE:  # only the field's edge: the card's lies a border beyond it
                a, b = fa + border, fb + border
            else:
                a, b = 0.0, 0.0
            any_edge |= max(os_, fs) >= MIN_EDGE
            lines[name] = (np.float64(p0) + a * n_, np.float64(p1) + b * n_, n, span)
        if not any_edge:
            return None
        found = _corners(lines)
        if found is None:
            return None
        # the second pass fits each side again between the corners the first found
        tl, tr, br, bl = found
        sides = {"top": (tl, tr, (0, -1), H), "bottom": (bl, br, (0, 1), H),
                 "left": (tl, bl, (-1, 0), W), "right": (tr, br, (1, 0), W)}
    if not cv2.isContourConvex(found.reshape(-1, 1, 2)):
        return None
    area = cv2.contourArea(found)
    if not 0.35 * W * H <= area <= 1.3 * W * H:
        return None
    out = cv2.perspectiveTransform(found.reshape(-1, 1, 2), np.linalg.inv(m)).reshape(4, 2)
    return order_portrait(out)


# A card leaning far back (its far side a third to a half of its near one) is boxed by a
# rectangle turned well off the card, or cut across it, and its sides then lie outside the
# band `outline_quad` searches (models/README.md, thirty-third session). But the card is a
# region that differs from what is around it, wherever its box lies: GrabCut, seeded by the
# box (its middle surely the card, the rim of a window REGION_GROW larger surely not), cuts
# the card out, and the four-sided polygon nearest its hull gives its corners.
REGION_PX = 160  # the window's long side, where GrabCut runs (about 40 ms at 160 on one core)
REGION_GROW = 0.35  # the window beyond the box, a share of the box's size, each way
REGION_SURE = 0.4  # the part of the box (about its centre) taken as surely the card
REGION_ITERS = 4
# The region found is a card only if its area is within these shares of the box's (a cut
# that took in the background, or kept a sliver, is no card).
REGION_AREA = (0.3, 1.8)


def _four_sided(hull: np.ndarray) -> np.ndarray:
    """The four-sided polygon nearest a convex hull (Nx2 float32; fewer corners where none is
    found). `cv2.approxPolyN` came with OpenCV 4.11, and the Pi's wheels may be older: there
    the hull is simplified more and more coarsely until four of its corners are left."""
    if hasattr(cv2, "approxPolyN"):
        return cv2.approxPolyN(hull, 4, ensure_convex=True).reshape(-1, 2).astype(np.float32)
    length = cv2.arcLength(hull, True)
    for share in np.linspace(0.01, 0.2, 39):
        poly = cv2.approxPolyDP(hull, share * length, True).reshape(-1, 2).astype(np.float64)
        if len(poly) <= 4:
            break
    if len(poly) != 4:
        return poly.astype(np.float32)
    # the simplified sides run between hull points, inside a rounded corner: each is moved
    # out, along its normal, to touch the hull, and the corners are where they meet
    pts, centre = hull.reshape(-1, 2).astype(np.float64), poly.mean(axis=0)
    normals, offsets = [], []
    for a, b in zip(poly, np.roll(poly, -1, axis=0), strict=True):
        d = (b - a) / max(np.linalg.norm(b - a), 1e-9)
        n = np.array([d[1], -d[0]])
        n = -n if n @ (centre - a) > 0 else n
        normals.append(n)
        offsets.append(float((pts @ n).max()))
    corners = [np.linalg.solve(np.array([normals[k - 1], normals[k]]), [offsets[k - 1], offsets[k]])
               for k in range(4)]
    return np.float32(corners)


def region_quad(image: np.ndarray, quad) -> np.ndarray | None:
    """The card's four corners (4x2, the image's pixels, `order_portrait` order) as the
    outline of the region GrabCut cuts out about the detector's box `quad`, or None where no
    four-sided region of about the box's size is found."""
    q = np.asarray(quad, np.float32).reshape(4, 2)
    ih, iw = image.shape[:2]
    (x0, y0), (x1, y1) = q.min(axis=0), q.max(axis=0)
    gx, gy = REGION_GROW * (x1 - x0), REGION_GROW * (y1 - y0)
    X0, Y0 = int(max(0, x0 - gx)), int(max(0, y0 - gy))
    X1, Y1 = int(min(iw, x1 + gx)), int(min(ih, y1 + gy))
    if min(X1 - X0, Y1 - Y0) < 16:
        return None
    s = REGION_PX / max(X1 - X0, Y1 - Y0)
    window = cv2.resize(image[Y0:Y1, X0:X1], None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    box = (q - [X0, Y0]) * s
    mask = np.full(window.shape[:2], cv2.GC_PR_BGD, np.uint8)
    cv2.fillConvexPoly(mask, np.rint(box).astype(np.int32), cv2.GC_PR_FGD)
    c = box.mean(axis=0)
    cv2.fillConvexPoly(mask, np.rint(c + (box - c) * REGION_SURE).astype(np.int32), cv2.GC_FGD)
    # the window's rim is surely not the card, except where it is the image's own edge (a
    # card cut by the frame goes on past it)
    for cut, rim in ((Y0 > 0, np.s_[:2, :]), (Y1 < ih, np.s_[-2:, :]), (X0 > 0, np.s_[:, :2]), (X1 < iw, np.s_[:, -2:])):
        if cut:
            mask[rim] = cv2.GC_BGD
    # GrabCut seeds its colour models with k-means on OpenCV's global random state: seeded
    # here so that a photo reads the same every time
    cv2.setRNGSeed(0)
    models = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    cv2.grabCut(window, mask, None, *models, REGION_ITERS, cv2.GC_INIT_WITH_MASK)
    card = np.isin(mask, (cv2.GC_FGD, cv2.GC_PR_FGD)).astype(np.uint8)
    card = cv2.morphologyEx(card, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(card, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    if len(hull) < 4:
        return None
    poly = _four_sided(hull)
    if len(poly) != 4:
        return None
    area, boxed = cv2.contourArea(poly), cv2.contourArea(box.astype(np.float32))
    if not REGION_AREA[0] * boxed <= area <= REGION_AREA[1] * boxed:
        return None
    return order_portrait(poly / s + [X0, Y0])
