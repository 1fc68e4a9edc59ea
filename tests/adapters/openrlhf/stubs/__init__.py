"""Stand-ins for the GPU-only modules OpenRLHF imports at module level (see ``install``)."""
