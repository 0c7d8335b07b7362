"""OpenStackClient commands shipped with blazar_ext (loaded by OSC only)."""
