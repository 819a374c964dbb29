# The badge's entry point: everything else is cran (start, then cran.app).
__import__("cran").main()
