"""Collection settings for the doctests of the package (tests/conftest.py holds the test fixtures)."""

# the deprecated aliases of moved modules warn when imported; their doctests are those of the modules they name
collect_ignore = ["evalframe/plots.py", "evalframe/present/report.py", "evalframe/stats.py", "evalframe/matching.py", "evalframe/slices.py"]
