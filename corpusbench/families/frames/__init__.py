"""Frames: S-clusters from frequent frames and substitutable precision/recall of word clusterings."""
