"""Camera sources, card recognition, calibration and zones, and the tracker that turns frames
into stable table observations. No rules live here."""
