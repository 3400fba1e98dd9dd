"""One-grid variants of vision.search's windows tried this session (s37): `base` the
thirty-sixth session's grid; `short` its sizes by the frame's short side; `diag` with windows
turned 45 degrees; `cut` reaching past the frame; `all` both (what `wider_windows` became)."""
import cv2
import numpy as np

from vision import search as vs
from vision.render import CARD_ASPECT


def visible(rect, h, w):
    q = vs.rect_quad(rect)
    area, _ = cv2.intersectConvexConvex(q, np.float32([[0, 0], [w, 0], [w, h], [0, h]]))
    return area / (rect[1][0] * rect[1][1])


def grid(h, w, shares, angles, vis_min=1.0, by_short=True, step=0.5):
    out = []
    for deg in angles:
        c, s = abs(np.cos(np.radians(deg))), abs(np.sin(np.radians(deg)))
        for share in shares:
            if by_short:
                long = share * min(h, w)
            else:  # the shipped: along the frame's side the long side lies along
                long = share * (h if deg == 0 else w)
            short = long * CARD_ASPECT
            bx, by = (c * short + s * long) / 2, (s * short + c * long) / 2
            st = step * short
            axes = []
            for b, L in ((bx, w), (by, h)):
                over = 2 * b * (1 - vis_min)
                lo, hi = b - over, L - b + over
                if lo > hi:
                    if vis_min >= 1:
                        axes = None
                        break
                    lo = hi = L / 2
                axes.append(np.linspace(lo, hi, max(1, round((hi - lo) / st) + 1)))
            if axes is None:
                continue
            for x in axes[0]:
                for y in axes[1]:
                    r = ((float(x), float(y)), (short, long), float(deg))
                    if vis_min >= 1 or visible(r, h, w) >= vis_min - 1e-6:
                        out.append(r)
    return out


VARIANTS = {
    "base": vs.windows,  # the function itself: scripts patch vs.windows
    "short": lambda h, w: grid(h, w, (0.55, 0.75, 0.95), (0, 90)),
    "diag": lambda h, w: grid(h, w, (0.55, 0.75, 0.95), (0, 90, 45, -45)),
    "cut": lambda h, w: grid(h, w, (0.55, 0.75, 0.95, 1.2, 1.5), (0, 90), vis_min=0.6),
    "all": lambda h, w: grid(h, w, (0.55, 0.75, 0.95, 1.2, 1.5), (0, 90, 45, -45), vis_min=0.6),
    "all4": lambda h, w: grid(h, w, (0.4, 0.55, 0.75, 0.95, 1.2, 1.5), (0, 90, 45, -45), vis_min=0.6),
}

if __name__ == "__main__":
    for k, f in VARIANTS.items():
        print(k, len(f(480, 640)), len(f(640, 480)))
