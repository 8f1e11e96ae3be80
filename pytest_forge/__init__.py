"""pytest_forge: contract tests generated from forge specs (issue 4)."""

__all__: list[str] = []
