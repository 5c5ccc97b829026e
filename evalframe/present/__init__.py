"""What a person sees: the evaluation report, plots and the command line (public API only)."""
