"""QR codes drawn locally as SVG (no network, no image library): the table's join link and
each seat's controller link."""

from __future__ import annotations

import io
from functools import lru_cache


@lru_cache(maxsize=64)
def qr_svg(data: str) -> bytes:
    """An SVG QR code for `data`, with a white background so phones read it in dark mode."""
    import qrcode
    import qrcode.image.svg

    img = qrcode.make(
        data,
        image_factory=qrcode.image.svg.SvgPathFillImage,
        error_correction=qrcode.constants.ERROR_CORRECT_M,
        border=4,
    )
    buf = io.BytesIO()
    img.save(buf)
    return buf.getvalue()
