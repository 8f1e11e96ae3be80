"""pytest11 entry point for forge's generated contract tests (being built: issue 4)."""
