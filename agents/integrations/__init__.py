"""Agents trained or played by other libraries (RLlib); each module imports its library."""
