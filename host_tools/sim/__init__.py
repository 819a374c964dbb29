# `cran sim`: the badge on a desktop terminal. driver.py runs the real firmware app in a
# driver process (host_tools/mp/live_driver.py); tui.py draws it and drives it (Textual).
