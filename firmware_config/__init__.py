"""The hardware at the table: pin map, gpiozero seat buttons, colour pad, buzzer and LEDs,
and the Pi OS setup files. No rules live here."""
