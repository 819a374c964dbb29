# The badge's entry: main.py (code.py on CircuitPython) calls main(), which builds the
# app (cran.start.phases.start, let go after it) and runs it until the badge stops.
# Resident: main's frame is live as long as the app runs.


def main(root="/", console=True):
    """Start the badge from root/config.json. A config or board file that is missing or
    wrong, or any other fault of the start (a MemoryError, a bug): one console message,
    the error cue, then the locked console answers - no reboot, never the REPL. What
    gets out of here (a fault of that console itself) main.py takes."""
    import asyncio
    import time

    import machine
    import micropython
    # First of all: until the app has read the game key (cran.lock), Ctrl-C is a byte.
    micropython.kbd_intr(-1)
    try:
        from cran.start.phases import start
        # The boot's one start: what it made once (the app, the badge, its drivers, its
        # radio) loses its constructors' code with the start's (cran.start.phases).
        app = start(root, once=True)
        del start   # this frame lives all day: the function kept its module's (1.3 KB)
    except Exception as e:   # (KeyboardInterrupt: only while cran.lock opens the console)
        from cran import fail  # only a badge that can't start loads it
        # A ConfigError (a ValueError) or OSError says it all; anything else is named.
        message = str(e) if isinstance(e, (ValueError, OSError)) else "%s: %s" % (
            type(e).__name__, e)
        print("cran: cannot start: %s" % message)
        fail.cannot_start(message, root, console)
        return None
    try:
        asyncio.run(app.run(console))
    except BaseException as e:   # KeyboardInterrupt too
        if app.console_open(time.ticks_ms()):
            raise   # an organiser's Ctrl-C, or a badge without a key: the REPL
        # A locked badge never leaves a player at the REPL: it comes back as saved,
        # even when the journal can't be written.
        try:
            app.badge.log({"error": "the app ended: %r" % (e,)})
        finally:
            machine.reset()
    return app
