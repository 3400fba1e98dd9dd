"""Annotated frames for the dashboard: zones, card boxes and names, the pile's state."""

from __future__ import annotations

import cv2
import numpy as np

from vision.types import CardDetection
from vision.zones import ZoneLayout

ZONE_BGR = {"discard": (60, 60, 220), "draw": (200, 120, 40), "reveal": (60, 170, 60)}
CARD_BGR = {
    "red": (50, 50, 230), "yellow": (40, 200, 240), "green": (60, 170, 60), "blue": (220, 130, 30),
    "wild": (40, 40, 40), "back": (120, 120, 120),
}


def _card_colour(card: str) -> tuple[int, int, int]:
    return CARD_BGR.get(card.split("-")[0], (255, 255, 255))


def annotate(
    image: np.ndarray,
    detections: list[CardDetection],
    zones: ZoneLayout | None = None,
    covered: dict[str, bool] | None = None,
    caption: str | None = None,
) -> np.ndarray:
    """A copy of `image` with the zones (shaded when covered by a hand), each card's box or
    corners and its name and confidence."""
    out = np.array(image, copy=True)
    h, w = out.shape[:2]
    s = max(0.4, min(w, h) / 720)
    thick = max(1, int(round(2 * s)))
    if zones is not None:
        overlay = out.copy()
        for name, zone in zones.zones.items():
            pts = np.round(zone.polygon).astype(np.int32)
            colour = ZONE_BGR.get(name, (200, 200, 200))
            if covered and covered.get(name):
                cv2.fillPoly(overlay, [pts], colour)
            cv2.polylines(out, [pts], True, colour, thick, cv2.LINE_AA)
            label = name + (" (covered)" if covered and covered.get(name) else "")
            x, y = pts.min(axis=0)
            cv2.putText(out, label, (int(x) + 4, int(y) + int(18 * s)), cv2.FONT_HERSHEY_SIMPLEX,
                        0.55 * s, colour, thick, cv2.LINE_AA)
        out = cv2.addWeighted(overlay, 0.25, out, 0.75, 0)
    for d in detections:
        colour = _card_colour(d.card)
        if d.quad is not None:
            cv2.polylines(out, [np.round(np.array(d.quad)).astype(np.int32)], True, colour, thick, cv2.LINE_AA)
        else:
            x0, y0, x1, y1 = (int(round(v)) for v in d.box)
            cv2.rectangle(out, (x0, y0), (x1, y1), colour, thick, cv2.LINE_AA)
        label = f"{d.card} {d.confidence:.2f}"
        (tw, th), base = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, 0.5 * s, thick)
        x0, y0 = int(d.box[0]), max(int(th + 4), int(d.box[1]))
        cv2.rectangle(out, (x0, y0 - th - base - 2), (x0 + tw + 4, y0), colour, -1)
        cv2.putText(out, label, (x0 + 2, y0 - base), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * s,
                    (255, 255, 255), thick, cv2.LINE_AA)
    if caption:
        cv2.putText(out, caption, (int(8 * s), h - int(10 * s)), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * s,
                    (0, 0, 0), thick + 2, cv2.LINE_AA)
        cv2.putText(out, caption, (int(8 * s), h - int(10 * s)), cv2.FONT_HERSHEY_SIMPLEX, 0.6 * s,
                    (255, 255, 255), thick, cv2.LINE_AA)
    return out


def to_jpeg(image: np.ndarray, quality: int = 80) -> bytes:
    """JPEG bytes (for the dashboard's MJPEG stream)."""
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError("JPEG encoding failed")
    return buf.tobytes()


def annotate_result(result, quality: int | None = None):
    """Annotate a pipeline FrameResult; JPEG bytes when `quality` is given."""
    last = result.observations[-1].type if result.observations else None
    caption = f"frame {result.frame.number}" + (f"  {last}" if last else "")
    img = annotate(result.frame.image, result.detections, result.zones, result.covered, caption)
    return img if quality is None else to_jpeg(img, quality)
