"""What a person sees: the command line, the demo, run fusion and the comparative report (public API only)."""
