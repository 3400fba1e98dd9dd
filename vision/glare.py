"""A lamp's glare taken off a still photo as haze is: the dark channel prior (He, Sun and
Tang, "Single Image Haze Removal Using Dark Channel Prior", CVPR 2009), the photo's white as
the airlight.

A glossy card under a lamp reflects the lamp's own white over its face: each pixel is the
card's colour blended toward that white by how much glare falls there,
I = J * t + A * (1 - t), which is the haze model with the white as A. Nearly every patch of
an UNO face holds a pixel dark in some channel (a red, green or blue field is near 0 in two
channels, a yellow one in blue, a digit's outline in all three), so where a patch's darkest
channel is lifted, glare lifted it, and by that much: t follows from it, and J from t. A
glare is soft across the card, so t is smoothed as wide as the patch; a white with nothing
dark around it (the middle of an oval) keeps its own value, since I = A there.
"""

from __future__ import annotations

import cv2
import numpy as np

# The patch in which some channel is dark, as a share of the photo's shorter side: He et
# al.'s 15 px at 480 (a card held up fills half or more of a webcam frame's height, so a
# patch is a few percent of its face: its field and glyph show in every one).
DEGLARE_PATCH = 15 / 480
# How much of the haze to take off (He et al.'s omega): a little is left, so that a white
# still reads as lit from somewhere.
DEGLARE_KEEP = 0.95
# The least transmission: a patch lifted nearly to white is glare burnt in, and stretching it
# further would stretch its JPEG noise, not bring back a glyph.
DEGLARE_FLOOR = 0.3
# The airlight: the photo's white, the level reached by this share of its brightest pixels
# in each channel.
DEGLARE_WHITE = 0.5


def deglared(image: np.ndarray) -> np.ndarray:
    """`image` (BGR uint8) with the white a glare lays over it taken off (see the module)."""
    h, w = image.shape[:2]
    step = max(1, max(h, w) // 320)  # the white measured on a grid, as a webcam frame's
    sample = image[::step, ::step].reshape(-1, 3)
    white = np.maximum(np.percentile(sample, 100 - DEGLARE_WHITE, axis=0), 1.0).astype(np.float32)
    img = image.astype(np.float32)
    # the darkest channel, channel by channel (numpy reduces slowly over rows of three)
    dark = np.minimum(np.minimum(img[..., 0] / white[0], img[..., 1] / white[1]), img[..., 2] / white[2])
    k = max(3, int(DEGLARE_PATCH * min(h, w))) | 1
    dark = cv2.erode(dark, np.ones((k, k), np.uint8))
    dark = cv2.GaussianBlur(dark, (0, 0), k)
    t = np.maximum(1.0 - DEGLARE_KEEP * dark, DEGLARE_FLOOR)[..., None]
    img -= white
    img /= t
    img += white
    return np.clip(img, 0, 255).astype(np.uint8)
