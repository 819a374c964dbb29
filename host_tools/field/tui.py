# `cran field` on a terminal (Textual): every badge heard, the urgent first, refreshed
# twice a second; keys send the game master's commands, each confirmed first. The
# station is stepped by a thread of its own, every few milliseconds, as its radio wants.
import threading
import time

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import DataTable, Footer, Input, Static

from cran.core.vocab import ARMOR_DAMAGED
from host_tools import CommandError
from host_tools.field.gamemaster import REFRESH_S, TICK_S, command, new_character
from host_tools.terminal import driver_class

COLUMNS = ("badge", "etat", "reste", "effets", "armure", "jeu", "batterie", "vu", "signal")
_SAYS = {"stop": "Stop the game on every badge in range",
         "reprise": "Resume the game on every badge in range",
         "nuit": "Night (S9) on every badge in range",
         "clock": "Set every badge's clock to this computer's"}


def row_cells(row):
    reste = "" if row["reste"] is None else "%d:%02d" % divmod(row["reste"], 60)
    effets = " ".join("%s %d:%02d" % ((name,) + divmod(s, 60))
                      for name, s in sorted(row["effets"].items())) or "-"
    armure = "%d%s" % (row["armure"], " (abimee)" if row[ARMOR_DAMAGED] else "")
    battery = "?" if row["batterie"] is None else "%d%%" % row["batterie"]
    return (row["name"], row["etat"], reste, effets, armure, row["jeu"], battery,
            "%ds ago" % row["ago_s"], "%d dBm" % row["rssi"])


_ETATS = ("agonisant", "coma", "mort", "blesse", "pleine-forme")   # the urgent first
_JEUX = ("stop", "hors-jeu", "en-jeu")


def glance(rows):
    """The whole field in a line, for a table longer than the screen: how many badges
    are in each play and each state, e.g. "stop 50 | coma 1, blesse 3, pleine-forme 46"."""
    def counted(key, order):
        return ", ".join("%s %d" % (v, n) for v, n in (
            (v, sum(1 for r in rows if r[key] == v)) for v in order) if n)
    return "%s | %s" % (counted("jeu", _JEUX), counted("etat", _ETATS)) if rows else ""


def radio_text(radio):
    """The station's radio in words (Field.radio's dict)."""
    if "virtual" in radio:
        return "virtual field %r, %d member(s) on the air" % (radio["virtual"],
                                                              radio["members"])
    return "station badge %s on %s%s" % (radio["station"], radio["port"],
                                         ", LOST" if radio["lost"] else "")


class Confirm(ModalScreen):
    BINDINGS = [Binding("y", "yes", "yes"), Binding("n,escape", "no", "no")]

    def __init__(self, question):
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        yield Static("%s?  y: yes   n or Esc: no" % self.question, id="question")

    def action_yes(self):
        self.dismiss(True)

    def action_no(self):
        self.dismiss(False)


class Ask(ModalScreen):
    """A line of text asked for: Enter gives it (stripped), Esc None."""
    BINDINGS = [Binding("escape", "cancel", "close")]

    def __init__(self, question, placeholder):
        super().__init__()
        self.question = question
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        yield Static(self.question)
        yield Input(placeholder=self.placeholder)

    def on_input_submitted(self, event):
        self.dismiss(event.value.strip())

    def action_cancel(self):
        self.dismiss(None)


class FieldApp(App):
    TITLE = "cran field"
    BINDINGS = [Binding("s", "send('stop')", "stop"),
                Binding("r", "send('reprise')", "resume"),
                Binding("n", "send('nuit')", "night"),
                Binding("c", "send('clock')", "clock"),
                Binding("m", "mass", "effet de masse"),
                Binding("x", "reset", "reset the badge"),
                Binding("q", "quit", "quit")]

    def __init__(self, field):
        super().__init__(driver_class=driver_class())   # on stdout
        self.field = field
        self.running = True
        self.stepper = threading.Thread(target=self._step, daemon=True)
        self.shown = []   # the rows on the screen, in its order

    def compose(self) -> ComposeResult:
        yield Static("", id="status")
        yield DataTable(id="badges", zebra_stripes=True)
        yield Footer()

    def on_mount(self):
        table = self.query_one(DataTable)
        table.add_columns(*COLUMNS)
        self.stepper.start()
        self.set_interval(REFRESH_S, self.refresh_table)
        self.refresh_table()

    def _step(self):
        while self.running:
            self.field.step()
            time.sleep(TICK_S)

    def refresh_table(self):
        table = self.query_one(DataTable)
        rows = self.field.rows()
        # The cursor stays on its badge as the rows are drawn again (and move: the most
        # urgent first): clear() alone put it back on the first, and `x` reset that one.
        under = self.shown[table.cursor_row] if 0 <= table.cursor_row < len(
            self.shown) else None
        table.clear()
        for row in rows:
            cells = row_cells(row)
            if row.get("twice"):
                cells = (Text(cells[0] + " TWICE", style="bold red"),) + cells[1:]
            table.add_row(*cells)
        self.shown = rows
        ids = [row["id"] for row in rows]
        if under is not None and under["id"] in ids:
            table.move_cursor(row=ids.index(under["id"]))
        dropped = self.field.station.listener.dropped
        bad = sum(n for why, n in dropped.items() if why != "again")
        radio = self.field.radio()
        status = Text(
            "%s: %d badge(s) heard; frames refused: %d%s\n%s\njournal %s (cran logs "
            "--file)%s"
            % (radio_text(radio), len(rows), bad,
               " (%s)" % ", ".join("%s %d" % i for i in sorted(dropped.items())
                                   if i[0] != "again") if bad else "", glance(rows),
               radio["journal"],
               "".join("\n" + note for note in radio.get("notes", ())[-2:])))
        for said in self.field.twice():   # in red: the game is wrong there
            status.append("\n")
            status.append(said, style="bold red")
        self.query_one("#status", Static).update(status)

    def action_send(self, word):
        def done(yes):
            if yes:
                self._send(word)
        self.push_screen(Confirm(_SAYS[word]), done)

    def _send(self, word):
        """A command confirmed: sent and said, or why not (the station's line lost)."""
        try:
            self.field.send(word)
        except CommandError as e:
            self.notify(str(e), severity="error")
            return
        self.notify("sent: %s" % word)

    def action_mass(self):
        def asked(keyword):
            if not keyword:
                return
            try:
                command("masse:" + keyword)
            except CommandError as e:   # named, nothing sent
                self.notify(str(e), severity="error")
                return
            self.push_screen(Confirm("Effet %s de masse on every badge in range" % keyword),
                             lambda yes: yes and self._send("masse:" + keyword))
        self.push_screen(Ask("An effect «de masse» on every badge in range (K11): its "
                             "keyword, then Enter (Esc: cancel)", "peur"), asked)

    def action_reset(self):
        """P3 for the badge on the table's cursor row, over the radio to that badge alone:
        its own character fresh, or a new one."""
        table = self.query_one(DataTable)
        rows = self.shown   # as on the screen: the cursor's row is the one seen
        if not rows or not 0 <= table.cursor_row < len(rows):
            self.notify("no badge on the cursor", severity="warning")
            return
        row = rows[table.cursor_row]

        def asked(fields):
            if fields is None:
                return
            word = ("reset:%s %s" % (row["id"], fields)).strip()
            try:
                new_character(word, fields)
            except CommandError as e:   # named, nothing sent
                self.notify(str(e), severity="error")
                return
            self.push_screen(Confirm("Reset %s to %s (P3)" % (
                row["name"], "a new character: " + fields if fields
                else "a fresh character")), lambda yes: yes and self._send(word))
        self.push_screen(Ask("Reset %s (P3). Enter alone: its own character, fresh. Or a "
                             "new character, in a scenario's character line words, then "
                             "Enter (Esc: cancel)" % row["name"],
                             "name=Aude armor=metal helmet=oui resist=peur"), asked)

    def on_unmount(self):
        self.running = False
