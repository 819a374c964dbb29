# The badge's entry point; the app itself arrives with the drivers.
import cran

print("cran", cran.VERSION)
