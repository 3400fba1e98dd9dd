"""The composition root: the `uno-table` command, `run` and `demo`, the hub that owns the one
writer to the match log, the app config, the observer and the demo driver.

The only folder that imports every other one (DESIGN.md: the top floor). Rule decisions are
not made here: they live in the referee (`table/`).
"""
