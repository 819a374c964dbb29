# The badge in a browser (`cran web`): a static site that runs the badge's own firmware in
# MicroPython's WebAssembly port (site.py builds it), its lessons (lessons.py, from the
# scenario files of lessons/), the page (page/) and what runs inside the port (mp/).
