# The badge's start: modules it needs only to start (cran.start.phases.start runs them),
# let go as one once the app is built. Empty, so that a rare path that loads one of them
# again (records after a failed save, boots for the console's reboot, config for a radio
# reset) loads nothing more.
