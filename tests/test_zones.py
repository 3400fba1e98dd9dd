"""Zones: polygons in frame pixels, the default layout, masks for the hand monitor."""

from __future__ import annotations

import numpy as np

from vision.zones import DEFAULT_LAYOUT, ZoneLayout


def test_default_layout_places_three_disjoint_zones():
    z = ZoneLayout.default_for(1000, 500)
    assert set(z.zones) == {"discard", "draw", "reveal"}
    for name, (x0, y0, x1, y1) in DEFAULT_LAYOUT.items():
        centre = ((x0 + x1) / 2 * 1000, (y0 + y1) / 2 * 500)
        assert z.zone_of(centre) == name
    assert z.zone_of((5, 5)) is None
    masks = [z[n].mask(250, 125, 0.25) for n in z.zones]
    assert all(m.any() for m in masks)
    overlap = np.logical_and.reduce([m > 0 for m in masks])
    assert not overlap.any()


def test_polygons_from_config_and_json():
    z = ZoneLayout.from_polygons({"discard": [(0, 0), (10, 0), (10, 10), (0, 10)]})
    assert z.zone_of((5, 5)) == "discard" and z.zone_of((11, 5)) is None
    assert z.to_json() == {"source": "config", "zones": {"discard": [[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]]}}
