"""Top-level nets composed of modules: PuPPET, TOPPER."""
