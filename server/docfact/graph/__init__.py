"""The project context graph: entities of every file and how they relate (ReFEree's
second pillar), and the 1-hop evidence it gives a docstring."""
