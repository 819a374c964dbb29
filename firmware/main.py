# The badge's entry point, kept as source (cran flash copies it as it is, last). Before
# anything else: Ctrl-C is a byte (cran.lock opens it to the organisers), and the
# watchdog runs, so a firmware file damaged into a hang at its import resets the badge
# rather than leaving it dead. Then every firmware file is checked against the manifest
# cran flash wrote (firmware_check.py): a damaged firmware is named and shown, and never
# imported. It ends at the REPL with the game key on the flash only by an organiser's
# Ctrl-C.
import micropython

micropython.kbd_intr(-1)
import machine  # noqa: E402

machine.WDT(timeout=45000)   # cran.app.WDT_TIMEOUT_MS, which feeds it from then on

_whole = True   # the can't-start path, as the manifest found it (a damaged one may hang)
try:
    # The check is firmware_check.py's (source, as this file is): this file's code is in
    # the heap all day, its frame running the app; that module's is let go here, emptied
    # (a stale word of this frame kept it whole, 0.8 KB, on a C3 SuperMini's model).
    _found = __import__("firmware_check").damaged("/firmware.json")
    __import__("sys").modules.pop("firmware_check").__dict__.clear()
    if not _found or not _found[0]:
        del _found   # (what the can't-start path would read: the app runs from here)
        __import__("cran.run", None, None, ("main",)).main()
    else:
        _whole = __import__("firmware_check").cannot_start(*_found)
except Exception as e:   # (not KeyboardInterrupt: Ctrl-C is on only while the console is open)
    # What cran.run.main let out (a MemoryError in its own can't-start path, a crash
    # while an organiser had the console), or a cran.run that can't be imported: the
    # can't-start path's locked console, if it can run.
    if _whole:
        try:
            __import__("cran.fail", None, None, ("cannot_start",)).cannot_start(
                "%r" % (e,), "/")
        except Exception:
            pass
# The badge can't run even that: its REPL, for cran flash to mend it (the watchdog
# resets the badge, which says it again at each boot), but never with the game key,
# which goes first (cran flash writes it again). A key that won't go: a reset.
_gone = False
try:
    try:
        __import__("os").remove("/game.key")
    except OSError:
        pass   # none there (a badge without a key), or a flash that refuses: seen below
    open("/game.key").close()
except OSError:
    _gone = True
finally:
    if not _gone:
        machine.reset()
