# Drivers: they only show (LEDs, buzzer, screen) or report (buttons). Each takes its
# hardware object in the constructor; only cran.app builds them from the board file.
