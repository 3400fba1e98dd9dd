"""The simulated table as a camera source (vision.sim draws the frames)."""

from __future__ import annotations

from vision.errors import EndOfStream
from vision.sim import SimTable, random_script
from vision.sources.base import Capture, FrameSource


class SimTableSource(FrameSource):
    """Frames of a SimTable. Scripted (finite): ends when the queued actions are done.
    Driven (not finite): the app queues actions (play, draw, reveal...) as its simulated
    players act, and idle frames fill the gaps."""

    def __init__(self, table: SimTable, finite: bool = True, realtime: bool = False):
        self.table = table
        self.finite, self.realtime = finite, realtime
        self.fps = table.fps
        self.name = f"simulated table (seed {table.seed})"

    @classmethod
    def from_config(cls, config) -> SimTableSource:
        faces = None
        if config.faces != "render":
            from vision.real_faces import load_faces

            faces = load_faces(None if config.faces == "real" else config.faces)
        table = SimTable(config.seed, config.width, config.height, config.fps, mat=config.mat,
                         faces=faces)
        random_script(table, config.plays, seed=config.seed)
        return cls(table, finite=True, realtime=config.realtime)

    def read(self) -> Capture:
        if self.finite and self.table.pending == 0:
            raise EndOfStream(self.name)
        image, truth = self.table.next_frame()
        return Capture(image, None, truth)
