# After a game: badges' journals read (both versions), placed on one time axis, drawn.
