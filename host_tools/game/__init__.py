# The game as the organiser writes it: the roster and settings, scenario files, game
# keys, the words people type ("did you mean") and time as they read it.
