"""Learning from strokes: what a stroke was (its pattern), what a player did over many strokes
(statistics) and how close a practice stroke came to a system (drills).

Pure code over the physics' event log and trajectory: no files, no sockets, no windows.
"""
