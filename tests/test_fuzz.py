# The desktop and the badge read text alike (issue 13): the same inputs through the
# parser, the scenario reader and the console's text on CPython and inside MicroPython,
# batched into one interpreter run per example, must give the same answers, and never
# anything but an answer or a ParseError.
import binascii
import json
import os
import subprocess
import sys

from hypothesis import HealthCheck, given
from hypothesis import settings as hyp_settings
from hypothesis import strategies as st

from host_tools import FIRMWARE_DIR, GAMEFILES_ROOT

MP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mp")
sys.path.insert(0, MP)

from fuzz_answers import answer  # noqa: E402

# Words the grammar knows, and pieces of times, durations, fields.
WORDS = ["coup", "Coup", "COUP", "effet", "blesse", "blessé", "BLESSÉ", "brise", "bras-gauche",
         "renommee", "renommée", "+2", "-1", "999", "1000", "+999", "divin", "de", "masse",
         "soin", "complet", "repare", "armure", "dissipe", "peur", "mort", "si", "coma",
         "vol", "desarme", "normal", "hors", "jeu", "5m", "90s", "500ms", "1h", "1m30s",
         "0:00", "1:02:03", "0:05.250", "+5s", "expect", "etat=blesse", "armure=1",
         "effets=peur,vol", "character", "personnage", "armor=metal", "name=\"Ali Baba\"",
         "resist=peur,charme", "agonisant=7m", "helmet=oui", "x" * 25, "9" * 30, "«", "»",
         ":", "!", ",", "#", "=", "\"", "'", "’", "œuvre"]
# Characters the runtimes used to read differently: spaces and digits beyond ASCII,
# letters CPython lowers and MicroPython not, controls.
ODD = ("\u00a0\u2003\u3000\u202f\u1680\u0085\x1c\x1f\x0b\x0c\t\r\x00\x01\x7f\x08"
       "\u0660\u0663\u0669\u0966\uff10\u00b2\u00b9"
       "\u00e9\u00c9\u00f1\u00d1\u00df\u0130\u212a\u017f\u00ff\u0178\u01c5\U0001f600")
SEPARATORS = [" ", "  ", "\t", " : "]
TEXT = st.lists(st.one_of(st.sampled_from(WORDS), st.sampled_from(SEPARATORS),
                          st.text(alphabet=ODD, min_size=1, max_size=2),
                          st.text(max_size=3)), max_size=8).map("".join)
# Bytes a serial line brings: text, noise, and the forms MicroPython's decode() took
# where CPython's refuses (overlong, surrogates, past U+10FFFF).
BAD_UTF8 = [b"\xc0\xaf", b"\xc1\xbf", b"\xe0\x80\xaf", b"\xe0\x9f\xbf", b"\xed\xa0\x80",
            b"\xed\xbf\xbf", b"\xf0\x8f\xbf\xbf", b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80",
            b"\xc3", b"\xe2\x82", b"\x80", b"\xff"]
RAW = st.lists(st.one_of(TEXT.map(lambda t: t.encode()), st.sampled_from(BAD_UTF8),
                         st.binary(max_size=4)), max_size=5).map(b"".join)
CASES = st.one_of(
    st.tuples(st.just("action"), TEXT),
    st.tuples(st.just("duration"), TEXT),
    st.tuples(st.just("line"), st.tuples(st.sampled_from(["0:00 ", "+1s ", "character ",
                                                          "0:00 expect ", ""]), TEXT)
              .map("".join)),
    st.tuples(st.just("console"), RAW.map(lambda b: binascii.hexlify(b).decode())),
)


def micropython_answers(micropython, cases):
    out = subprocess.run([micropython, os.path.join(MP, "fuzz_driver.py"), FIRMWARE_DIR,
                          GAMEFILES_ROOT],
                         input=json.dumps(cases, ensure_ascii=False).encode(),
                         capture_output=True, timeout=60)
    assert out.returncode == 0, out.stderr.decode(errors="replace")[-2000:]
    # "\n" only: splitlines() would also cut at U+0085 and U+2028 inside an answer.
    return [json.loads(line) for line in out.stdout.decode().split("\n") if line]


@hyp_settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                      HealthCheck.data_too_large])
@given(st.lists(CASES, min_size=20, max_size=150))
def test_the_badge_and_the_desktop_read_every_input_alike(micropython, cases):
    cases = [list(c) for c in cases]
    # Through JSON, as MicroPython's answers come: tuples become lists.
    here = json.loads(json.dumps([answer(kind, given) for kind, given in cases]))
    there = micropython_answers(micropython, cases)
    assert len(there) == len(cases)
    for case, mine, theirs in zip(cases, here, there):
        assert mine[0] != "crash", (case, mine)
        assert mine == theirs, case


def test_a_yes_or_no_beyond_ascii_is_refused_alike(micropython):
    # Found by the fuzz: CPython's str.lower() lowered the Ñ in the refusal, MicroPython's
    # did not.
    cases = [["line", "character helmet=ouiÑ"], ["line", "character helmet=NÖN"]]
    here = [answer(kind, given) for kind, given in cases]
    assert micropython_answers(micropython, cases) == here
    assert [a[0] for a in here] == ["error", "error"] and "'ouiÑ'" in here[0][1]


def test_the_inputs_that_used_to_differ(micropython):
    # From issue 13: CPython took no-break and em spaces and Arabic-Indic digits, the
    # badge did not; the badge kept overlong UTF-8, the desktop did not.
    cases = [["action", "coup\u00a0blesse"], ["action", "coup\u2003blesse"],
             ["action", "renommee +\u0663"], ["duration", "\u0665m"],
             ["line", "0:00 Coup\u00a0: Blessé"], ["line", "\u0660:00 coup"],
             ["line", "character armor=\u0662"], ["action", "cloc\u212a"],
             ["console", binascii.hexlify(b"coup \xc0\xaf").decode()],
             ["console", binascii.hexlify(b"status\xc2\xa0x").decode()],
             ["console", binascii.hexlify("STATUS  é".encode()).decode()]]
    here = [answer(kind, given) for kind, given in cases]
    assert micropython_answers(micropython, cases) == here
    assert [a[0] for a in here] == ["error"] * 8 + ["ok"] * 3
    assert here[8] == ["ok", None, None]   # not text
    assert here[9] == ["ok", "status\u00a0x", ["status\u00a0x", ""]]   # no command
    assert here[10] == ["ok", "STATUS  é", ["status", "é"]]
