"""Foundations every stage uses: errors, atomic file writes, text input, progress, processes and threads,
registries, settings, configs, versions and the hints that name commands."""
