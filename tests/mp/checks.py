# What the batched check drivers share (tests/mp/app_driver.py, link_driver.py,
# hal_driver.py): a check is a function whose result, or the traceback it raised, is
# printed as one JSON line, {"id", "result"} or {"id", "crash"}, read by
# conftest.check_results; and, for the app's drivers, a fresh badge and its own asyncio
# loop run for a while. The MicroPython unix port and CPython run it alike.
import json
import sys

CHECKS = []
_roots = [0]


def check(fn):
    CHECKS.append(fn)
    return fn


def run_checks():
    for fn in CHECKS:
        try:
            print(json.dumps({"id": fn.__name__, "result": fn()}))
        except Exception as e:   # report, and go on with the other checks
            import io
            buf = io.StringIO()
            if sys.implementation.name == "micropython":
                sys.print_exception(e, buf)
            elif sys.implementation.name == "circuitpython":
                import traceback
                buf.write("".join(traceback.format_exception(e)))
            else:
                import traceback
                traceback.print_exc(file=buf)
            print(json.dumps({"id": fn.__name__, "crash": buf.getvalue()}))


def fresh_badge(flash, boards, board, config, start=0, epoch_s=None, i2c=False,
                game_key=None):
    """A fresh world, a flash folder under flash with config and board file (and the
    game key, as cran flash installs it), an app booted on it. -> (root, App). epoch_s:
    what the RTC says at the start; i2c: the board's I2C chips answer (the StickC's
    screen needs its power chip)."""
    import machine
    import vclock
    import world

    from cran.config import load
    from cran.start.parts import build
    vclock.start(start, epoch_s if epoch_s is not None else vclock.DEFAULT_EPOCH_S)
    machine.reset_all()
    _roots[0] += 1
    root = "%s/badge%d" % (flash, _roots[0])
    world.wire(world.make_root(root, boards, board, config), i2c=i2c)
    if game_key is not None:
        with open(root + "/game.key", "wb") as f:
            f.write(game_key)
    return root, build(root, load(root))


def run_for(app, ms, during=None, console=False):
    """The app's own asyncio loop for ms of virtual time (during: a coroutine alongside;
    console: its console task too, on cran.compat.STDIN)."""
    import asyncio

    async def main():
        task = asyncio.create_task(app.run(console=console))
        if during is not None:
            await during()
        await asyncio.sleep_ms(ms)
        task.cancel()
    try:
        asyncio.run(main())
    finally:
        asyncio.new_event_loop()
