"""Prototype: a card's quad from its region (GrabCut seeded by the detector's box)."""

import cv2
import numpy as np

from vision.crops import order_portrait

SIDE = 160
GROW = 0.35


def region_quad(image, quad, iters=4):
    q = np.asarray(quad, np.float32)
    x0, y0 = q.min(axis=0)
    x1, y1 = q.max(axis=0)
    w, h = x1 - x0, y1 - y0
    ih, iw = image.shape[:2]
    X0, Y0 = int(max(0, x0 - GROW * w)), int(max(0, y0 - GROW * h))
    X1, Y1 = int(min(iw, x1 + GROW * w)), int(min(ih, y1 + GROW * h))
    roi = image[Y0:Y1, X0:X1]
    if roi.size == 0:
        return None
    s = SIDE / max(roi.shape[:2])
    small = cv2.resize(roi, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
    sh, sw = small.shape[:2]
    mask = np.full((sh, sw), cv2.GC_PR_BGD, np.uint8)
    box = ((q - [X0, Y0]) * s).astype(np.int32)
    cv2.fillConvexPoly(mask, box, cv2.GC_PR_FGD)
    # the box's middle half: surely the card
    c = box.mean(axis=0)
    cv2.fillConvexPoly(mask, (c + (box - c) * 0.4).astype(np.int32), cv2.GC_FGD)
    # the ROI's rim, where it is not the image's edge: surely not
    r = 2
    if Y0 > 0:
        mask[:r] = cv2.GC_BGD
    if Y1 < ih:
        mask[-r:] = cv2.GC_BGD
    if X0 > 0:
        mask[:, :r] = cv2.GC_BGD
    if X1 < iw:
        mask[:, -r:] = cv2.GC_BGD
    bgd, fgd = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    cv2.grabCut(small, mask, None, bgd, fgd, iters, cv2.GC_INIT_WITH_MASK)
    fg = np.where((mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD), 255, 0).astype(np.uint8)
    fg = cv2.morphologyEx(fg, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, lab, stats, _ = cv2.connectedComponentsWithStats(fg)
    if n < 2:
        return None
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    cnts, _ = cv2.findContours(
        (lab == k).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE
    )
    hull = cv2.convexHull(max(cnts, key=cv2.contourArea))
    poly = cv2.approxPolyN(hull, 4, ensure_convex=True)
    poly = None if poly is None else poly.reshape(-1, 2)
    if poly is None or len(poly) != 4:
        return None
    out = poly.reshape(4, 2).astype(np.float32) / s + [X0, Y0]
    return order_portrait(out)
