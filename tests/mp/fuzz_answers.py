# What the text readers answer for one input, as plain JSON-ready data: the same code
# runs in CPython (tests/test_fuzz.py) and MicroPython (fuzz_driver.py).
import binascii

from cran.console import command_of, text_of
from cran.core.choices import as_dict, parse_duration
from cran.core.words import ParseError, parse_action
from gamefiles import scenario


def _step(step):
    if step is None:
        return None
    number, t, kind, payload = step
    return [number, t, kind, payload.text() if kind == "act" else payload]


def answer(kind, given):
    try:
        if kind == "action":
            return ["ok", parse_action(given).text()]
        if kind == "duration":
            return ["ok", parse_duration(given)]
        if kind == "line":
            reader = scenario.Reader()
            step = _step(reader.line(1, given))
            who = reader.character
            return ["ok", step, None if who is None else as_dict(who)]
        text = text_of(binascii.unhexlify(given))
        return ["ok", text, None if text is None else list(command_of(text))]
    except (ParseError, scenario.ScenarioError) as e:
        return ["error", str(e)]
    except Exception as e:   # a bug: the test names it
        return ["crash", "%s: %s" % (type(e).__name__, e)]
