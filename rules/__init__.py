"""Rules engines: the position model and geometry shared by all systems, one subpackage per system, dice."""
