# The game on the field: the game master's station (its radio side, its screen, its
# journal, a station badge on USB) and the virtual field's air and crowd it can play on.
