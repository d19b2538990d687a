"""The names of the checks, for the check modules: `scrubcheck.check_names` holds them
in the bottom layer, so that the evidence record can say which checks are leaks without
importing the checks layer. A new check declares its own with `CheckName`."""

from scrubcheck.check_names import Check, CheckName, Scope

__all__ = ["Check", "CheckName", "Scope"]
