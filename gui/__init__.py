"""PySide6 dashboard: views, overlays, panels, replay viewer (presentation only)."""
