# After a game: badges' journals gathered (from files or badges), read (both versions),
# placed on one time axis, drawn.
