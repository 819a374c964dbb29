# `cran sim`: the badge on a desktop terminal. start.py boots the badge its options ask
# for; driver.py runs the real firmware app in a driver process
# (host_tools/virtual/scripts/live_driver.py); tui.py draws it and drives it (Textual).
