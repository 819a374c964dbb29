# A crowd of virtual badges that a field's air hosts itself (`cran air --roster`,
# `--crowd N`), so that one laptop holds a field of 50 badges for a station badge on USB
# to reach. Each is the rules engine and the firmware's own radio (cran.radio.link, cran.radio,
# as fieldsim.FieldBadge wires them) on a radio of the hub (fieldnet.StampedRadio, strict:
# closed outside its windows, 250-byte frames, a 526-byte buffer), listening in the
# firmware's windows, each at a phase of its own. One thread steps them all in real time,
# each at the very ms its link asked for (not when the thread got there: on a busy
# laptop it runs late), and what reaches a badge is heard by when it came, so a late
# thread changes when a badge answers, never what it hears. What the crowd's wearers do
# comes a line at a time (command); what the crowd is, status().
import collections
import os
import random
import struct
import threading
import time

from cran import radio
from cran.core.view import view
from cran.core.words import ParseError, parse_action, plain
from cran.radio.link import NEAR_DBM, PERIOD_MS, WINDOW_MS
from gamefiles.scenario import grammar_word
from host_tools import CommandError
from host_tools.field.fieldsim import FieldBadge
from host_tools.game.chains import GM_NAME, gm_anchor, radio_id, radio_sections, seed_of
from host_tools.game.suggest import did_you_mean
from host_tools.virtual.micropython.cpython import cryptolib

EXIT_BAD_INPUT = 2
MAX_CROWD = 500
SPACING_M = 3.0    # the grid's: a neighbour 3 m away is just near enough to treat (-50 dBm)
COLUMNS = 10
MAX_NAP_MS = 5     # the stepping thread looks at the commands this often at least
# A healer's search ends once the badges of other processes near it have answered, late
# as a busy laptop makes them (fieldnet.Hub.awaits): it waits for them this long at most.
MAX_HOLD_MS = 2500
# What the air carried that only an authority may say, as the crowd's status names it.
AUTHORITY_KINDS = {radio.STOP: "stop", radio.RESUME: "reprise", radio.NIGHT: "nuit",
                   radio.MASS: "masse", radio.RESET: "reset", radio.CLOCK: "clock",
                   radio.HEAL: "soin", radio.REPAIR: "repare"}


def _folded(name):
    try:
        return plain(name)
    except ParseError:   # a character the badge's words do not know: compared as it is
        return name.lower()


class Member:
    """One badge of the crowd: its name, role ("badge", "healer", "smith") and place."""

    def __init__(self, name, role, badge, x, y):
        self.name = name
        self.role = role
        self.badge = badge
        self.x, self.y = x, y


def specs(settings_path, roster_path=None, count=0):
    """The game settings, the roster's rows that have no port (a row with one is the
    badge flashed on that port) and `count` players of no name -> (game key, the game
    master's seed, [{"name", "radio" (cran.radio.config.Radio), "character",
    "settings"}], [(name, port) of each row left to its port]). CommandError naming
    every fault (as cran config does)."""
    from cran.core.rules import Character
    from cran.radio import config as radio_config
    from host_tools.game.roster import (
        RosterError,
        badge_configs,
        firmware_check,
        read_game_key,
        read_radio_secret,
        read_settings,
    )
    try:
        key = read_game_key(settings_path)
        secret = read_radio_secret(settings_path)
        settings = read_settings(settings_path)
        configs = badge_configs(roster_path, settings_path) if roster_path else {}
    except RosterError as e:
        raise CommandError("\n".join(e.messages), EXIT_BAD_INPUT, prefixed=False) from None
    if key is None or secret is None:
        raise CommandError("%s: a game with the radio has a \"game_key\", \"radio\": true "
                           "and a \"radio_secret\" (cran config --settings-template)"
                           % settings_path, EXIT_BAD_INPUT)
    out, left = [], []
    for info, config in configs.values():
        if info["port"]:
            left.append((info["name"], info["port"]))
            continue
        checked = firmware_check(config, "%s:%d" % (roster_path, info["row"]))
        out.append({"name": info["name"], "radio": checked.radio,
                    "character": checked.character, "settings": checked.settings})
    names = [info["name"] for info, _ in configs.values()]
    extra = ["joueur-%02d" % (n + 1) for n in range(count)]
    for name in extra:
        if name in names:
            raise CommandError("%s: %s: a row's name, and a name --crowd gives: rename it"
                               % (roster_path, name), EXIT_BAD_INPUT)
    # The players of no name know the roster's healers and smiths as every badge does.
    rows = [(info["name"], info["role"]) for info, _ in configs.values()]
    sections = radio_sections(secret, rows + [(name, "badge") for name in extra])
    for name in extra:
        try:
            spec = radio_config.read(sections[name])
        except ValueError as e:   # a bug, not the organiser's: said as it is
            raise CommandError("%s: %s" % (name, e)) from None
        out.append({"name": name, "radio": spec, "character": Character(name=name),
                    "settings": settings})
    return key, seed_of(secret, GM_NAME), out, left


class Crowd:
    """members (specs()'s) on hub's air, at a grid's places, 3 m apart, COLUMNS a row.
    folder: where each keeps what outlives a restart, as a badge its radio.json (its
    counter, its chain: a station that heard it before still takes its frames). others:
    the names of the game's badges that are not in the crowd, to name them. start()
    its thread; command(line, done) a wearer's doing; status(); stop()."""

    def __init__(self, hub, game_key, gm_seed, members, folder, others=(), seed=None):
        self.hub = hub
        self.start_s = hub.start_s   # the crowd's clock is the air's (hub.now_ms)
        phases = random.Random(seed)
        self.members = []
        os.makedirs(folder, exist_ok=True)
        for n, spec in enumerate(members):
            x, y = 2 + SPACING_M * (n % COLUMNS), 2 + SPACING_M * (n // COLUMNS)
            r = spec["radio"]
            badge = FieldBadge(hub.radio(x, y, self.now), r.id, r.role, r.seed, game_key,
                               r.authorities, spec["character"], spec["settings"],
                               os.path.join(folder, r.id.hex() + ".json"),
                               clock=lambda: int(time.time()))   # as cran flash sets it
            # Its first window at a phase of its own, as a field's badges switched on
            # one by one: not all 50 answering in the same 25 ms.
            badge.next_wake = phases.randrange(PERIOD_MS)
            self.members.append(Member(spec["name"], radio.ROLES[r.role], badge, x, y))
        self.names = {radio_id(name): name for name in others}
        self.names.update((m.badge.me, m.name) for m in self.members)
        self.names[radio_id(GM_NAME)] = "station"
        # What the air carries, seen as a badge would open it: the game master's (and
        # healers', smiths') commands, genuine ones only, with when they first came.
        keys = radio.Keys(game_key, cryptolib.aes)
        authorities = {radio_id(GM_NAME): [radio.GM, 0, gm_anchor(gm_seed)]}
        for m in self.members:
            for who, entry in m.badge.link.listener.authorities.items():
                authorities.setdefault(who, list(entry))
        self.observer = radio.Listener(keys, authorities, max_senders=MAX_CROWD * 2,
                                       check_steps=radio.CHAIN_STEPS)
        self.commands = []
        self.mine = {m.badge.me for m in self.members}
        self.others_heard = []   # [(name, at_ms)]: the last heartbeats of the others
        self.late_ms = 0      # the stepping thread's worst lateness, for the figures
        self.queue = collections.deque()   # (fn(now), done(result)) for the stepper
        self.lock = threading.Lock()   # the badges, between the stepper and status()
        self.running = False
        self.thread = None

    def now(self):
        """The crowd's clock: the air's (ms since the hub was made)."""
        return self.hub.now_ms()

    # ---- the thread ------------------------------------------------------------------

    def start(self):
        self.hub.on_carry = self._carried
        # A healer's or smith's search asks every badge near for a heartbeat: one of
        # another process (a cran vbadge), late, is waited for and heard on time.
        self.hub.track_answers(_asks_an_answer, NEAR_DBM, WINDOW_MS)
        self.running = True
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while self.running:
            with self.lock:
                now = self.now()
                self.hub.drain()   # everything that came by now on the badges' radios
                self._step_until(now)
                for b in self._badges:   # their radios' time, for what the doings send
                    b.radio.now = now
                while self.queue:   # a wearer's doing, now: every step before it done
                    fn, done = self.queue.popleft()
                    done(fn(now))
                held = self._step_until(now)   # a healer who treats: its radio from now
                due = min((b.next_wake for b in self._badges if b not in held),
                          default=now + MAX_NAP_MS)
                if held:   # looked at again soon: the answers it waits for may come
                    due = min(due, self.now() + 2)
            time.sleep(max(0, min(due - self.now(), MAX_NAP_MS)) / 1000)

    @property
    def _badges(self):
        return [m.badge for m in self.members]

    def _step_until(self, now):
        """Every step due by now, in time order, each at its own time (the badges' clock
        lags the real one by the thread's lateness, which late_ms keeps the worst of);
        but a healer's (a smith's) search that would end while a badge of another
        process near it may still answer (fieldnet.Hub.awaits), held, up to MAX_HOLD_MS.
        -> the badges held."""
        badges = self._badges
        held = []
        while badges:
            b = min(badges, key=lambda b: b.next_wake)
            at = b.next_wake
            if at > now:
                return held
            seeking = b.link.seeking
            if (seeking is not None and at - seeking[0] >= 0 and now - at < MAX_HOLD_MS
                    and self.hub.awaits(b.radio)):
                held.append(b)
                badges = [x for x in badges if x is not b]
                continue
            if not held:   # (a healer held waits by choice: not the thread's lateness)
                self.late_ms = max(self.late_ms, now - at)
            b.radio.now = at
            b.step(at)
            if b.next_wake <= at:   # it asks for the same ms again: the next one
                b.next_wake = at + 1
        return held

    def stop(self):
        self.running = False
        self.hub.on_carry = None
        if self.thread is not None:
            self.thread.join(2)

    def _carried(self, frame, at):
        # In the hub's lock (one thread at a time): a copy already seen is dropped.
        got = self.observer.open(frame)
        if got is not None and got[0] == radio.HEARTBEAT and got[1] not in self.mine:
            # A badge of the field not in the crowd (a vbadge): when it spoke, on the
            # crowd's clock, to set beside a search's (what a healer heard of it).
            self.others_heard.append((self._name(got[1]), self.now() if at is None else at))
            del self.others_heard[:-20]
        if got is not None and got[0] in AUTHORITY_KINDS:
            seen = {"kind": AUTHORITY_KINDS[got[0]], "from": self._name(got[1]),
                    "at_ms": self.now() if at is None else at}
            if got[0] in (radio.RESET, radio.HEAL, radio.REPAIR):
                seen["to"] = self._name(got[3][:radio.ID_BYTES])
            self.commands.append(seen)

    def _name(self, badge_id):
        return self.names.get(badge_id, badge_id.hex())


    # ---- what its wearers do -----------------------------------------------------------

    def command(self, line, done):
        """"NAME ACTION": an action of the scenario format on that badge (coup blesse,
        effet peur...), "NAME treat" (a healer's or smith's wearer treats the nearest
        badge: Jeu -> Soigner), "NAME take" (the long press that takes an offer). Run
        by the crowd's thread, which calls done({"done": line, ...}); CommandError at once
        for a line it cannot do."""
        member, rest = self._member(line)
        if rest == "treat":
            if member.badge.link.treats() is None:
                raise CommandError("%s: %s treats nobody (a healer's or smith's badge "
                                   "does)" % (line, member.name))
            self.queue.append((lambda now: {"done": line, "treats": member.badge.treat(now),
                                            "at_ms": now}, done))
        elif rest == "take":
            def take(now):
                taken = member.badge.take(now)
                return {"done": line, "took": taken.text() if taken else None}
            self.queue.append((take, done))
        else:
            try:
                action = parse_action(rest)
            except ParseError as e:
                raise CommandError("%s: %s%s" % (line, e, did_you_mean(grammar_word(e)))) \
                    from None
            def play(now):
                member.badge.act(action, now)
                return {"done": line}
            self.queue.append((play, done))

    def _member(self, line):
        """The badge a line names (the most words of a name it starts with: names have
        spaces; accents and case aside, as typed), and the rest of the line."""
        words = line.split()
        best = None
        for m in self.members:
            k = len(m.name.split())
            if len(words) > k and _folded(" ".join(words[:k])) == _folded(m.name) and (
                    best is None or k > best[0]):
                best = (k, m)
        if best is None:
            raise CommandError("%s: NAME ACTION, NAME one of the crowd's (%s)"
                               % (line, ", ".join([m.name for m in self.members[:5]] + ["..."])))
        return best[1], " ".join(words[best[0]:])

    # ---- what it is ------------------------------------------------------------------------

    def status(self):
        """The crowd as JSON: its clock (t_ms; clock_s, the monotonic seconds at its 0,
        to set another process's times against), the thread's worst lateness, what the
        air carried of the authorities' (commands), when the badges outside the crowd
        last spoke (others_heard: [name, at_ms]), and every badge's state."""
        with self.lock:
            return self._status()

    def _status(self):
        now = self.now()
        badges = []
        for m in self.members:
            b = m.badge
            seen = view(b.state, now)
            badges.append({
                "name": m.name, "id": b.me.hex(), "role": m.role, "x": m.x, "y": m.y,
                "etat": seen["etat"], "jeu": seen["jeu"], "jeu_ms": b.play_since,
                "offer": b.link.offer[0] if b.link.offer else None,   # on show now
                "offers": [verb for _, verb in b.offers],   # every one it was shown
                "offered": [self._name(t) if t else None for t in b.offered],
                "answered": [[self._name(who), rssi] for rssi, who, _ in b.answered],
                "dropped": dict(b.link.listener.dropped)})
        return {"t_ms": now, "clock_s": self.start_s, "late_ms": self.late_ms,
                "others_heard": list(self.others_heard),
                "members": self.hub.members(), "carried": self.hub.carried,
                "commands": list(self.commands), "badges": badges}


def _asks_an_answer(frame):
    """A frame whose every hearer near enough answers (a healer's or smith's SEEK)."""
    try:
        return struct.unpack_from(radio._HEAD, frame, 0)[5] == radio.SEEK
    except struct.error:
        return False
