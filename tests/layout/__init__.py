"""The machinery of tests/test_layout.py's rules, and the tests of that machinery on sample sources."""
