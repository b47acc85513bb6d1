"""What every pmubench tool starts with: launch, exits, atomic, stop_signals
(the bottom layer; standard library only)."""
