import os

# Tests never reach the network and never write ultralytics settings into the home folder.
os.environ.setdefault("YOLO_OFFLINE", "1")
