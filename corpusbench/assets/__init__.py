"""Setup-time assembly of third-party assets from registry packages (run by the Makefile)."""
