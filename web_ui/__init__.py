"""The dashboard: Flask app, templates, static files, live push channel, camera stream.
No game logic lives here."""
