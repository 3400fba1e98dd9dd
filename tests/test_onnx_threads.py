"""ONNX Runtime's threads per model: half the usable cores (the table's two zones are read
side by side), 1 to 3 (this 2-core machine 1, a 4-core Pi 2), or what the config says."""

from __future__ import annotations

import os

import pytest

from vision.config import OnnxDetectorConfig
from vision.detectors import make_detector
from vision.detectors.onnx import default_threads


@pytest.mark.parametrize(("cores", "threads"), [(1, 1), (2, 1), (3, 1), (4, 2), (16, 3)])
def test_threads_follow_the_usable_cores(monkeypatch, cores, threads):
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: set(range(cores)), raising=False)
    assert default_threads() == threads


def test_the_config_sets_the_threads_of_both_sessions():
    rec = make_detector(OnnxDetectorConfig(threads=3)).recognizer
    assert rec._det.get_session_options().intra_op_num_threads == 3
    assert rec._cls.get_session_options().intra_op_num_threads == 3
