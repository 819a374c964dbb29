# One wearer's badge: the rules engine's state, kept safe in storage and told to the
# journal. No hardware here: the app feeds it actions and ticks and shows its cues.
import sys

from cran.compat import forget
from cran.core.engine import (
    act,
    new_state,
    next_deadline,
    summary,
    tick,
)
from cran.core.record import to_record
from cran.core.steps import COUNTDOWN, announce
from cran.core.ticks import ticks_add, ticks_diff
from cran.core.vocab import CUE_KINDS, const

# While a countdown runs, it is saved at least this often, each time as if this much had
# already gone: power can go at any instant, and the badge must come back never healthier.
_CHECKPOINT_MS = 10000
# A wake-up for something else this close to a checkpoint saves early (always safe), so a
# blinking badge adds no wake-up of its own for the saves.
_CHECKPOINT_EARLY_MS = const(4000)
# The wearer takes back their own last action with a double press this long after it
# (a press on the wrong button in a fight), once, and only if nothing came since.
UNDO_MS = const(5000)
# The rules of an order (a soin, the night, a stop...: cran.core.orders), loaded by the
# engine for one and let go once it is played: rare beside hits, ~1.2 KB all day.
_ORDERS = const("cran.core.orders")


class Badge:
    def __init__(self, character, settings, store=None, journal=None, board_id="?"):
        self.character = character
        self.settings = settings
        self.store = store          # StateStore or None (a desktop run without flash)
        self.journal = journal      # Journal or None
        self.board_id = board_id
        self.names = {}   # {"id": the chip's unique id, "badge": the config's name}
        self.state = new_state(character, settings)
        # État inconnu: the saved state is lost (damaged flash) and the badge has lived,
        # so it may be anything: nothing is played, shown or saved as if it were known
        # until an organiser's reset (the state above is only a placeholder).
        self.unknown = False
        self.saved_at = None        # tick of the last save, for checkpoints (the boot's, once
                                    # cran.start.restore has put the saved state back)
        self._copy_failed = False   # the last save's NVS copy failed (journaled once)
        # Why the last save failed (the flash refused it), until one works again: the
        # app shows it on every board and `status` says it. A badge that can't save
        # would come back after a power cut as it was before: never silently.
        self.save_error = None
        self._unsaved = None        # (action or None: undo, cues, state) not yet saved
        # (tick, state before) of the wearer's last action while undo() may take it back;
        # any other action (the console's, a game master's) ends that chance.
        self._undo = None
        self.uptime_ms = 0
        self._last_now = None
        self.wall_s = None          # wall-clock seconds at _wall_set_uptime, once set
        self._wall_set_uptime = 0
        # on_cues(kind, now, cues): the one way cues leave the badge. Told every change,
        # "act", "timer" or "undo", whoever made it (a press, the console, the radio):
        # for the app's sounds and redraws and the host's scenario trace.
        self.on_cues = None
        self._deadline_of = None    # the state whose next deadline _deadline is
        # The tick and state of the last tick that found nothing to do: ticking again at
        # that tick with that state (the show step's tick, then a press's apply) has
        # nothing more to do, and a press is shown sooner.
        self._idle_at = self._idle_state = None

    def _timers_due(self):
        """The engine's next_deadline() of the state on hand, found again only when the
        state is another, so an idle tick is one comparison. (Not a property's setter:
        reading the state would be a call, and setting any field of the badge slower;
        a press's path does both.)"""
        if self.state is not self._deadline_of:
            self._deadline_of = self.state
            self._deadline = next_deadline(self.state)
        return self._deadline

    # ---- time -------------------------------------------------------------------

    def advance(self, now):
        # Uptime never wraps: ticks do, so only their differences are added.
        if self._last_now is not None:
            self.uptime_ms += max(0, ticks_diff(now, self._last_now))
        self._last_now = now

    def wall_clock(self):
        """Wall-clock seconds now, or None until the host has set it (`clock`)."""
        if self.wall_s is None:
            return None
        return self.wall_s + (self.uptime_ms - self._wall_set_uptime) // 1000

    def set_wall_clock(self, seconds, now):
        self.advance(now)
        self.wall_s = seconds
        self._wall_set_uptime = self.uptime_ms

    def next_deadline(self):
        """The tick at which tick() has something to do: a timer running out, or the
        running countdown's next checkpoint (the app must wake for it, or a power cut
        would find more time left than there is). None: nothing to do."""
        due = self._timers_due()
        if self._checkpoints():
            at = ticks_add(self.saved_at, _CHECKPOINT_MS)
            if due is None or ticks_diff(at, due) < 0:
                due = at
        return due

    def _checkpoints(self):
        # A frozen countdown (K15, K16) is saved as it stands: nothing to refresh.
        state = self.state
        return (self.saved_at is not None and COUNTDOWN in state.timers
                and not state.frozen)

    # ---- life -------------------------------------------------------------------

    def apply(self, action, now, save=True, undoable=False):
        """One action on the wearer; timers due by then fire first. Its cues are told
        (on_cues), not returned. save=False: the journal entry and the record wait for
        flush(), so a press shows before the flash write (the app flushes in the same
        step; a power cut in between loses this one action, never more). undoable: the
        wearer's own press, which undo() may take back. An unknown badge takes only a
        reset (an organiser's), and nothing else happens."""
        if self.unknown:
            if action.verb != "reset":
                return
            self.unknown = False
        self.tick(now)
        if self._unsaved is not None:   # (a press's path: most often nothing to flush)
            self.flush(now)
        # Before the action, its timers ticked: taken back, they run on as if it never came.
        self._undo = (now, self.state) if undoable else None
        # (No local for the new state: a press's path keeps its frames within 11 words,
        # on the C stack; see cran.core.engine.act.)
        self.state, more = act(self.state, action, now, True)   # ticked just above
        if self.on_cues is not None:   # first: the app shows it at once
            self.on_cues("act", now, more)   # _tell(), without its call
        # The cues are the journal's too (flush): whoever hears them never changes them.
        self._unsaved = (action, more, self.state)   # its entry: flush() writes it
        if save:
            self.flush(now)
        if _ORDERS in sys.modules:   # (a hit never loads it: one lookup)
            forget((_ORDERS,))

    def undo(self, now, save=True):
        """Take back the wearer's last action (apply(undoable=True)) if it came at most
        UNDO_MS ago and nothing came after it; once. -> whether it did. Its cues are
        told as "undo"."""
        last = self._undo
        self._undo = None
        if last is None or self.unknown or ticks_diff(now, last[0]) > UNDO_MS:
            if not self.unknown:   # (a lost state refuses every action: said at boot)
                # Kept for the debrief: a late double press the wearer thought took a
                # hit back. The ms since the action it missed; None: nothing to take.
                self.log({"late_undo": None if last is None else ticks_diff(now, last[0])})
            return False
        self.tick(now)
        self.flush(now)
        before = last[1]
        cues = []  # type: list
        announce(self.state.etat, before.etat, now, cues)
        self.state = before
        self._unsaved = (None, cues, before)
        self._tell("undo", now, cues)
        if save:
            self.flush(now)
        return True

    def flush(self, now):
        """The journal entry and the record of the last action (or undo), if still
        unsaved. The entry is made here, not in apply(): after what the wearer sees."""
        unsaved = self._unsaved
        if unsaved is not None:
            self._unsaved = None
            action, cues, state = unsaved   # (states are values: as it was then)
            if action is None:
                self.log({"undo": _brief(cues), "s": summary(state)})
            else:
                self.log({"a": action.text(), "c": _brief(cues), "s": summary(state)})
            self._save(now)

    def checkpoint(self, now):
        """Save the state exactly as of now: for a clean restart, which loses no time."""
        self.advance(now)
        self._save(now, exact=True)

    def tick(self, now):
        """Let time pass. -> cues of the timers that ran out."""
        if now == self._idle_at and self.state is self._idle_state:
            return ()
        self.advance(now)
        if (self._checkpoints() and ticks_diff(now, self.saved_at)
                >= _CHECKPOINT_MS - _CHECKPOINT_EARLY_MS):
            self._save(now)
        if self.state is not self._deadline_of:   # _timers_due(), without its call
            self._deadline_of = self.state
            self._deadline = next_deadline(self.state)
        deadline = self._deadline
        if deadline is None or ticks_diff(now, deadline) < 0:
            self._idle_at = now
            self._idle_state = self.state
            return ()     # the idle path allocates nothing: most wake-ups end here
        self.state, cues = tick(self.state, now)
        if cues:
            self.log({"timer": _brief(cues), "s": summary(self.state)})
            self._save(now)
            self._tell("timer", now, cues)
        return cues

    def _tell(self, kind, now, cues):
        if self.on_cues is not None:
            self.on_cues(kind, now, cues)

    def log(self, entry):
        if self.journal is None:
            return
        entry["up"] = self.uptime_ms
        wall = self.wall_clock()
        if wall is not None:
            entry["t"] = wall
        try:
            self.journal.append(entry)
        except OSError:
            pass   # a failing flash must not stop the badge; the state on show is right

    def _save(self, now, exact=False):
        if self.store is None or self.unknown:
            return   # unknown: the records lost stay lost, until the organiser's reset
        record = to_record(self.state, now)
        record["wall_s"] = self.wall_clock()
        left = record["timers"].get(COUNTDOWN)
        if left is not None and not exact:
            # Pessimistic by one checkpoint: until the next save, a power cut at any
            # moment finds at most the time really left (S3, S4: never healthier).
            record["timers"][COUNTDOWN] = max(0, left - _CHECKPOINT_MS)
        try:
            failed = self.store.save(record)
            self.saved_at = now
            self.save_error = None
        except (OSError, ValueError) as e:
            # The badge goes on showing the truth, with the error cue; the journal says
            # the flash failed (if it can still write that).
            self.save_error = "%r" % (e,)
            self.log({"error": "state not saved: " + self.save_error})
            return
        if failed is not None and not self._copy_failed:   # said once, not at every save
            self.log({"error": "state saved, its copy in NVS not: %r" % (failed,)})
        self._copy_failed = failed is not None


def epoch_shift():
    """Seconds from 1970 to the port's epoch: time.time() counts from 1970 on some ports
    and from 2000 on others (gmtime(0) tells which); the host and the journal speak
    1970."""
    import time
    return 946684800 if time.gmtime(0)[0] == 2000 else 0


def _brief(cues):
    # A cue in the journal: [its kind's place in CUE_KINDS, its value].
    return [[CUE_KINDS.index(kind), value] for _, kind, value, _ in cues]
