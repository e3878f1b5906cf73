"""The model child: the user's own model or a preset, examined stage by stage (__main__.py)."""
