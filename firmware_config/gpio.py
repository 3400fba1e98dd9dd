"""Which pin factory the table runs on: real GPIO on a Pi, mock pins only when asked.

`uno-table run` must not silently pretend: on a machine without GPIO it stops and says why,
unless `--mock-gpio` was given (the default of `demo`).
"""

from __future__ import annotations

import glob
import warnings

from firmware_config.errors import GPIOUnavailableError


def mock_pin_factory():
    """gpiozero's MockFactory with PWM-capable pins (the tonal buzzer and RGB LED need PWM)."""
    from gpiozero.pins.mock import MockFactory, MockPWMPin

    return MockFactory(pin_class=MockPWMPin)


def real_pin_factory():
    """The pin factory gpiozero would pick on this machine (lgpio on current Pi OS).

    Raises GPIOUnavailableError saying what was tried when there is none."""
    from gpiozero.devices import Device
    from gpiozero.exc import BadPinFactory

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            factory = Device._default_pin_factory()
        except BadPinFactory as exc:
            tried = "; ".join(str(w.message) for w in caught) or str(exc)
            raise GPIOUnavailableError(_no_gpio_message(tried)) from None
        except Exception as exc:  # a factory named in GPIOZERO_PIN_FACTORY that fails to load
            raise GPIOUnavailableError(_no_gpio_message(f"{type(exc).__name__}: {exc}")) from None
    # GPIOZERO_PIN_FACTORY=mock lands here too: an explicit request for mock pins, honoured.
    return factory


def pin_factory_for(mock_gpio: bool):
    """The pin factory for `run`/`demo`: mock pins when `mock_gpio`, else the real GPIO.

    Raises GPIOUnavailableError (an UnoTableError and RuntimeError) with the reason and the
    way out when there is no GPIO and mocking was not asked for."""
    if mock_gpio:
        return mock_pin_factory()
    return real_pin_factory()


def gpio_chips() -> list[str]:
    return sorted(glob.glob("/dev/gpiochip*"))


def _no_gpio_message(tried: str) -> str:
    chips = gpio_chips()
    where = f"GPIO chips {', '.join(chips)} exist but" if chips else "this machine has no /dev/gpiochip* and"
    return (
        f"no GPIO: {where} no gpiozero pin factory could open them ({tried}). "
        "On a laptop, run with --mock-gpio (mock buttons, pressed from the dashboard's virtual "
        "panel). On a Raspberry Pi, install python3-lgpio (sudo apt install python3-lgpio) and "
        "check that this user is in the gpio group."
    )
