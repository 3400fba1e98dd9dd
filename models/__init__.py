"""The shipped card-recognition weights and the pipeline that makes them: renderer, scene
synthesis, dataset build, train, export, evaluate. Datasets are regenerated from a seed."""
