# The badge's entry point: everything else is cran.app.
__import__("cran.app").app.main()
