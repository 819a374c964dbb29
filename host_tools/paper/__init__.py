# What is printed for people: the player's card, the cue chart, pictures (SVG -> PNG ->
# PDF, the font shipped) and the widths of their text.
