"""Response builders: Nova's exact JSON shapes."""
