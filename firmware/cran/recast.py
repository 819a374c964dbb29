# The game master's reset of one badge to a new character, over the radio (cran.radio.link):
# loaded only when one comes, and let go after it. A field's hosted badges
# (host_tools/field/fieldsim.py) take it with the same pieces.
import json

from cran.compat import forget, replace, sync
from cran.core.vocab import Action
from cran.storage import join

# The config's checker, loaded for the character and let go with this module.
_ONLY_HERE = ("cran.recast", "cran.config", "cran.core.choices")
_WHO = "the radio's reset"   # where the character came from, as the journal says it


def read_character(fields):
    """The frame's character (JSON bytes) -> (its fields as JSON reads them, Character),
    checked as a badge's config checks its character; ValueError saying what is wrong."""
    from cran.config import character_from
    try:
        raw = json.loads(fields)
    except ValueError as e:
        raise ValueError("%s: its character is not JSON: %s" % (_WHO, e)) from None
    return raw, character_from(_WHO, raw)   # ConfigError (a ValueError): says the field


def with_character(state, character):
    """The state as another character's: a copy whose reset (P3) starts that one."""
    s = state.copy(keep_before=False)
    s.character = character
    return s


def recast(app, fields, now):
    """fields: the new character as JSON bytes (the frame's, after the badge's id). It is
    checked, written into config.json (the badge restarts as it, and `cran status` shows
    it), and P3 plays with it. A character refused, or a config that can't be written,
    changes nothing: the journal says why. -> whether the badge took it."""
    badge = app.badge
    path = join(app.root, "config.json")
    try:
        try:
            raw, character = read_character(fields)
        except ValueError as e:
            return _refused(badge, str(e))
        try:
            with open(path) as f:
                config = json.loads(f.read())
            config["character"] = raw
            # Whole or not at all: a power cut leaves the old config or the new one.
            with open(path + ".new", "w") as f:
                f.write(json.dumps(config))
                sync(f)
            replace(path + ".new", path)
        except (ValueError, OSError) as e:
            return _refused(badge, "%s: %s: %s" % (_WHO, path, e))
        # Said as a boot says who it is: the debrief counts the armor from here on.
        badge.log({"recast": "radio", "name": character.name, "armor": character.armor})
        badge.tick(now)   # what was due comes first, to the character it was due to
        badge.character = character
        badge.state = with_character(badge.state, character)
        badge.apply(Action("reset"), now, save=False)
        return True
    finally:
        forget(_ONLY_HERE)


def _refused(badge, why):
    badge.log({"radio": "reset", "error": why})
    return False
