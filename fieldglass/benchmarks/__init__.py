"""Benchmarks behind `fieldglass bench`: they print figures; tests never time anything."""
