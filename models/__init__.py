"""The shipped card-recognition weights and the pipeline that makes them: renderer, scene
synthesis, dataset build, train, export, evaluate. Datasets are regenerated from a seed."""


def share(text: str) -> float:
    """An argparse type for a share of crops or printings: a number from 0 to 1 (a flag given
    30 for 30% would otherwise make every crop so, silently)."""
    import argparse

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (a share from 0 to 1)") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"{value:g} is not a share from 0 to 1")
    return value
