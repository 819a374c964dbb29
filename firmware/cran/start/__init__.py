# The badge's start: modules it needs only to start (cran.start.phases.start runs them),
# let go as one once the app is built. What a rare path loads again after the start (the
# records after a failed save: cran.records; the console's reboot: cran.boots; a radio's
# reset checks its character: cran.config) is outside it, so that no module the start
# builds on imports it back. Empty, so that loading one of its modules loads nothing more.
