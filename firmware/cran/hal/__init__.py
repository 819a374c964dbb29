# Drivers: they only show (LEDs, buzzer, screen) or report (buttons), and decide nothing
# of the game. Each takes its hardware object in the constructor: cran.start.parts
# makes them from the board file (cran.hal_cp.parts on CircuitPython), and the app a
# buzzer's player over its PWM for each melody. The screen (display) also loads the
# words that draw it (cran.texts, cran.menuwords), for a draw only.
