"""A trial: `_cut_card_shapes` widened to a grid of whole cards for a box cut on any sides
(both dimensions cut, both orientations, several sizes and places). Imported, it patches
vision.recognizer. STATS counts the shapes tried."""

import itertools

import numpy as np

import vision.recognizer as R
from vision.crops import order_portrait

STATS = {"boxes": 0, "shapes": 0}
SCALES = (1.0, 1.3, 1.7)
_old = R._cut_card_shapes


def cut_grid(image, quad):
    ih, iw = image.shape[:2]
    m = max(3.0, R.CUT_EDGE * max(ih, iw))
    q = order_portrait(np.asarray(quad, np.float64)).astype(np.float64)

    def on_edge(a, b):
        return bool((a[0] <= m and b[0] <= m) or (a[0] >= iw - 1 - m and b[0] >= iw - 1 - m)
                    or (a[1] <= m and b[1] <= m) or (a[1] >= ih - 1 - m and b[1] >= ih - 1 - m))

    cut = [on_edge(q[i], q[(i + 1) % 4]) for i in range(4)]  # top, right, bottom, left
    if not any(cut):
        return []
    c = q.mean(axis=0)
    u = (q[1] - q[0] + q[2] - q[3]) / 2
    v = (q[3] - q[0] + q[2] - q[1]) / 2
    bw, bh = np.linalg.norm(u), np.linalg.norm(v)
    uh, vh = u / max(bw, 1e-6), v / max(bh, 1e-6)
    # (cut at the low end, cut at the high end) along u and along v
    cu, cv = (cut[3], cut[1]), (cut[0], cut[2])
    out = []
    for upright in (True, False):  # the card's height along v, or along u
        a = R._CARD_ASPECT if upright else 1 / R._CARD_ASPECT  # card extent along u / along v
        base = max(bw, bh * a)  # the least extent along u that covers the box
        for s in SCALES:
            eu, ev = base * s, base * s / a
            ok = True
            offs = []
            for e, vis, (lo, hi) in ((eu, bw, cu), (ev, bh, cv)):
                slack = e - vis
                if not (lo or hi):
                    if slack > 0.12 * vis:
                        ok = False
                    offs.append((0.0,))
                elif lo and hi:
                    offs.append((0.0,) if slack < 0.1 * vis else (-slack / 4, 0.0, slack / 4))
                else:  # grows past the cut end only
                    offs.append((-slack / 2 if lo else slack / 2,))
            if not ok:
                continue
            for ou, ov in itertools.product(*offs):
                cc = c + uh * ou + vh * ov
                du, dv = uh * eu / 2, vh * ev / 2
                g = np.array([cc - du - dv, cc + du - dv, cc + du + dv, cc - du + dv], np.float32)
                if abs(eu - bw) < 0.05 * bw and abs(ev - bh) < 0.05 * bh:
                    continue  # the box itself
                out.append(g)
    return out


def patched(image, quad):
    shapes = cut_grid(image, quad)
    if shapes:
        STATS["boxes"] += 1
        STATS["shapes"] += len(shapes)
    return shapes


R._cut_card_shapes = patched
