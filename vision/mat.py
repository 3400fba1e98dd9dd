"""The printable play mat: ArUco markers at the corners and the three zones drawn.

Mat coordinates are millimetres on the paper, origin top left. With the mat in view the
markers give a homography from frame pixels to the mat, which places the zones in the frame
and straightens frames for display."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.zones import DEFAULT_LAYOUT, ZoneLayout, rect

PAPER_MM = {"A3": (420.0, 297.0), "A4": (297.0, 210.0)}  # landscape
MARKER_MM = {"A3": 36.0, "A4": 26.0}
MARGIN_MM = 8.0
ARUCO_DICT = cv2.aruco.DICT_4X4_50
MARKER_IDS = (0, 1, 2, 3)  # top left, top right, bottom right, bottom left
ZONE_COLOURS = {"discard": (60, 60, 200), "draw": (160, 90, 30), "reveal": (40, 140, 40)}
ZONE_FIELD = (70, 100, 60)  # BGR
ZONE_LABELS = {"discard": "DISCARD PILE", "draw": "DRAW PILE", "reveal": "REVEAL ZONE"}


@dataclass(frozen=True)
class MatLayout:
    paper: str
    width_mm: float
    height_mm: float
    marker_mm: float

    @classmethod
    def for_paper(cls, paper: str = "A3") -> MatLayout:
        if paper not in PAPER_MM:
            raise ValueError(f"paper must be one of {', '.join(PAPER_MM)}, not {paper!r}")
        w, h = PAPER_MM[paper]
        return cls(paper, w, h, MARKER_MM[paper])

    def marker_corners(self) -> dict[int, np.ndarray]:
        """Each marker's four corners in mm, in ArUco's order (clockwise from top left)."""
        m, s, w, h = MARGIN_MM, self.marker_mm, self.width_mm, self.height_mm
        origins = {0: (m, m), 1: (w - m - s, m), 2: (w - m - s, h - m - s), 3: (m, h - m - s)}
        return {i: rect(x, y, x + s, y + s) for i, (x, y) in origins.items()}

    def zone_polygons(self) -> dict[str, np.ndarray]:
        w, h = self.width_mm, self.height_mm
        return {n: rect(x0 * w, y0 * h, x1 * w, y1 * h) for n, (x0, y0, x1, y1) in DEFAULT_LAYOUT.items()}


def render_mat(paper: str = "A3", px_per_mm: float = 8.0) -> np.ndarray:
    """The mat as a BGR image (white paper)."""
    lay = MatLayout.for_paper(paper)
    W, H = int(round(lay.width_mm * px_per_mm)), int(round(lay.height_mm * px_per_mm))
    img = np.full((H, W, 3), 255, np.uint8)
    k = px_per_mm
    for name, poly in lay.zone_polygons().items():
        pts = np.round(poly * k).astype(np.int32)
        colour = ZONE_COLOURS[name]
        # A dark felt-green field: white-bordered cards stand out on it (on white paper the
        # card's edge vanishes), and green is nothing like skin to the hand detector.
        cv2.fillPoly(img, [pts], ZONE_FIELD)
        cv2.polylines(img, [pts], True, colour, max(2, int(1.2 * k)), cv2.LINE_AA)
        label = ZONE_LABELS[name]
        scale = 0.9 * k / 8.0 * 1.6
        thick = max(1, int(k / 3))
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
        x0, y0 = pts[0]
        cv2.putText(img, label, (int(x0 + 3 * k), int(y0 + 3 * k + th)), cv2.FONT_HERSHEY_SIMPLEX,
                    scale, (235, 235, 235), thick, cv2.LINE_AA)
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    for i, corners in lay.marker_corners().items():
        size = int(round(lay.marker_mm * k))
        marker = cv2.aruco.generateImageMarker(dictionary, i, size)
        x, y = np.round(corners[0] * k).astype(int)
        img[y : y + size, x : x + size] = marker[:, :, None]
    cv2.putText(img, f"UNO Table mat {paper} - print at 100% - markers {lay.marker_mm:.0f} mm",
                (int(60 * k), int(H - 3 * k)), cv2.FONT_HERSHEY_SIMPLEX, 0.5 * k / 8 * 1.6,
                (120, 120, 120), max(1, int(k / 6)), cv2.LINE_AA)
    return img


def write_mat_pdf(path: str | Path, paper: str = "A3", dpi: int = 200) -> Path:
    """Write the mat as a one-page PDF at the paper's true size."""
    from PIL import Image

    px_per_mm = dpi / 25.4
    img = render_mat(paper, px_per_mm)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(cv2.cvtColor(img, cv2.COLOR_BGR2RGB)).save(path, "PDF", resolution=float(dpi))
    return path


@dataclass
class MatPose:
    """Where the mat lies in a frame."""

    layout: MatLayout
    to_mat: np.ndarray  # 3x3 homography, frame pixels -> mat mm
    to_frame: np.ndarray  # its inverse
    markers: tuple[int, ...]

    def zones(self) -> ZoneLayout:
        polys = {
            n: cv2.perspectiveTransform(p.reshape(-1, 1, 2), self.to_frame).reshape(-1, 2)
            for n, p in self.layout.zone_polygons().items()
        }
        return ZoneLayout.from_polygons(polys, "mat")

    def straighten(self, image: np.ndarray, px_per_mm: float = 2.0) -> np.ndarray:
        """The mat seen from straight above (for display), `px_per_mm` pixels per mm."""
        s = np.diag([px_per_mm, px_per_mm, 1.0])
        size = (int(self.layout.width_mm * px_per_mm), int(self.layout.height_mm * px_per_mm))
        return cv2.warpPerspective(image, s @ self.to_mat, size)


_DETECTOR = None


def _detector():
    global _DETECTOR
    if _DETECTOR is None:
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        _DETECTOR = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICT), params)
    return _DETECTOR


def find_mat(image: np.ndarray, paper: str = "A3", min_markers: int = 2) -> MatPose | None:
    """Find the mat by its markers; None when fewer than `min_markers` are visible."""
    grey = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _ = _detector().detectMarkers(grey)
    if ids is None:
        return None
    lay = MatLayout.for_paper(paper)
    known = lay.marker_corners()
    src, dst, found = [], [], []
    for c, i in zip(corners, ids.ravel(), strict=True):
        if int(i) in known and int(i) not in found:
            src.append(c.reshape(4, 2))
            dst.append(known[int(i)])
            found.append(int(i))
    if len(found) < min_markers:
        return None
    src_pts, dst_pts = np.concatenate(src).astype(np.float32), np.concatenate(dst).astype(np.float32)
    H, _ = cv2.findHomography(src_pts, dst_pts, cv2.RANSAC if len(found) > 2 else 0, 3.0)
    if H is None:
        return None
    return MatPose(lay, H, np.linalg.inv(H), tuple(sorted(found)))
