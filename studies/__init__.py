"""Experiments, sweeps and the papers' studies: the layer between the nets and the command line."""
