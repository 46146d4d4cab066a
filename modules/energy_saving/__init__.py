"""The EnergySaving cluster policy (Dolz et al.): nodes that sleep when idle."""
