# `make soak`: hostile hands on a virtual badge, for long (not in CI; it prints figures,
# docs/RELIABILITY.md keeps the last ones). A `cran vbadge` (the firmware in the
# MicroPython unix port on a LittleFS image, behind a pty), flashed by `cran flash`:
#   1. locked: fuzzed console lines (random bytes, Ctrl-C and the REPL's other control
#      bytes, long lines, bad UTF-8, commands with bad arguments, actions): nothing may
#      change, nothing may crash or reset;
#   2. unlocked, as an organiser's tool leaves it: the same without Ctrl-C; every action
#      the console acknowledged is in the journal in order, and the rules engine,
#      replaying them at the journal's times, reaches every state the badge recorded
#      (the journal's summary of it, docs/journal.md);
#   3. kill -9 of the chip at random instants while hits flow: after each reboot, never
#      healthier than the last acknowledged answer.
# The interpreter's resident memory (VmRSS) is sampled throughout. Sizes: SOAK_LINES
# (default 100000), SOAK_KILLS (200), SOAK_SEED (1).
import json
import os
import random
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import serial  # noqa: E402

from cran.core.engine import act, new_state, summary  # noqa: E402
from cran.core.words import ParseError, parse_action  # noqa: E402
from host_tools.game import gamekey  # noqa: E402
from host_tools.game.roster import check_config  # noqa: E402
from host_tools.virtual import vbadge  # noqa: E402

LINES = int(os.environ.get("SOAK_LINES", 100000))
KILLS = int(os.environ.get("SOAK_KILLS", 200))
SEED = int(os.environ.get("SOAK_SEED", 1))
BATCH = 40                  # lines sent before an echo marks the end of their answers
RELOCK_S = 40               # unlock again this often (the console opens for 60 s)
ACTIONS = ["coup", "coup blesse", "coup agonisant", "coup coma", "coup mort", "effet peur",
           "effet charme", "coup brise bras", "coup desarme", "soin", "soin complet",
           "repare armure", "hors-jeu", "en-jeu", "stop", "reprise", "nuit", "reset",
           "renommee +1", "coup resiste", "coup divin", "coup mitraille", "effet dissipe"]
HARM = ["coup", "coup blesse", "coup agonisant", "coup coma", "coup mort", "effet peur",
        "coup brise bras"]
BAD_ARGS = ["clock 99999999999999999999999", "clock -1", "clock", "clock 1e9",
            "coup brise " + "x" * 300, "coup tartempion", "effet", "renommee +999999999",
            "renommee", "unlock zz", "unlock", "challenge extra words", "journal 1",
            "status now", "coup\u00a0blesse", "coup bless\u00e9", "co\u0301up", "\u0661"]
RANK = {"pleine-forme": 0, "blesse": 1, "agonisant": 2, "coma": 3, "mort": 3,
        "inconnu": 4}


def fuzz_line(rng, locked):
    """One line's bytes, without its end. locked: Ctrl-C (0x03) may be in it."""
    kind = rng.randrange(6)
    if kind == 1 and rng.randrange(10):
        kind = 5   # a long line is 1 in 60: at 115200 baud it takes a badge 30-90 ms
    if kind == 0:
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(80)))
    elif kind == 1:
        data = bytes(rng.randrange(32, 127) for _ in range(rng.randrange(257, 1000)))
    elif kind == 2:
        data = rng.choice([b"\xff\xfe", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80",
                           b"\xe0\x80\xaf", b"coup \xc3"]) + rng.choice(ACTIONS).encode()
    elif kind == 3:
        word = bytearray(rng.choice(ACTIONS).encode())
        for _ in range(rng.randrange(1, 4)):
            word.insert(rng.randrange(len(word) + 1), rng.choice(b"\x01\x02\x03\x04\x05"
                                                                 b"\x08\x1b\x7f\x00\t"))
        data = bytes(word)
    elif kind == 4:
        data = rng.choice(BAD_ARGS).encode()
    else:
        data = rng.choice(ACTIONS).encode()
    data = data.replace(b"\n", b"").replace(b"\r", b"")
    if not locked:
        data = data.replace(b"\x03", b"")
    return data


class Console:
    """The badge's serial port, as a terminal program holds it."""

    def __init__(self, port):
        self.port = port
        self.conn = serial.Serial(port, 115200, timeout=0.05)
        self.unlocked_at = None

    def exchange(self, lines, timeout=60):
        """Send lines, then an echo -> the answer lines before the echo's."""
        nonce = "soak-%d" % time.monotonic_ns()
        self.conn.write(b"".join(x + b"\r" for x in lines) + ("echo %s\r" % nonce).encode())
        got = b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            got += self.conn.read(65536)
            if (nonce + "\r\n").encode() in got:
                text = got.decode("utf-8", "replace")
                answers = [x.strip("\r") for x in text.split("\n")]
                # The console echoes what it is typed (a person at a terminal sees it):
                # an echo of a line sent is not an answer, and "echo NONCE" echoed ends
                # with the nonce too: the answer is the nonce's own line, which may
                # still be on its way.
                if nonce not in answers:
                    continue
                typed = set(x.decode("utf-8", "replace").strip() for x in lines)
                typed.add("echo " + nonce)
                return [x for x in answers[:answers.index(nonce)] if x.strip() not in typed]
        raise AssertionError("no answer in %d s to a batch of %d lines (last said: %r; "
                             "sent: %r)" % (timeout, len(lines), got[-300:], lines))

    def unlock(self):
        [challenge] = self.exchange([b"challenge"])
        _, nonce, wanted = challenge.split()
        tag = gamekey.unlock_tag(gamekey.find(wanted), bytes.fromhex(nonce))
        assert self.exchange([("unlock " + tag).encode()])[0].startswith("ok unlocked")
        self.unlocked_at = time.monotonic()

    def status(self):
        for line in self.exchange([b"status"]):
            if line.startswith("{"):
                return json.loads(line)
        raise AssertionError("no status")

    def journal(self):
        return [json.loads(x) for x in self.exchange([b"journal"]) if x.startswith("{")]

    def close(self):
        self.conn.close()


def chip_pid(supervisor):
    """The vbadge's MicroPython process (its chip), or None between two."""
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open("/proc/%s/stat" % name) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == supervisor:
                return int(name)
    return None


def rss_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except (OSError, TypeError):
        pass
    return None


def wait_for_status(console, timeout=30):
    deadline = time.monotonic() + timeout
    while True:
        try:
            return console.status()
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            console.conn.reset_input_buffer()


def game_state(status):
    return dict((k, status[k]) for k in ("etat", "armure", "armure-abimee", "effets",
                                         "brises", "renommee", "jeu"))


def locked_fuzz(console, rng, count, rss):
    before = console.status()
    boots = sum(1 for e in console.journal() if "boot" in e)
    sent = 0
    while sent < count:
        console.exchange([fuzz_line(rng, locked=True) for _ in range(BATCH)])
        sent += BATCH
        rss.append(rss_kb(chip_pid(console.supervisor)))
    after = console.status()
    assert game_state(after) == game_state(before), (before, after)
    assert sum(1 for e in console.journal() if "boot" in e) == boots, "a reset"
    return sent


def unlocked_fuzz(console, rng, count, character, settings, rss):
    """-> (lines sent, actions acknowledged, actions replayed)."""
    console.unlock()
    acknowledged, recorded = [], {}
    sent = 0
    while sent < count:
        if time.monotonic() - console.unlocked_at > RELOCK_S:
            console.unlock()
        answers = console.exchange([fuzz_line(rng, locked=False) for _ in range(BATCH)])
        sent += BATCH
        acknowledged += [a for a in answers if a.startswith("ok ") and ": etat=" in a]
        # The journal keeps ~16 KB: read it before it turns over.
        for entry in console.journal():
            if "a" in entry:
                recorded[(entry["up"], entry["a"], json.dumps(entry["s"]))] = entry
        rss.append(rss_kb(chip_pid(console.supervisor)))
    entries = [recorded[k] for k in sorted(recorded)]
    # Every acknowledged action, in the journal, in order ("ok coup normal: etat=..").
    said = [a[3:a.index(": etat=")] for a in acknowledged]
    assert [e["a"] for e in entries][-len(said):] == said, "journal and answers differ"
    # The engine alone, each action at the badge's own time, reaches each recorded state.
    state = new_state(character, settings)
    for entry in entries:
        try:
            action = parse_action(entry["a"])
        except ParseError as e:
            raise AssertionError("the journal holds %r: %s" % (entry["a"], e)) from None
        state, _ = act(state, action, entry["up"])
        seen = summary(state)
        assert seen == entry["s"], (entry, seen)
    return sent, len(acknowledged), len(entries)


def health(etat, armor):
    return (-RANK.get(etat, 9), armor)


def kill_cycles(console, rng, kills, rss):
    """-> (kills, cut mid-save or mid-answer, the worst gap seen)."""
    healthier = 0
    for _ in range(kills):
        if time.monotonic() - (console.unlocked_at or 0) > RELOCK_S:
            console.unlock()
        console.exchange([b"reset"])   # a known start, acknowledged
        last = None
        hits = [rng.choice(HARM).encode() for _ in range(rng.randrange(2, 8))]
        acked = console.exchange(hits[:1])
        last = acked[-1] if acked else None
        # The rest sent at once, and the power cut somewhere among them.
        console.conn.write(b"".join(h + b"\r" for h in hits[1:]))
        time.sleep(rng.random() * 0.05)
        pid = chip_pid(console.supervisor)
        os.kill(pid, 9)
        text = b""
        deadline = time.monotonic() + 1
        while time.monotonic() < deadline:
            text += console.conn.read(65536)
        for line in text.decode("utf-8", "replace").split("\n"):
            if line.startswith("ok ") and ": etat=" in line:
                last = line.strip()
        time.sleep(2.5)   # a chip that dies too soon after its start is a broken image
        status = wait_for_status(console)
        console.unlocked_at = None
        fields = dict(w.split("=") for w in last.split(": ", 1)[1].split())
        if health(status["etat"], status["armure"]) > health(fields["etat"],
                                                            int(fields["armure"])):
            healthier += 1
            print("healthier after a cut: %s, acknowledged %s" % (
                game_state(status), last), file=sys.stderr)
        rss.append(rss_kb(chip_pid(console.supervisor)))
    return healthier


def main():
    rng = random.Random(SEED)
    home = tempfile.mkdtemp(prefix="cran-soak-home-")
    os.environ["CRAN_HOME"] = home   # the key cran flash makes, for this run only
    with tempfile.TemporaryDirectory(prefix="cran-soak-") as tmp:
        config = os.path.join(tmp, "soak.json")
        with open(config, "w") as f:
            json.dump({"board": "atom-lite", "character": {"name": "Soak", "armor": 2}}, f)
        checked = check_config(config)
        with vbadge.running(os.path.join(tmp, "badge.img")) as badge:
            from host_tools import cli  # the command an organiser types, as typed
            if cli.main(["flash", "--port", badge.port, "--config", config]) != 0:
                return 1
            console = Console(badge.port)
            console.supervisor = badge.process.pid
            try:
                return _phases(console, rng, checked)
            finally:
                console.close()
                print(badge.stderr().strip()[-2000:] or "cran vbadge said nothing else",
                      file=sys.stderr)


def _phases(console, rng, checked):
    rss = []
    started = time.monotonic()
    locked = locked_fuzz(console, rng, LINES // 2, rss)
    print("locked: %d fuzzed lines, state unchanged, no reset (%.0f s)"
          % (locked, time.monotonic() - started), flush=True)
    started = time.monotonic()
    sent, acked, replayed = unlocked_fuzz(console, rng, LINES - LINES // 2,
                                          checked.character, checked.settings, rss)
    print("unlocked: %d fuzzed lines, %d actions acknowledged, %d replayed by the engine: "
          "0 divergences (%.0f s)" % (sent, acked, replayed, time.monotonic() - started),
          flush=True)
    samples = [r for r in rss if r]
    # The interpreter's heap is one fixed block, mapped as it is first touched: resident
    # memory grows until the GC has used all of it, then stays (a leak would go on).
    quarters = [samples[min(len(samples) - 1, i * len(samples) // 4)] for i in range(4)]
    print("chip's resident memory over the fuzz, at each quarter and the end: %s KB"
          % " -> ".join(str(q) for q in quarters + [samples[-1]]), flush=True)
    started = time.monotonic()
    healthier = kill_cycles(console, rng, KILLS, rss)
    print("kill -9: %d power cuts among hits, %d came back healthier than acknowledged "
          "(%.0f s)" % (KILLS, healthier, time.monotonic() - started), flush=True)
    return 1 if healthier else 0


if __name__ == "__main__":
    sys.exit(main())
