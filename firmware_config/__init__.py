"""The hardware at the table: pin map, gpiozero seat buttons, colour pad, buzzer and LEDs,
and the Pi OS setup files. No rules live here.

Public API (import from the modules; this package imports nothing, so `uno-table --help`
stays light):
- pinmap: `load_pin_map(path=None) -> PinMap`, `parse_pin_map(text, file)`, `wiring_table(pin_map)`,
  `DEFAULT_PIN_MAP`, `EXAMPLE_PIN_MAPS`.
- gpio: `pin_factory_for(mock_gpio: bool)` (raises GPIOUnavailableError without GPIO unless mocked).
- hardware: `TableHardware(pin_map, pin_factory, clock=None)` with `on_gesture(listener)`,
  `show_turn(seat)`, `show_colour(colour)`, `play(pattern_name)`, `close()`, and
  `.virtual` (VirtualPanel: `press/double_press/hold(seat)`, `pick_colour(colour)`, `perform(json)`)
  on mock pins.
- gestures: `ButtonGesture(seat, gesture, at)` and `ColourPick(colour, at)`, whose `to_json()`
  is what `table.inputs.parse_input` accepts (`to_input()` gives the Input object).
- patterns: `PATTERN_NAMES`, `browser_patterns(kind)` for the dashboard's virtual buzzer.
- feedback: `TableFeedback(hardware).handle(events)`: referee events to LEDs and buzzer.
- doctor: the checks behind `uno-table doctor`.
"""
