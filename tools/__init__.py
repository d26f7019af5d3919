"""Developer tools of the repository (not part of the ascgen package): page generators for docs/."""
